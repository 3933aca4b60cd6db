// Chat-API mode: OpenAI streamed chunks → stream parts.
#include "formats/chat_deltas.h"
#include "base/json_limits.h"
#include "parts_matchers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

namespace affordance::formats::testing {
namespace {

nlohmann::json Delta(nlohmann::json delta, nlohmann::json finish = nullptr) {
  return {{"choices", {{{"index", 0}, {"delta", std::move(delta)}, {"finish_reason", finish}}}}};
}

TEST(ChatDeltaMapper, StreamedToolCallsMapToParts) {
  ChatDeltaMapper mapper({"s2-", ChatFormat::kPlain});
  std::vector<StreamPart> out;
  ASSERT_TRUE(mapper.Push(Delta({{"role", "assistant"}, {"content", "Checking"}}), out));
  ASSERT_TRUE(mapper.Push(Delta({{"tool_calls",
                                  {{{"index", 0},
                                    {"id", "call_a"},
                                    {"type", "function"},
                                    {"function", {{"name", "get_weather"}, {"arguments", ""}}}}}}}),
                          out));
  ASSERT_TRUE(mapper.Push(
      Delta({{"tool_calls", {{{"index", 0}, {"function", {{"arguments", "{\"city\": "}}}}}}}),
      out));
  ASSERT_TRUE(mapper.Push(
      Delta({{"tool_calls", {{{"index", 0}, {"function", {{"arguments", "\"Rome\"}"}}}}}}}), out));
  ASSERT_TRUE(mapper.Push(Delta({{"tool_calls",
                                  {{{"index", 1},
                                    {"id", "call_b"},
                                    {"function", {{"name", "noop"}, {"arguments", "{"}}}}}}}),
                          out));
  ASSERT_TRUE(mapper.Push(Delta(nlohmann::json::object(), "tool_calls"), out));
  ASSERT_TRUE(mapper.Push({{"choices", nlohmann::json::array()},
                           {"usage",
                            {{"prompt_tokens", 50},
                             {"completion_tokens", 9},
                             {"prompt_tokens_details", {{"cached_tokens", 32}}}}}},
                          out));
  mapper.Finish(out);
  EXPECT_EQ(Joined(out, PartType::kTextDelta), "Checking");
  EXPECT_EQ(Joined(out, PartType::kToolInputDelta, "call_a"), "{\"city\": \"Rome\"}");
  auto calls = OfType(out, PartType::kToolCall);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->id, "call_a");
  EXPECT_EQ(calls[0]->input, nlohmann::json({{"city", "Rome"}}));
  auto errors = OfType(out, PartType::kToolInputError);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0]->id, "call_b");
  EXPECT_EQ(errors[0]->input_text, "{");
  EXPECT_EQ(mapper.finish_reason(), "tool-calls");
  EXPECT_EQ(mapper.usage().prompt_tokens, 50);
  EXPECT_EQ(mapper.usage().cached_prompt_tokens, 32);
  EXPECT_EQ(mapper.usage().generated_tokens, 9);
  EXPECT_EQ(mapper.tool_calls(), 1);
  EXPECT_EQ(mapper.tool_errors(), 1);
}

TEST(ChatDeltaMapper, QwenTagsInContentBecomeCalls) {
  ChatDeltaMapper mapper({"s3-", ChatFormat::kQwen3});
  std::vector<StreamPart> out;
  for (const char* piece :
       {"Ok ", "<tool", "_call>\n{\"name\": \"f\", ", "\"arguments\": {}}\n</tool_call>"}) {
    ASSERT_TRUE(mapper.Push(Delta({{"content", piece}}), out));
  }
  ASSERT_TRUE(mapper.Push(Delta(nlohmann::json::object(), "stop"), out));
  mapper.Finish(out);
  EXPECT_EQ(Joined(out, PartType::kTextDelta), "Ok ");
  EXPECT_EQ(OfType(out, PartType::kToolCall).size(), 1u);
  EXPECT_EQ(mapper.tool_calls(), 1);
}

