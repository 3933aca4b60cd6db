// Qwen3 output parsing over token pieces: tags as single tokens (151657/151658) and as text pieces.
#include "parts_matchers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace affordance::formats::testing {
namespace {

using ::testing::ElementsAre;

constexpr text::TokenId kCallOpen = 151657, kCallClose = 151658, kImEnd = 151645;

TEST(Qwen3Parser, TextThenTwoCallsAsSingleTokens) {
  auto parts = RunParser(ChatFormat::kQwen3, {{9707, "Hello"},
                                              {11, ","},
                                              {198, "\n"},
                                              {kCallOpen, "<tool_call>"},
                                              {198, "\n"},
                                              {5212, "{\"name\": \"get"},
                                              {1, "_weather\", \"arguments\": {\"city\":"},
                                              {2, " \"Paris\"}}"},
                                              {198, "\n"},
                                              {kCallClose, "</tool_call>"},
                                              {198, "\n"},
                                              {kCallOpen, "<tool_call>"},
                                              {3, "\n{\"name\": \"noop\", \"arguments\": {}}\n"},
                                              {kCallClose, "</tool_call>"},
                                              {kImEnd, "<|im_end|>", true}});
  EXPECT_THAT(
      Describe(parts),
      ElementsAre(
          "text-start s0-text-0", "text-delta s0-text-0 Hello", "text-delta s0-text-0 ,",
          "text-delta s0-text-0 \n", "text-end s0-text-0", "tool-input-start s0-call-0 get_weather",
          "tool-input-delta s0-call-0 {\"city\":", "tool-input-delta s0-call-0  \"Paris\"}",
          "tool-input-end s0-call-0", "tool-call s0-call-0 get_weather {\"city\":\"Paris\"}",
          "tool-input-start s0-call-1 noop", "tool-input-delta s0-call-1 {}",
          "tool-input-end s0-call-1", "tool-call s0-call-1 noop {}"));
  auto calls = OfType(parts, PartType::kToolCall);
  EXPECT_EQ(calls[0]->input_text, "{\"city\": \"Paris\"}");  // exactly as the model wrote it
}

TEST(Qwen3Parser, TagArrivingAsTextPiecesIsNeverShownAsText) {
  // A text-only API: "<tool_call>" split over pieces; the partial "<tool" must be held back.
  auto parser = MakeOutputParser(ChatFormat::kQwen3, {"s0-"});
  std::vector<StreamPart> out;
  parser->Push({-1, "Sure.\n<tool", false}, out);
  EXPECT_EQ(Joined(out, PartType::kTextDelta), "Sure.\n");
  parser->Push({-1, "_ca", false}, out);
  parser->Push({-1, "ll>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_", false}, out);
  EXPECT_EQ(Joined(out, PartType::kTextDelta), "Sure.\n");
  parser->Push({-1, "call>", false}, out);
  parser->Finish(out);
  auto calls = OfType(out, PartType::kToolCall);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->tool_name, "f");
  EXPECT_EQ(calls[0]->input, nlohmann::json({{"a", 1}}));
  EXPECT_EQ(parser->tool_calls(), 1);
  EXPECT_EQ(Joined(out, PartType::kTextDelta), "Sure.\n");
}

TEST(Qwen3Parser, LessThanThatIsNotATagIsTextOnceDecided) {
  auto parts = RunParser(ChatFormat::kQwen3, Texts({"a <", "b and <tool", "s> x"}));
  EXPECT_EQ(Joined(parts, PartType::kTextDelta), "a <b and <tools> x");
  EXPECT_TRUE(OfType(parts, PartType::kToolInputError).empty());
}

TEST(Qwen3Parser, HalfTagAtTheEndIsReleasedAsText) {
  auto parts = RunParser(ChatFormat::kQwen3, Texts({"x <tool_ca"}));
  EXPECT_EQ(Joined(parts, PartType::kTextDelta), "x <tool_ca");
}

