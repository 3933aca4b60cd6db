#include "server/protocol.h"

#include <gtest/gtest.h>

namespace affordance::server {
namespace {

using ojson = nlohmann::ordered_json;

TEST(ServerProtocol, ParsesClientVersions) {
  auto none = ParseClientVersion("");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->major, 5);  // no declaration: the strictest client
  auto v7 = ParseClientVersion("7.0.173");
  ASSERT_TRUE(v7.ok());
  EXPECT_EQ(v7->major, 7);
  EXPECT_EQ(v7->patch, 173);
  EXPECT_TRUE(ParseClientVersion("6.0.0-beta.96").ok());
  for (const char* bad : {"7", "7.0", "seven", "7.0.x", "7..1", "-1.0.0", "7.0.1 "}) {
    auto r = ParseClientVersion(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code, "server.bad_client_version");
    EXPECT_NE(r.error().message.find("MAJOR.MINOR.PATCH"), std::string::npos);
  }
}

TEST(ServerProtocol, FinishReasonOnlyForClientsThatAcceptIt) {
  ojson finish = {{"type", "finish"}, {"finishReason", "stop"}};
  auto v5 = ChunkFor(finish, {5, 0, 0});
  ASSERT_TRUE(v5.has_value());
  EXPECT_FALSE(v5->contains("finishReason"));
  EXPECT_EQ((*v5)["type"], "finish");
  auto v7 = ChunkFor(finish, {7, 0, 173});
  EXPECT_EQ((*v7)["finishReason"], "stop");
}

TEST(ServerProtocol, ApprovalChunksAreGatedOnVersionSix) {
  ojson request = {{"type", "tool-approval-request"}, {"approvalId", "a1"}, {"toolCallId", "c1"}};
  ojson denied = {{"type", "tool-output-denied"}, {"toolCallId", "c1"}};
  EXPECT_EQ(*ChunkFor(request, {6, 0, 0}), request);
  EXPECT_EQ(*ChunkFor(denied, {7, 0, 1}), denied);
  auto old = ChunkFor(request, {5, 0, 100});
  EXPECT_EQ((*old)["type"], "data-approval-request");
  EXPECT_EQ((*old)["id"], "c1");
  EXPECT_EQ((*old)["data"]["approvalId"], "a1");
  EXPECT_EQ((*ChunkFor(denied, {5, 0, 0}))["type"], "data-output-denied");
  // Everything else passes through untouched.
  ojson delta = {{"type", "text-delta"}, {"id", "t"}, {"delta", "hi"}};
  EXPECT_EQ(*ChunkFor(delta, {5, 0, 0}), delta);
}

TEST(ServerProtocol, SseFraming) {
  EXPECT_EQ(SseEvent({{"type", "start-step"}}), "data: {\"type\":\"start-step\"}\n\n");
  EXPECT_EQ(SseDone(), "data: [DONE]\n\n");
  // Invalid UTF-8 from a model is replaced, never thrown on.
  std::string bad =
      "a\xff"
      "b";
  EXPECT_NE(SseEvent({{"type", "text-delta"}, {"delta", bad}})
                .find("a\xEF\xBF\xBD"
                      "b"),
            std::string::npos);
  EXPECT_EQ(ErrorBody(MakeError("server.x", "msg", "d")),
            "{\"error\":{\"code\":\"server.x\",\"message\":\"msg\",\"detail\":\"d\"}}");
}

}  // namespace
}  // namespace affordance::server