// Found by formats_chat_deltas_fuzzer: a call parsed from <tool_call> tags in content and a
// streamed tool_calls entry without an id both got the id "<prefix>call-0".
TEST(ChatDeltaMapper, TagCallAndApiCallWithoutIdGetDistinctIds) {
  ChatDeltaMapper mapper({"s4-", ChatFormat::kQwen3});
  std::vector<StreamPart> out;
  ASSERT_TRUE(mapper.Push(
      Delta({{"content", "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>"}}), out));
  ASSERT_TRUE(mapper.Push(
      Delta({{"tool_calls", {{{"index", 0}, {"function", {{"name", "g"}, {"arguments", "{}"}}}}}}}),
      out));
  ASSERT_TRUE(mapper.Push(Delta(nlohmann::json::object(), "tool_calls"), out));
  mapper.Finish(out);
  auto calls = OfType(out, PartType::kToolCall);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_NE(calls[0]->id, calls[1]->id);
}

TEST(ChatDeltaMapper, ReasoningContentIsReasoning) {
  ChatDeltaMapper mapper({"s4-", ChatFormat::kPlain});
  std::vector<StreamPart> out;
  ASSERT_TRUE(mapper.Push(Delta({{"reasoning_content", "think"}}), out));
  ASSERT_TRUE(mapper.Push(Delta({{"content", "say"}}), out));
  mapper.Finish(out);
  EXPECT_EQ(Joined(out, PartType::kReasoningDelta), "think");
  EXPECT_EQ(Joined(out, PartType::kTextDelta), "say");
  EXPECT_EQ(OfType(out, PartType::kReasoningEnd).size(), 1u);
}

TEST(ChatDeltaMapper, BadChunksAreErrors) {
  ChatDeltaMapper mapper({});
  std::vector<StreamPart> out;
  auto a = mapper.Push(nlohmann::json::array(), out);
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error().code, "formats.chat_chunk");
  auto b = mapper.Push({{"error", {{"message", "overloaded"}}}}, out);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().code, "formats.chat_error");
  EXPECT_EQ(b.error().detail, "overloaded");
  auto c = mapper.Push({{"id", "x"}}, out);
  ASSERT_FALSE(c);
}

TEST(ChatDeltaMapper, AToolCallIndexThatIsNotASmallIntegerIsAnErrorNotACrash) {
  // Found by formats_chat_deltas_fuzzer: {"index": {...}} threw out of the mapper.
  for (const nlohmann::json& index :
       {nlohmann::json::object(), nlohmann::json("0"), nlohmann::json(1.5), nlohmann::json(-1),
        nlohmann::json(4096), nlohmann::json(1e300), nlohmann::json(nullptr)}) {
    ChatDeltaMapper mapper({});
    std::vector<StreamPart> out;
    nlohmann::json chunk = {
        {"choices",
         {{{"index", 0},
           {"delta", {{"tool_calls", {{{"index", index}, {"function", {{"name", "f"}}}}}}}}}}}};
    auto r = mapper.Push(chunk, out);
    ASSERT_FALSE(r) << index.dump();
    EXPECT_EQ(r.error().code, "formats.chat_chunk");
    EXPECT_EQ(r.error().detail, index.dump());
    // The mapper is still usable: a good call after it maps as usual.
    chunk["choices"][0]["delta"]["tool_calls"][0]["index"] = 0;
    EXPECT_TRUE(mapper.Push(chunk, out).ok());
  }
}

TEST(ChatDeltaMapper, UsageCountsOfTheWrongTypeAreIgnored) {
  ChatDeltaMapper mapper({});
  std::vector<StreamPart> out;
  EXPECT_TRUE(mapper
                  .Push({{"choices", nlohmann::json::array()},
                         {"usage",
                          {{"prompt_tokens", "12"},
                           {"completion_tokens", 7},
                           {"prompt_tokens_details", {{"cached_tokens", {1}}}}}}},
                        out)
                  .ok());
}

TEST(ChatDeltaMapper, ArgumentsBeforeNameAreNotLost) {
  ChatDeltaMapper mapper({"s5-"});
  std::vector<StreamPart> out;
  ASSERT_TRUE(mapper.Push(
      Delta({{"tool_calls", {{{"index", 0}, {"function", {{"arguments", "{\"a\""}}}}}}}), out));
  ASSERT_TRUE(mapper.Push(
      Delta(
          {{"tool_calls", {{{"index", 0}, {"function", {{"name", "f"}, {"arguments", ": 1}"}}}}}}}),
      out));
  mapper.Finish(out);
  EXPECT_EQ(Joined(out, PartType::kToolInputDelta), "{\"a\": 1}");
  auto calls = OfType(out, PartType::kToolCall);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->id, "s5-api-call-0");
}