TEST(Qwen3Parser, BadJsonBecomesToolInputErrorWithRawText) {
  auto parts = RunParser(ChatFormat::kQwen3, {{kCallOpen, "<tool_call>"},
                                              {1, "\n{\"name\": \"f\", \"arguments\": {\"a\": }\n"},
                                              {kCallClose, "</tool_call>"}});
  auto errors = OfType(parts, PartType::kToolInputError);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0]->input_text, "\n{\"name\": \"f\", \"arguments\": {\"a\": }\n");
  EXPECT_EQ(errors[0]->tool_name, "f");
  EXPECT_THAT(errors[0]->error_text, ::testing::HasSubstr("not valid JSON"));
  EXPECT_TRUE(OfType(parts, PartType::kToolCall).empty());
  EXPECT_TRUE(OfType(parts, PartType::kTextDelta).empty());  // never silently prose
}

TEST(Qwen3Parser, CallLeftOpenAtEndOfTurnIsAnError) {
  auto parts = RunParser(ChatFormat::kQwen3, {{kCallOpen, "<tool_call>"},
                                              {1, "\n{\"name\": \"f\", \"argu"},
                                              {kImEnd, "<|im_end|>", true}});
  auto errors = OfType(parts, PartType::kToolInputError);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0]->error_text, ::testing::HasSubstr("no </tool_call>"));
  EXPECT_EQ(errors[0]->input_text, "\n{\"name\": \"f\", \"argu");
}

TEST(Qwen3Parser, UnknownShapesAreErrors) {
  for (const char* body :
       {"[1, 2]", "{\"name\": 3, \"arguments\": {}}", "{\"name\": \"f\", \"arguments\": [1]}",
        "{\"name\": \"f\", \"arguments\": {}, \"extra\": 1}", "{\"arguments\": {}}",
        "{\"name\": \"f\", \"arguments\": \"not json\"}"}) {
    auto parts = RunParser(ChatFormat::kQwen3, Texts({"<tool_call>\n", body, "\n</tool_call>"}));
    EXPECT_EQ(OfType(parts, PartType::kToolInputError).size(), 1u) << body;
    EXPECT_TRUE(OfType(parts, PartType::kToolCall).empty()) << body;
  }
}

TEST(Qwen3Parser, ArgumentsFirstOrAsStringStillParse) {
  auto parts = RunParser(
      ChatFormat::kQwen3,
      Texts({"<tool_call>{\"arguments\": {\"q\": \"x\"}, \"name\": \"s\"}</tool_call>",
             "<tool_call>{\"name\": \"t\", \"arguments\": \"{\\\"k\\\": 2}\"}</tool_call>"}));
  auto calls = OfType(parts, PartType::kToolCall);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]->tool_name, "s");
  EXPECT_EQ(calls[0]->input, nlohmann::json({{"q", "x"}}));
  EXPECT_EQ(calls[1]->input, nlohmann::json({{"k", 2}}));
  // Buffered calls still open with tool-input-start and one delta before the end.
  EXPECT_EQ(OfType(parts, PartType::kToolInputStart).size(), 2u);
}

TEST(Qwen3Parser, StrayCloseTagIsReported) {
  auto parts = RunParser(ChatFormat::kQwen3, Texts({"hi </tool_call>"}));
  EXPECT_EQ(OfType(parts, PartType::kToolInputError).size(), 1u);
}

TEST(Qwen3Parser, ThinkBlockIsReasoning) {
  auto parts = RunParser(ChatFormat::kQwen3, {{151667, "<think>"},
                                              {1, "\nplan it\n"},
                                              {151668, "</think>"},
                                              {2, "\n\nAnswer"},
                                              {kImEnd, "<|im_end|>", true}});
  EXPECT_EQ(Joined(parts, PartType::kReasoningDelta), "\nplan it\n");
  EXPECT_EQ(Joined(parts, PartType::kTextDelta), "\n\nAnswer");
}

