// Stream parts: the one typed vocabulary in which a model step reports what it produced.
//
// Every provider (src/model/) and every output parser (this part) speaks in StreamParts; the
// harness turns each part into product state, and the server maps them 1:1 onto the AI SDK UI
// message stream (docs/HARNESS.md). A part is a plain value: copyable, no references into other
// objects.
//
// Ordering contract for one step (what a provider emits):
//   start-step, then content parts, then exactly one terminal part:
//     finish-step + finish  (the step completed; finish carries the reason)
//     error                 (the step failed; nothing after it)
//     abort                 (the step was cancelled; nothing after it)
//   Content parts obey the UI-stream rules: text-start before text-delta/text-end with that id
//   (same for reasoning); tool-input-start before tool-input-delta; a started tool input ends with
//   either tool-input-end followed by tool-call, or with tool-input-error. Every started
//   text/reasoning part is ended before the terminal part. `start` (once per assistant message) is
//   the loop's. A citation follows the text-delta that completed its spelling, inside that open
//   text part.
#pragma once

#include "text/tokenizer.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::formats {

enum class PartType {
  kStart,
  kStartStep,
  kTextStart,
  kTextDelta,
  kTextEnd,
  kReasoningStart,
  kReasoningDelta,
  kReasoningEnd,
  kToolInputStart,
  kToolInputDelta,
  kToolInputEnd,
  kToolCall,
  kToolInputError,
  kCitation,
  kFinishStep,
  kFinish,
  kError,
  kAbort,
};

// The wire name of a part type ("text-delta", "tool-input-error", ...).
std::string_view PartTypeName(PartType type);

// Token accounting of one step. prompt_tokens counts the whole prompt; cached_prompt_tokens is the
// part of it that was not computed again because a prefix cache (KV cache) already held it, so
// prompt_tokens - cached_prompt_tokens tokens were newly evaluated. generated_tokens counts the
// sampled tokens, including a terminating end-of-turn token.
struct Usage {
  int64_t prompt_tokens = 0;
  int64_t cached_prompt_tokens = 0;
  int64_t generated_tokens = 0;
};

// Why a step finished (finish part): "stop" (end of turn), "tool-calls" (end of turn with at least
// one well-formed tool call), "length" (token limit reached), "error", "other".
// A call the output left open (it ended, or a new call began, before the closing tag): the
// harness tells a call cut off by a cancellation from a malformed one by it.
inline constexpr std::string_view kUnterminatedCallCode = "formats.unterminated_call";

struct StreamPart {
  PartType type = PartType::kTextDelta;
  // text/reasoning parts: the part id; tool parts: the tool call id.
  std::string id;
  // tool-input-start, tool-call, tool-input-error (empty when the name never became known).
  std::string tool_name;
  // text-delta, reasoning-delta, tool-input-delta.
  std::string delta;
  // tool-call: the arguments exactly as the model wrote them; tool-input-error: the whole raw text
  // of the malformed call, exactly as received.
  std::string input_text;
  // tool-call: the parsed arguments (a JSON object).
  nlohmann::json input;
  // tool-input-error: the parse error; error: the error message; abort: the reason.
  std::string error_text;
  // error: the machine-readable code ("model.http_status", ...); tool-input-error: the parser's
  // code when the reason has one of its own ("formats.too_deep", kUnterminatedCallCode), else
  // empty.
  std::string error_code;
  // finish: the reason (see above).
  std::string finish_reason;
  // finish-step: token accounting, and the sampled token IDs when the provider knows them (the
  // canonical history of the model's turn: keep these, never re-tokenize its text).
  Usage usage;
  std::vector<text::TokenId> tokens;
  // citation: the references it names ("r3"), in order, and the byte offset of its spelling (in
  // `delta`, e.g. "[r1, r3]") within its text part's text. `id` is the text part's id.
  std::vector<std::string> refs;
  int64_t offset = 0;
  // Free-form facts about the part's origin; a replay provider sets {"replay": true} on every part.
  nlohmann::json metadata;

  static StreamPart Of(PartType type, std::string id = {});
};

// The part as one JSON object in the UI-message-stream spelling ({"type": "text-delta", "id": ..,
// "delta": ..}); fields that do not belong to the type are omitted. tool-call is spelled
// {"type":"tool-call","toolCallId","toolName","input"}; finish-step carries "usage" and
// finish "finishReason"; metadata appears as "providerMetadata" when not empty.
nlohmann::json ToJson(const StreamPart& part);

// True for finish, error and abort: the last part of a step.
inline bool IsTerminal(PartType type) {
  return type == PartType::kFinish || type == PartType::kError || type == PartType::kAbort;
}

}  // namespace affordance::formats
