// Llama 3.1 output parsing: one JSON call at the start of the turn or after <|python_tag|>.
#include "parts_matchers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace affordance::formats::testing {
namespace {

constexpr text::TokenId kEom = 128008, kEot = 128009, kPythonTag = 128010;

TEST(Llama31Parser, CallAtTurnStartStreamsParameters) {
  auto parser = MakeOutputParser(ChatFormat::kLlama31, {"s1-"});
  std::vector<StreamPart> out;
  parser->Push({1, "{\"name\": \"get_weather\", ", false}, out);
  EXPECT_TRUE(OfType(out, PartType::kToolInputStart).empty());
  parser->Push({2, "\"parameters\": {\"city\"", false}, out);
  ASSERT_EQ(OfType(out, PartType::kToolInputStart).size(), 1u);
  EXPECT_EQ(Joined(out, PartType::kToolInputDelta), "{\"city\"");
  parser->Push({3, ": \"Oslo\"}}", false}, out);
  parser->Push({kEot, "<|eot_id|>", true}, out);
  EXPECT_TRUE(parser->ended());
  parser->Finish(out);
  auto calls = OfType(out, PartType::kToolCall);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->tool_name, "get_weather");
  EXPECT_EQ(calls[0]->id, "s1-call-0");
  EXPECT_EQ(calls[0]->input, nlohmann::json({{"city", "Oslo"}}));
  EXPECT_EQ(Joined(out, PartType::kToolInputDelta), "{\"city\": \"Oslo\"}");
  EXPECT_TRUE(OfType(out, PartType::kTextDelta).empty());
}

TEST(Llama31Parser, CallAfterPythonTagEndedByEom) {
  auto parts = RunParser(ChatFormat::kLlama31, {{kPythonTag, "<|python_tag|>", true},
                                                {1, "{\"name\": \"f\", \"parameters\": {}}"},
                                                {kEom, "<|eom_id|>", true}});
  ASSERT_EQ(OfType(parts, PartType::kToolCall).size(), 1u);
}

TEST(Llama31Parser, TextThenPythonTagCall) {
  auto parts =
      RunParser(ChatFormat::kLlama31, {{1, "Let me check."},
                                       {kPythonTag, "<|python_tag|>", true},
                                       {2, "{\"name\": \"f\", \"parameters\": {\"x\": 1}}"},
                                       {kEom, "<|eom_id|>", true}});
  EXPECT_EQ(Joined(parts, PartType::kTextDelta), "Let me check.");
  ASSERT_EQ(OfType(parts, PartType::kToolCall).size(), 1u);
}

TEST(Llama31Parser, ProseIsText) {
  auto parts =
      RunParser(ChatFormat::kLlama31, {{1, "The answer is {42}."}, {kEot, "<|eot_id|>", true}});
  EXPECT_EQ(Joined(parts, PartType::kTextDelta), "The answer is {42}.");
  EXPECT_TRUE(OfType(parts, PartType::kToolInputStart).empty());
}

TEST(Llama31Parser, LeadingWhitespaceThenCall) {
  auto parts = RunParser(ChatFormat::kLlama31,
                         Texts({"\n ", " {\"name\": \"f\", \"parameters\": {}}", "<|eot_id|>"}));
  EXPECT_EQ(OfType(parts, PartType::kToolCall).size(), 1u);
  EXPECT_TRUE(OfType(parts, PartType::kTextStart).empty());
}

TEST(Llama31Parser, MalformedCallIsErrorWithRawText) {
  auto parts = RunParser(
      ChatFormat::kLlama31,
      {{1, "{\"name\": \"f\", \"parameters\": {\"x\": 1}} trailing"}, {kEot, "<|eot_id|>", true}});
  auto errors = OfType(parts, PartType::kToolInputError);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0]->input_text, "{\"name\": \"f\", \"parameters\": {\"x\": 1}} trailing");
  EXPECT_TRUE(OfType(parts, PartType::kTextDelta).empty());
}

TEST(Llama31Parser, WrongKeyIsAnError) {
  auto parts = RunParser(ChatFormat::kLlama31,
                         Texts({"{\"name\": \"f\", \"arguments\": {}}", "<|eot_id|>"}));
  auto errors = OfType(parts, PartType::kToolInputError);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0]->error_text, ::testing::HasSubstr("\"arguments\""));
}

TEST(Llama31Parser, CutOffCallIsAnError) {
  auto parts = RunParser(ChatFormat::kLlama31, Texts({"{\"name\": \"f\", \"parameters\": {\"x\""}));
  auto errors = OfType(parts, PartType::kToolInputError);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0]->error_text, ::testing::HasSubstr("stopped before"));
}

TEST(Llama31Parser, NonJsonAfterPythonTagIsAnError) {
  auto parts = RunParser(ChatFormat::kLlama31, {{kPythonTag, "<|python_tag|>", true},
                                                {1, "brave_search.call(query=\"x\")"},
                                                {kEom, "<|eom_id|>", true}});
  EXPECT_EQ(OfType(parts, PartType::kToolInputError).size(), 1u);
}

// Found by formats_llama31_parser_fuzzer: a number too large for a double made nlohmann::json
// throw out_of_range (not parse_error) and terminate the process.
TEST(Llama31Parser, OverflowingNumberIsAToolInputErrorNotACrash) {
  for (const char* call :
       {"{\"name\": \"f\", \"parameters\": {\"x\": 1e400}}",
        "{\"name\": \"f\", \"parameters\": {\"x\": 666666666666666002e321334}}"}) {
    auto parts =
        RunParser(ChatFormat::kLlama31,
                  {{kPythonTag, "<|python_tag|>", true}, {1, call}, {kEom, "<|eom_id|>", true}});
    EXPECT_TRUE(OfType(parts, PartType::kToolCall).empty()) << call;
    auto errors = OfType(parts, PartType::kToolInputError);
    ASSERT_EQ(errors.size(), 1u) << call;
  }
}

std::string Nested(size_t levels) { return std::string(levels, '[') + std::string(levels, ']'); }

// Issue 24: parameters a million levels deep are a typed tool-input-error, never a crash.
TEST(Llama31Parser, ParametersNestedTooDeepAreAToolInputError) {
  const std::string deep = "{\"a\": " + Nested(1000000) + "}";
  auto parts =
      RunParser(ChatFormat::kLlama31, {{kPythonTag, "<|python_tag|>", true},
                                       {1, "{\"name\": \"f\", \"parameters\": " + deep + "}"},
                                       {kEom, "<|eom_id|>", true}});
  EXPECT_TRUE(OfType(parts, PartType::kToolCall).empty());
  auto errors = OfType(parts, PartType::kToolInputError);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0]->error_code, "formats.too_deep");
  EXPECT_EQ(errors[0]->error_text,
            "the tool call's arguments nest deeper than 128 levels of arrays and objects");
}

TEST(Llama31Parser, ParametersExactlyAtTheDepthLimitAreACall) {
  const std::string at = "{\"a\": " + Nested(127) + "}";
  auto parts =
      RunParser(ChatFormat::kLlama31, {{kPythonTag, "<|python_tag|>", true},
                                       {1, "{\"name\": \"f\", \"parameters\": " + at + "}"},
                                       {kEom, "<|eom_id|>", true}});
  auto calls = OfType(parts, PartType::kToolCall);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->input_text, at);
}

}  // namespace
}  // namespace affordance::formats::testing
