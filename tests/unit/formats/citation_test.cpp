// Citations in prose ("[r3]", "[r1, r3]"), recognised by every format's parser as the text streams
// (formats/internal/part_emitter.h): the spelling stays in the text, a citation part follows it,
// and anything that is not exactly the syntax is text.
#include "parts_matchers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace affordance::formats::testing {
namespace {

using ::testing::ElementsAre;

std::vector<const StreamPart*> Citations(const std::vector<StreamPart>& parts) {
  return OfType(parts, PartType::kCitation);
}

class EveryFormat : public ::testing::TestWithParam<ChatFormat> {};

TEST_P(EveryFormat, ACitationSplitOverPiecesIsOnePartAfterItsTextInTheOpenTextPart) {
  auto parts = RunParser(GetParam(), Texts({"You have 3 events [", "r", "1", "2]. The review ",
                                            "is at 14:00 [r1, r", "3]."}));
  EXPECT_EQ(Joined(parts, PartType::kTextDelta),
            "You have 3 events [r12]. The review is at 14:00 [r1, r3].");
  auto cites = Citations(parts);
  ASSERT_EQ(cites.size(), 2u);
  EXPECT_EQ(cites[0]->id, "s0-text-0");
  EXPECT_EQ(cites[0]->delta, "[r12]");
  EXPECT_THAT(cites[0]->refs, ElementsAre("r12"));
  EXPECT_EQ(cites[0]->offset, 18);
  EXPECT_EQ(cites[1]->delta, "[r1, r3]");
  EXPECT_THAT(cites[1]->refs, ElementsAre("r1", "r3"));
  EXPECT_EQ(cites[1]->offset, 48);
  // Each citation follows the delta that completed it, before the part ends.
  const std::vector<std::string> d = Describe(parts);
  auto at = [&](const std::string& line) {
    return std::find(d.begin(), d.end(), line) - d.begin();
  };
  EXPECT_LT(at("text-delta s0-text-0 [r12]"), at("citation s0-text-0"));
  EXPECT_EQ(d.back(), "text-end s0-text-0");
}

TEST_P(EveryFormat, WhatIsNotExactlyTheSyntaxIsTextAndNothingIsLost) {
  for (const std::string text : {"[r]", "[x1]", "[R1]", "[r1 ]", "[r1,]", "[r1234567]", "[[r1",
                                 "a [r1", "[r-1]", "[r1;r2]", "see [1]", "[r1, r2"}) {
    SCOPED_TRACE(text);
    auto parts = RunParser(GetParam(), Texts({"ok " + text}));
    EXPECT_EQ(Joined(parts, PartType::kTextDelta), "ok " + text);
    EXPECT_TRUE(Citations(parts).empty());
  }
  // Nested or adjacent brackets: the last complete spelling counts.
  auto parts = RunParser(GetParam(), Texts({"x [[r2][r3]"}));
  EXPECT_EQ(Joined(parts, PartType::kTextDelta), "x [[r2][r3]");
  auto cites = Citations(parts);
  ASSERT_EQ(cites.size(), 2u);
  EXPECT_EQ(cites[0]->offset, 3);
  EXPECT_EQ(cites[1]->offset, 7);
}

TEST_P(EveryFormat, AHeldBackBeginningIsReleasedAsTextAtTheEnd) {
  auto parts = RunParser(GetParam(), Texts({"Done [r1, r"}));
  EXPECT_EQ(Joined(parts, PartType::kTextDelta), "Done [r1, r");
  EXPECT_TRUE(Citations(parts).empty());
  // A very long would-be citation is not held forever.
  std::string many = "[r1";
  for (int i = 0; i < 40; ++i) many += ", r1";
  parts = RunParser(GetParam(), Texts({many + "]"}));
  EXPECT_EQ(Joined(parts, PartType::kTextDelta), many + "]");
  EXPECT_TRUE(Citations(parts).empty());
}

INSTANTIATE_TEST_SUITE_P(Formats, EveryFormat,
                         ::testing::Values(ChatFormat::kQwen3, ChatFormat::kLlama31,
                                           ChatFormat::kPlain),
                         [](const auto& info) {
                           return std::string(info.param == ChatFormat::kQwen3     ? "Qwen3"
                                              : info.param == ChatFormat::kLlama31 ? "Llama31"
                                                                                   : "Plain");
                         });

TEST(Qwen3Citations, NotInReasoningNorInACallAndTextHeldBeforeACallIsFlushedFirst) {
  auto parts =
      RunParser(ChatFormat::kQwen3,
                Texts({"<think>I saw [r1]</think>Busy [r", "<tool_call>\n",
                       "{\"name\": \"f\", \"arguments\": {\"q\": \"[r2]\"}}\n</tool_call>"}));
  EXPECT_TRUE(Citations(parts).empty());
  EXPECT_EQ(Joined(parts, PartType::kReasoningDelta), "I saw [r1]");
  EXPECT_EQ(Joined(parts, PartType::kTextDelta), "Busy [r");
  ASSERT_EQ(OfType(parts, PartType::kToolCall).size(), 1u);
  EXPECT_EQ(OfType(parts, PartType::kToolCall)[0]->input["q"], "[r2]");
}

TEST(Llama31Citations, ATurnThatOpensWithACitationIsProseNotACall) {
  auto parts =
      RunParser(ChatFormat::kLlama31, {{-1, "[r1] lists 3 events."}, {128009, "<|eot_id|>", true}});
  EXPECT_EQ(Joined(parts, PartType::kTextDelta), "[r1] lists 3 events.");
  ASSERT_EQ(Citations(parts).size(), 1u);
  EXPECT_EQ(Citations(parts)[0]->offset, 0);
  EXPECT_TRUE(OfType(parts, PartType::kToolInputError).empty());
}

TEST(CitationPart, IsWrittenWithItsSpellingReferencesAndOffset) {
  StreamPart p = StreamPart::Of(PartType::kCitation, "s0-text-0");
  p.delta = "[r1, r3]";
  p.refs = {"r1", "r3"};
  p.offset = 5;
  EXPECT_EQ(ToJson(p), nlohmann::json({{"type", "citation"},
                                       {"id", "s0-text-0"},
                                       {"citedText", "[r1, r3]"},
                                       {"refs", {"r1", "r3"}},
                                       {"offset", 5}}));
}

}  // namespace
}  // namespace affordance::formats::testing
