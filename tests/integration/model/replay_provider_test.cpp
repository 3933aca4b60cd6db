// The replay provider with the REAL tokenizers (models/): scripted model text runs through the
// real encoder, incremental decoder and parser, so these are the semantic cases of a model turn.
#include "model/replay_provider.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace affordance::model {
namespace {

using formats::PartType;
using ::testing::HasSubstr;

std::shared_ptr<const text::Tokenizer> Qwen() {
  auto t = text::LoadModel("Qwen__Qwen3-4B-Instruct-2507");
  EXPECT_TRUE(t.ok()) << t.error().ToString();
  return *t;
}
std::shared_ptr<const text::Tokenizer> Llama() {
  auto t = text::LoadModel("meta-llama__Llama-3.1-8B-Instruct");
  EXPECT_TRUE(t.ok()) << t.error().ToString();
  return *t;
}

std::unique_ptr<ReplayProvider> Make(std::shared_ptr<const text::Tokenizer> tok, const char* json) {
  auto script = ParseReplayScript(json);
  EXPECT_TRUE(script.ok()) << script.error().ToString();
  auto p = ReplayProvider::Create(std::move(tok), std::move(script).value());
  EXPECT_TRUE(p.ok()) << p.error().ToString();
  return std::move(p).value();
}

std::vector<const formats::StreamPart*> OfType(const std::vector<formats::StreamPart>& parts,
                                               PartType t) {
  std::vector<const formats::StreamPart*> r;
  for (const auto& p : parts) {
    if (p.type == t) r.push_back(&p);
  }
  return r;
}

std::string Joined(const std::vector<formats::StreamPart>& parts, PartType t) {
  std::string s;
  for (const auto* p : OfType(parts, t)) s += p->delta;
  return s;
}

TEST(ReplayQwen3, TextAndTwoCallsThroughTheRealTokenizer) {
  auto provider = Make(Qwen(), R"({"format": "qwen3", "steps": [
    "Let me look.\n<tool_call>\n{\"name\": \"search\", \"arguments\": {\"q\": \"café\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"open\", \"arguments\": {\"id\": 7}}\n</tool_call>"]})");
  StepRequest r;
  r.prompt = {151644, 872, 198};
  r.step_id = "s1-";
  auto step = Collect(*provider, r);
  ASSERT_TRUE(step.status.ok()) << step.status.error().ToString();
  EXPECT_EQ(step.parts.front().type, PartType::kStartStep);
  EXPECT_EQ(Joined(step.parts, PartType::kTextDelta), "Let me look.\n");
  auto calls = OfType(step.parts, PartType::kToolCall);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]->id, "s1-call-0");
  EXPECT_EQ(calls[0]->input, nlohmann::json({{"q", "café"}}));
  EXPECT_EQ(calls[1]->tool_name, "open");
  // The arguments streamed as several deltas while the tokens arrived.
  size_t deltas = 0;
  for (const auto& p : step.parts) {
    if (p.type == PartType::kToolInputDelta && p.id == "s1-call-0") ++deltas;
  }
  EXPECT_GT(deltas, 1u);
  const auto& finish_step = *OfType(step.parts, PartType::kFinishStep)[0];
  // <tool_call> arrived as the single token 151657; <|im_end|> was appended and counted.
  EXPECT_THAT(finish_step.tokens, ::testing::Contains(151657));
  EXPECT_EQ(finish_step.tokens.back(), 151645);
  EXPECT_EQ(finish_step.usage.generated_tokens, static_cast<int64_t>(finish_step.tokens.size()));
  EXPECT_EQ(finish_step.usage.prompt_tokens, 3);
  EXPECT_EQ(finish_step.usage.cached_prompt_tokens, 0);
  EXPECT_EQ(step.parts.back().finish_reason, "tool-calls");
  for (const auto& p : step.parts) {
    EXPECT_EQ(p.metadata, nlohmann::json({{"replay", true}, {"replayStep", 0}}))
        << formats::PartTypeName(p.type);
  }
}

TEST(ReplayQwen3, MalformedCallBecomesToolInputError) {
  auto provider = Make(Qwen(), R"({"steps": [
    "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"q\": }\n</tool_call>"]})");
  auto step = Collect(*provider, {});
  ASSERT_TRUE(step.status.ok());
  auto errors = OfType(step.parts, PartType::kToolInputError);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0]->input_text, "\n{\"name\": \"search\", \"arguments\": {\"q\": }\n");
  EXPECT_THAT(errors[0]->error_text, HasSubstr("not valid JSON"));
  EXPECT_TRUE(OfType(step.parts, PartType::kTextDelta).empty());
  EXPECT_EQ(step.parts.back().finish_reason, "stop");
}

