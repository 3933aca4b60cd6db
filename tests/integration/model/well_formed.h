// Structural check of one step's parts (the ordering contract of formats/stream_part.h), for
// steps whose content is random (random-weight models): everything but meaning.
#pragma once

#include "formats/stream_part.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace affordance::model::testing {

inline void ExpectWellFormedStep(const std::vector<formats::StreamPart>& parts) {
  using formats::PartType;
  ASSERT_GE(parts.size(), 2u);
  EXPECT_EQ(parts.front().type, PartType::kStartStep);
  EXPECT_TRUE(formats::IsTerminal(parts.back().type));
  std::set<std::string> open_text, open_reasoning, open_tools, seen_ids;
  for (size_t i = 1; i < parts.size(); ++i) {
    const auto& p = parts[i];
    std::string at = "part " + std::to_string(i) + " " + std::string(formats::PartTypeName(p.type));
    switch (p.type) {
      case PartType::kStartStep:
      case PartType::kStart:
        ADD_FAILURE() << at << ": only one start-step, first";
        break;
      case PartType::kTextStart:
        EXPECT_TRUE(seen_ids.insert(p.id).second) << at << ": id reused";
        open_text.insert(p.id);
        break;
      case PartType::kTextDelta:
        EXPECT_TRUE(open_text.count(p.id)) << at;
        EXPECT_FALSE(p.delta.empty()) << at;
        break;
      case PartType::kTextEnd:
        EXPECT_EQ(open_text.erase(p.id), 1u) << at;
        break;
      case PartType::kCitation:
        EXPECT_TRUE(open_text.count(p.id)) << at << ": a citation sits in an open text part";
        EXPECT_FALSE(p.refs.empty()) << at;
        break;
      case PartType::kReasoningStart:
        EXPECT_TRUE(seen_ids.insert(p.id).second) << at;
        open_reasoning.insert(p.id);
        break;
      case PartType::kReasoningDelta:
        EXPECT_TRUE(open_reasoning.count(p.id)) << at;
        break;
      case PartType::kReasoningEnd:
        EXPECT_EQ(open_reasoning.erase(p.id), 1u) << at;
        break;
      case PartType::kToolInputStart:
        EXPECT_TRUE(seen_ids.insert(p.id).second) << at;
        EXPECT_FALSE(p.tool_name.empty()) << at;
        open_tools.insert(p.id);
        break;
      case PartType::kToolInputDelta:
        EXPECT_TRUE(open_tools.count(p.id)) << at;
        break;
      case PartType::kToolInputEnd:
        EXPECT_TRUE(open_tools.count(p.id)) << at;
        ASSERT_LT(i + 1, parts.size());
        EXPECT_EQ(parts[i + 1].type, PartType::kToolCall) << at;
        break;
      case PartType::kToolCall:
        EXPECT_EQ(open_tools.erase(p.id), 1u) << at;
        EXPECT_TRUE(p.input.is_object()) << at;
        break;
      case PartType::kToolInputError:
        open_tools.erase(p.id);
        EXPECT_FALSE(p.error_text.empty()) << at;
        break;
      case PartType::kFinishStep:
        EXPECT_EQ(i + 2, parts.size()) << at << ": finish-step is followed only by finish";
        EXPECT_GE(p.usage.prompt_tokens, p.usage.cached_prompt_tokens) << at;
        EXPECT_GE(p.usage.cached_prompt_tokens, 0) << at;
        if (!p.tokens.empty()) {
          EXPECT_EQ(p.usage.generated_tokens, static_cast<int64_t>(p.tokens.size())) << at;
        }
        break;
      case PartType::kFinish:
        EXPECT_EQ(i + 1, parts.size()) << at;
        EXPECT_EQ(parts[i - 1].type, PartType::kFinishStep) << at;
        EXPECT_FALSE(p.finish_reason.empty()) << at;
        break;
      case PartType::kError:
      case PartType::kAbort:
        EXPECT_EQ(i + 1, parts.size()) << at;
        break;
    }
  }
  EXPECT_TRUE(open_text.empty());
  EXPECT_TRUE(open_reasoning.empty());
  EXPECT_TRUE(open_tools.empty());
}

}  // namespace affordance::model::testing