// The ids of every part that opens something (text, reasoning, a tool input): the UI stream merges
// parts that share one, so each must be unique in the step.
std::vector<std::string> OpenedIds(const std::vector<StreamPart>& parts) {
  std::vector<std::string> ids;
  for (const auto& p : parts) {
    if (p.type == PartType::kTextStart || p.type == PartType::kReasoningStart ||
        p.type == PartType::kToolInputStart) {
      ids.push_back(p.id);
    }
  }
  return ids;
}

bool AllDistinct(const std::vector<std::string>& ids) {
  return std::set<std::string>(ids.begin(), ids.end()).size() == ids.size();
}

// clang-format off
const char* const kReusedIdChunks[] = {
    R"({"choices":[{"index":0,"delta":{"content":"ok <tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>"}}]})",
    R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"g","arguments":"{\"q\":"}}]}}]})",
    R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":5,"id":"c","function":{"name":"g","arguments":"{\"q\":"}}]}}]})",
};
// clang-format on

// Found by formats_chat_deltas_fuzzer (issue 24): a server that sends one id at two indexes made
// two tool-input-start parts with one id. The chunks are the fuzzer's crashing input.
TEST(ChatDeltaMapper, AServerIdReusedAtAnotherIndexIsASecondCallWithAGeneratedId) {
  for (ChatFormat format : {ChatFormat::kQwen3, ChatFormat::kPlain}) {
    ChatDeltaMapper mapper({"f-", format});
    std::vector<StreamPart> out;
    for (const char* line : kReusedIdChunks)
      ASSERT_TRUE(mapper.Push(nlohmann::json::parse(line), out));
    mapper.Finish(out);
    EXPECT_TRUE(AllDistinct(OpenedIds(out))) << ::testing::PrintToString(Describe(out));
    auto starts = OfType(out, PartType::kToolInputStart);
    auto errors = OfType(out, PartType::kToolInputError);  // both calls end at "{\"q\":"
    ASSERT_EQ(errors.size(), 2u);
    EXPECT_EQ(errors[0]->id, "c");  // the first call to name it keeps the server's id
    EXPECT_TRUE(errors[0]->metadata.is_null());
    EXPECT_EQ(errors[1]->id, "f-api-call-0");
    EXPECT_EQ(errors[1]->metadata, nlohmann::json({{"serverToolCallId", "c"}}));
    EXPECT_EQ(errors[1]->input_text, "{\"q\":");  // nothing of the second call is lost
    EXPECT_EQ(Joined(out, PartType::kToolInputDelta, "f-api-call-0"), "{\"q\":");
    EXPECT_EQ(mapper.tool_errors(), 2);
  }
}

// Ids that begin with the step's prefix are the mapper's own (text, reasoning, calls parsed from
// tags, generated ids), so a server id there is never kept, whichever part would come first.
TEST(ChatDeltaMapper, AServerIdInTheMappersOwnNamespaceIsReplaced) {
  ChatDeltaMapper mapper({"s4-", ChatFormat::kQwen3});
  std::vector<StreamPart> out;
  ASSERT_TRUE(mapper.Push(Delta({{"tool_calls",
                                  {{{"index", 0},
                                    {"id", "s4-call-0"},
                                    {"function", {{"name", "g"}, {"arguments", "{}"}}}}}}}),
                          out));
  ASSERT_TRUE(mapper.Push(Delta({{"tool_calls",
                                  {{{"index", 1},
                                    {"id", "s4-text-0"},
                                    {"function", {{"name", "h"}, {"arguments", "{}"}}}}}}}),
                          out));
  ASSERT_TRUE(mapper.Push(
      Delta({{"content", "hi <tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>"}}), out));
  mapper.Finish(out);
  EXPECT_TRUE(AllDistinct(OpenedIds(out))) << ::testing::PrintToString(Describe(out));
  auto calls = OfType(out, PartType::kToolCall);
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0]->id, "s4-call-0");  // the tag-parsed call keeps its id
  EXPECT_EQ(calls[1]->id, "s4-api-call-0");
  EXPECT_EQ(calls[1]->metadata["serverToolCallId"], "s4-call-0");
  EXPECT_EQ(calls[2]->id, "s4-api-call-1");
  EXPECT_EQ(mapper.tool_calls(), 3);
}