TEST(ReplayQwen3, StepsPlayInOrderThenExhaust) {
  auto provider = Make(Qwen(), R"({"steps": ["one", {"text": "two", "finish": "stop"}]})");
  EXPECT_EQ(Joined(Collect(*provider, {}).parts, PartType::kTextDelta), "one");
  auto second = Collect(*provider, {});
  EXPECT_EQ(Joined(second.parts, PartType::kTextDelta), "two");
  EXPECT_EQ(second.parts.back().metadata["replayStep"], 1);
  auto third = Collect(*provider, {});
  ASSERT_FALSE(third.status.ok());
  EXPECT_EQ(third.status.error().code, "model.replay_exhausted");
  EXPECT_EQ(third.parts.back().type, PartType::kError);
}

TEST(ReplayQwen3, CutOffAndTokenLimitFinishWithLength) {
  auto provider = Make(Qwen(), R"({"steps": [
    {"text": "<tool_call>\n{\"name\": \"f\", \"argu", "finish": "length"},
    "a long answer that goes on and on"]})");
  auto cut = Collect(*provider, {});
  ASSERT_TRUE(cut.status.ok());
  EXPECT_EQ(cut.parts.back().finish_reason, "length");
  EXPECT_EQ(OfType(cut.parts, PartType::kToolInputError).size(), 1u);  // left open: reported
  StepRequest r;
  r.max_tokens = 3;
  auto limited = Collect(*provider, r);
  EXPECT_EQ(limited.parts.back().finish_reason, "length");
  EXPECT_EQ(OfType(limited.parts, PartType::kFinishStep)[0]->usage.generated_tokens, 3);
}

TEST(ReplayQwen3, IsDeterministic) {
  const char* script =
      R"({"steps": ["Hi <think>x</think> <tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>"]})";
  auto a = Collect(*Make(Qwen(), script), {});
  auto b = Collect(*Make(Qwen(), script), {});
  ASSERT_EQ(a.parts.size(), b.parts.size());
  for (size_t i = 0; i < a.parts.size(); ++i) {
    EXPECT_EQ(formats::ToJson(a.parts[i]), formats::ToJson(b.parts[i]));
  }
}

TEST(ReplayQwen3, CancelAborts) {
  auto provider = Make(Qwen(), R"({"steps": ["many words in this reply to cancel"]})");
  CancelToken cancel;
  std::vector<formats::StreamPart> parts;
  auto status = provider->Stream(
      {},
      [&](const formats::StreamPart& p) {
        parts.push_back(p);
        if (p.type == PartType::kTextDelta) cancel.Cancel();
      },
      cancel);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, "model.cancelled");
  EXPECT_EQ(parts.back().type, PartType::kAbort);
  EXPECT_EQ(OfType(parts, PartType::kTextEnd).size(), 1u);
}

TEST(ReplayLlama31, CallAfterPythonTagAndProse) {
  auto provider = Make(Llama(), R"({"format": "llama3.1", "steps": [
    "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Oslo\"}}<|eom_id|>",
    "It is sunny in Oslo."]})");
  auto first = Collect(*provider, {});
  ASSERT_TRUE(first.status.ok());
  auto calls = OfType(first.parts, PartType::kToolCall);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->input, nlohmann::json({{"city", "Oslo"}}));
  EXPECT_EQ(OfType(first.parts, PartType::kFinishStep)[0]->tokens.back(), 128008);
  EXPECT_EQ(first.parts.back().finish_reason, "tool-calls");
  auto second = Collect(*provider, {});
  EXPECT_EQ(Joined(second.parts, PartType::kTextDelta), "It is sunny in Oslo.");
  EXPECT_EQ(OfType(second.parts, PartType::kFinishStep)[0]->tokens.back(), 128009);
}

