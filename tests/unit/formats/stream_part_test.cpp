#include "formats/stream_part.h"

#include <gtest/gtest.h>

namespace affordance::formats {
namespace {

TEST(StreamPart, JsonUsesUiStreamSpelling) {
  StreamPart d = StreamPart::Of(PartType::kToolInputDelta, "c1");
  d.delta = "{\"a\"";
  EXPECT_EQ(ToJson(d), nlohmann::json({{"type", "tool-input-delta"},
                                       {"toolCallId", "c1"},
                                       {"inputTextDelta", "{\"a\""}}));
  StreamPart e = StreamPart::Of(PartType::kToolInputError, "c2");
  e.tool_name = "f";
  e.input_text = "{bad";
  e.error_text = "not JSON";
  e.metadata = {{"replay", true}};
  EXPECT_EQ(ToJson(e), nlohmann::json({{"type", "tool-input-error"},
                                       {"toolCallId", "c2"},
                                       {"toolName", "f"},
                                       {"input", "{bad"},
                                       {"errorText", "not JSON"},
                                       {"providerMetadata", {{"replay", true}}}}));
  StreamPart f = StreamPart::Of(PartType::kFinishStep);
  f.usage = {10, 4, 3};
  EXPECT_EQ(ToJson(f)["usage"]["cachedPromptTokens"], 4);
  EXPECT_EQ(PartTypeName(PartType::kStartStep), "start-step");
}

}  // namespace
}  // namespace affordance::formats
