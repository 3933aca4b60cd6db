// The replay provider: a scripted model for tests and demos.
//
// A replay script is a JSON file:
//   {"format": "qwen3" | "llama3.1",
//    "steps": ["model text of step 1", {"text": "model text of step 2", "finish": "length"},
//              {"cases": [{"when": "denied: a person denied", "text": "..."}, {"text": "..."}]},
//              ...]}
// Each Stream() call plays the next step: its text is encoded with the REAL tokenizer (special
// spellings such as <tool_call> or <|python_tag|> become their tokens), the format's end-of-turn
// token (<|im_end|> / <|eot_id|>) is appended unless the text already ends with an end token or
// the step says "finish": "length", and the tokens are fed one by one through the same incremental
// decoder and parser as a real model's, so the parts are exactly what a live model writing that
// text would produce. request.max_tokens applies (reason "length" when it cuts the step).
//
// A step with "cases" is how a script follows what happened (a person's decision, a result): the
// first case whose "when" occurs in the step's prompt plays (the decoded prompt tokens, or the chat
// messages as JSON), and a case without "when" always matches. It is plain substring matching on
// what the harness rendered, as a stand-in for a model reading its prompt; when no case matches
// the step fails with "model.replay_no_case" naming the cases.
//
// Days relative to the day it plays, so an example stays true on any date: `{{date}}`,
// `{{date+N}}` and `{{date-N}}` (N up to 3 digits) become that UTC day as `YYYY-MM-DD`
// (e.g. `"start": "{{date+1}}T15:00:00Z"`), `{{day+N}}` the same day as "Saturday 5 December 2026".
// Any other `{{...}}` (a canvas template) is left as it is.
//
// Deterministic: the same script and requests on the same day give the same parts. Every part
// carries metadata
// {"replay": true, "replayStep": <0-based step index>} so it can never be mistaken for a live
// model. Usage: prompt_tokens = request.prompt.size(), cached_prompt_tokens = 0 (a replay has no
// cache), generated_tokens = tokens played. When the steps are exhausted the step fails with
// "model.replay_exhausted".
#pragma once

#include "model/provider.h"

namespace affordance::model {

struct ReplayScript {
  struct Step {
    std::string text;
    bool cut_off = false;     // "finish": "length": no end-of-turn token is appended
    std::string when;         // a case's condition ("": always)
    std::vector<Step> cases;  // when not empty, the step is the first case that matches
  };
  formats::ChatFormat format = formats::ChatFormat::kQwen3;
  std::vector<Step> steps;
  // "token_delay_ms": a pause before each token (a model's pace: demos, cancellation and
  // process-kill tests). 0 = as fast as possible.
  int token_delay_ms = 0;
};

// Parses a replay script document. Errors: "model.replay_script" naming what is wrong and where;
// "model.too_deep" for a document nested deeper than kMaxJsonDepth (base/json_limits.h).
Result<ReplayScript> ParseReplayScript(std::string_view json);
Result<ReplayScript> LoadReplayScript(const std::string& path);

// `text` with its {{date±N}} / {{day±N}} markers filled for the UTC day of `now_s` (see above).
std::string ExpandReplayDays(const std::string& text, int64_t now_s);

class ReplayProvider final : public Provider {
 public:
  // Errors: "model.replay_script" when the tokenizer lacks the format's end-of-turn token.
  static Result<std::unique_ptr<ReplayProvider>> Create(
      std::shared_ptr<const text::Tokenizer> tokenizer, ReplayScript script);

  Status Stream(const StepRequest& request, const PartSink& sink,
                const CancelToken& cancel) override;
  std::string_view kind() const override { return "replay"; }

  // Steps played so far (or skipped by SkipTo).
  size_t position() const { return next_; }
  // The next Stream plays step `step` (a continuation of a response whose first steps were played
  // by an earlier provider: the server creates one provider per turn).
  void SkipTo(size_t step) { next_ = step; }

 private:
  ReplayProvider(std::shared_ptr<const text::Tokenizer> tokenizer, ReplayScript script,
                 std::vector<text::TokenId> end_tokens);

  std::shared_ptr<const text::Tokenizer> tokenizer_;
  ReplayScript script_;
  std::vector<text::TokenId> end_tokens_;  // [0] is appended; any of them ends a step's text
  std::mutex mu_;
  size_t next_ = 0;
};

}  // namespace affordance::model