TEST(ChatDeltaMapper, DistinctServerIdsAreKeptAsSent) {
  ChatDeltaMapper mapper({"s4-", ChatFormat::kPlain});
  std::vector<StreamPart> out;
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(mapper.Push(Delta({{"tool_calls",
                                    {{{"index", i},
                                      {"id", "call_" + std::to_string(i)},
                                      {"function", {{"name", "g"}, {"arguments", "{}"}}}}}}}),
                            out));
  }
  mapper.Finish(out);
  auto calls = OfType(out, PartType::kToolCall);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]->id, "call_0");
  EXPECT_EQ(calls[1]->id, "call_1");
  EXPECT_TRUE(calls[1]->metadata.is_null());
}

std::string Nested(size_t levels, char open = '[', char close = ']') {
  return std::string(levels, open) + std::string(levels, close);
}

nlohmann::json ArgumentsDelta(int index, const std::string& name, const std::string& arguments) {
  return Delta({{"tool_calls",
                 {{{"index", index},
                   {"id", "call_" + std::to_string(index)},
                   {"function", {{"name", name}, {"arguments", arguments}}}}}}});
}

// Issue 24: arguments a million levels deep would overflow the stack of nlohmann's parser and of
// every walker after it. They are refused from the text, and the other calls of the step survive.
TEST(ChatDeltaMapper, ArgumentsNestedTooDeepAreAToolInputErrorAndTheStepGoesOn) {
  const std::string arrays = "{\"a\": " + Nested(1000000) + "}";
  const std::string objects = [] {
    std::string s;
    for (int i = 0; i < 1000000; ++i) s += "{\"k\":";
    return s + "1" + std::string(1000000, '}');
  }();
  const std::string mixed = [] {
    std::string s;
    for (int i = 0; i < 500000; ++i) s += "{\"k\":[";
    return s;  // cut off, as a stream that ends mid-call would be
  }();
  for (const std::string& deep : {arrays, objects, mixed}) {
    ChatDeltaMapper mapper({"s6-", ChatFormat::kPlain});
    std::vector<StreamPart> out;
    ASSERT_TRUE(mapper.Push(ArgumentsDelta(0, "deep", deep), out));
    ASSERT_TRUE(mapper.Push(ArgumentsDelta(1, "fine", "{\"x\": [1]}"), out));
    mapper.Finish(out);
    auto errors = OfType(out, PartType::kToolInputError);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0]->id, "call_0");
    EXPECT_EQ(errors[0]->error_code, "formats.too_deep");
    EXPECT_EQ(errors[0]->error_text,
              "the tool call's arguments nest deeper than 128 levels of arrays and objects");
    EXPECT_EQ(errors[0]->input_text.size(), deep.size());  // the raw text is kept, not a value
    auto calls = OfType(out, PartType::kToolCall);
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0]->input, nlohmann::json({{"x", {1}}}));
    EXPECT_EQ(mapper.tool_errors(), 1);
    EXPECT_EQ(mapper.tool_calls(), 1);
  }
}

TEST(ChatDeltaMapper, ArgumentsExactlyAtTheDepthLimitAreACall) {
  const std::string at = "{\"a\": " + Nested(kMaxJsonDepth - 1) + "}";
  ChatDeltaMapper mapper({"s7-", ChatFormat::kPlain});
  std::vector<StreamPart> out;
  ASSERT_TRUE(mapper.Push(ArgumentsDelta(0, "f", at), out));
  mapper.Finish(out);
  auto calls = OfType(out, PartType::kToolCall);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(JsonValueDepth(calls[0]->input), kMaxJsonDepth);
  EXPECT_EQ(calls[0]->input_text, at);
}

}  // namespace
}  // namespace affordance::formats::testing