TEST(Qwen3Parser, TokensAfterEndOfTurnAreNotPartOfIt) {
  auto parser = MakeOutputParser(ChatFormat::kQwen3, {});
  std::vector<StreamPart> out;
  parser->Push({1, "done", false}, out);
  parser->Push({kImEnd, "<|im_end|>", true}, out);
  EXPECT_TRUE(parser->ended());
  size_t n = out.size();
  parser->Push({2, "more", false}, out);
  parser->Finish(out);
  EXPECT_EQ(out.size(), n);
  EXPECT_EQ(Joined(out, PartType::kTextDelta), "done");
}

TEST(Qwen3Parser, EveryStartedPartIsClosed) {
  auto parts = RunParser(
      ChatFormat::kQwen3,
      Texts({"a<think>b</think>c<tool_call>{\"name\":\"x\",\"arguments\":{}}</tool_call>d"}));
  int text = 0, reasoning = 0;
  for (const auto& p : parts) {
    if (p.type == PartType::kTextStart) ++text;
    if (p.type == PartType::kTextEnd) --text;
    if (p.type == PartType::kReasoningStart) ++reasoning;
    if (p.type == PartType::kReasoningEnd) --reasoning;
    EXPECT_GE(text, 0);
    EXPECT_LE(text + reasoning, 1);
  }
  EXPECT_EQ(text, 0);
  EXPECT_EQ(reasoning, 0);
  EXPECT_EQ(OfType(parts, PartType::kToolCall).size(), 1u);
}

std::string Nested(size_t levels) { return std::string(levels, '[') + std::string(levels, ']'); }

// Issue 24: a call whose arguments nest a million levels deep (as an object, or as a JSON string,
// which templates pass through) is a typed tool-input-error, and the turn goes on: the call after
// it is parsed as usual.
TEST(Qwen3Parser, ArgumentsNestedTooDeepAreAToolInputErrorAndTheTurnGoesOn) {
  const std::string deep = Nested(1000000);
  for (const std::string& body :
       {"{\"name\": \"f\", \"arguments\": {\"a\": " + deep + "}}",
        "{\"name\": \"f\", \"arguments\": \"{\\\"a\\\": " + deep + "}\"}"}) {
    auto parts =
        RunParser(ChatFormat::kQwen3, {{kCallOpen, "<tool_call>"},
                                       {1, "\n" + body + "\n"},
                                       {kCallClose, "</tool_call>"},
                                       {kCallOpen, "<tool_call>"},
                                       {2, "\n{\"name\": \"g\", \"arguments\": {\"x\": 1}}\n"},
                                       {kCallClose, "</tool_call>"},
                                       {kImEnd, "<|im_end|>", true}});
    auto errors = OfType(parts, PartType::kToolInputError);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0]->error_code, "formats.too_deep");
    EXPECT_EQ(errors[0]->error_text,
              "the tool call's arguments nest deeper than 128 levels of arrays and objects");
    EXPECT_NE(errors[0]->input_text.find(deep), std::string::npos);  // the raw text is kept
    auto calls = OfType(parts, PartType::kToolCall);
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0]->input, nlohmann::json({{"x", 1}}));
  }
}

TEST(Qwen3Parser, ArgumentsExactlyAtTheDepthLimitAreACall) {
  const std::string at = "{\"a\": " + Nested(127) + "}";  // 128 levels, the limit
  for (const std::string& body :
       {"{\"name\": \"f\", \"arguments\": " + at + "}",
        "{\"name\": \"f\", \"arguments\": \"{\\\"a\\\": " + Nested(127) + "}\"}"}) {
    auto parts = RunParser(
        ChatFormat::kQwen3,
        {{kCallOpen, "<tool_call>"}, {1, "\n" + body + "\n"}, {kCallClose, "</tool_call>"}});
    auto calls = OfType(parts, PartType::kToolCall);
    ASSERT_EQ(calls.size(), 1u) << ::testing::PrintToString(Describe(parts)).substr(0, 400);
    EXPECT_EQ(calls[0]->input_text, at);
  }
}

}  // namespace
}  // namespace affordance::formats::testing