TEST(ReplayScriptFile, BadScriptsAreErrors) {
  for (const char* bad :
       {"not json", "[]", R"({"steps": 3})", R"({"format": "gpt", "steps": []})",
        R"({"steps": [5]})", R"({"steps": [{"text": "x", "finish": "maybe"}]})",
        R"({"steps": [{"cases": []}]})", R"({"steps": [{"cases": [{"when": "x"}]}]})",
        R"({"steps": [{"cases": [{"when": "", "text": "x"}]}]})",
        R"({"steps": [{"cases": ["x"]}]})"}) {
    auto s = ParseReplayScript(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.error().code, "model.replay_script");
  }
  auto missing = LoadReplayScript("/nonexistent/script.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().detail, "/nonexistent/script.json");
}

// A step with cases plays the first one whose "when" the rendered prompt contains, so a script can
// follow a person's decision; with no match the step fails with its own code.
TEST(ReplayQwen3, CasesFollowWhatThePromptSays) {
  auto tok = Qwen();
  const char* script = R"({"format": "qwen3", "steps": [{"cases": [
    {"when": "denied: a person denied", "text": "Nothing ran."},
    {"when": "verified:", "text": "It is in your calendar."}]}]})";
  auto prompt = [&](const std::string& text) {
    StepRequest r;
    r.prompt = *tok->Encode("<|im_start|>user\n" + text + "<|im_end|>\n<|im_start|>assistant\n",
                            {.match_special = true});
    return r;
  };
  auto denied = Make(tok, script);
  auto d = Collect(*denied, prompt("denied: a person denied approval ap-1"));
  ASSERT_TRUE(d.status.ok()) << d.status.error().ToString();
  EXPECT_EQ(Joined(d.parts, PartType::kTextDelta), "Nothing ran.");
  auto approved = Make(tok, script);
  auto a = Collect(*approved, prompt("verified: calendar.create_event ran once"));
  EXPECT_EQ(Joined(a.parts, PartType::kTextDelta), "It is in your calendar.");
  auto neither = Make(tok, script);
  auto n = Collect(*neither, prompt("pending"));
  ASSERT_FALSE(n.status.ok());
  EXPECT_EQ(n.status.error().code, "model.replay_no_case");
  EXPECT_THAT(n.status.error().detail, HasSubstr("\"verified:\""));
  // A case without "when" always matches; chat requests match on their messages.
  auto fallback =
      Make(tok, R"({"steps": [{"cases": [{"when": "zzz", "text": "a"}, {"text": "b"}]}]})");
  StepRequest chat;
  chat.messages = nlohmann::json::array({{{"role", "user"}, {"content", "hi"}}});
  EXPECT_EQ(Joined(Collect(*fallback, chat).parts, PartType::kTextDelta), "b");
}

// Issue 24: a script is a file from outside the process; a million levels would overflow the stack
// of the JSON parser. Refused from the text with a typed error; the limit itself still loads.
TEST(ReplayScriptFile, AScriptNestedTooDeepIsATypedError) {
  const std::string deep =
      R"({"steps": ["hi"], "note": )" + std::string(1000000, '[') + std::string(1000000, ']') + "}";
  auto s = ParseReplayScript(deep);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, "model.too_deep");
  EXPECT_EQ(s.error().message,
            "the replay script nests deeper than 128 levels of arrays and objects");
  const std::string at =
      R"({"steps": ["hi"], "note": )" + std::string(127, '[') + std::string(127, ']') + "}";
  auto ok = ParseReplayScript(at);
  ASSERT_TRUE(ok.ok()) << ok.error().ToString();
  EXPECT_EQ(ok->steps.size(), 1u);
}

// Examples stay true on any date: {{date+N}} and {{day+N}} are the UTC day N days from the day the
// step plays; anything else in double braces (a canvas template) is left alone.
TEST(ReplayScriptDays, DateMarkersAreFilledForTheDayItPlaysAndOtherBracesAreKept) {
  const int64_t thu = 1796256000;  // 2026-12-03T00:00:00Z, a Thursday
  EXPECT_EQ(ExpandReplayDays("{{date}}", thu + 3600), "2026-12-03");
  EXPECT_EQ(ExpandReplayDays("\"start\": \"{{date+2}}T15:00:00Z\"", thu + 86399),
            "\"start\": \"2026-12-05T15:00:00Z\"");
  EXPECT_EQ(ExpandReplayDays("{{date-3}}..{{date+29}}", thu), "2026-11-30..2027-01-01");
  EXPECT_EQ(ExpandReplayDays("on {{day+2}}, at 15:00", thu),
            "on Saturday 5 December 2026, at 15:00");
  EXPECT_EQ(ExpandReplayDays("{{day-4}}", thu), "Sunday 29 November 2026");
  for (const char* kept : {"{{summary}}", "{{date+}}", "{{date+1234}}", "{{date+1", "{{dates}}",
                           "{{ date }}", "{{day*2}}", "{{", "}}{{date"}) {
    EXPECT_EQ(ExpandReplayDays(kept, thu), kept);
  }
  EXPECT_EQ(ExpandReplayDays("{{#each events.rows}}{{summary}} {{date+1}}{{/each}}", thu),
            "{{#each events.rows}}{{summary}} 2026-12-04{{/each}}");
}

}  // namespace
}  // namespace affordance::model
