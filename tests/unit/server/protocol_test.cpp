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

TEST(ServerProtocol, AResumedStreamCarriesNoOutcomeOfACallItDidNotOpen) {
  // A continuation reports the outcome of an earlier message's call (c0) before its own call (c1).
  const std::vector<ojson> turn = {
      {{"type", "start"}, {"messageId", "m2"}},
      {{"type", "tool-output-available"},
       {"toolCallId", "c0"},
       {"output", {{"state", "verified"}}}},
      {{"type", "tool-output-denied"}, {"toolCallId", "c9"}},
      {{"type", "start-step"}},
      {{"type", "tool-input-start"}, {"toolCallId", "c1"}, {"toolName", "ToolSearch"}},
      {{"type", "tool-input-available"}, {"toolCallId", "c1"}, {"toolName", "ToolSearch"}},
      {{"type", "tool-output-available"}, {"toolCallId", "c1"}, {"output", 1}},
      {{"type", "finish"}},
  };
  auto seen = [&](bool resumed) {
    ClientStream view({7, 0, 0}, resumed);
    std::vector<std::string> out;
    for (const auto& c : turn) {
      if (auto shown = view.Next(c))
        out.push_back((*shown)["type"].get<std::string>() + ":" + shown->value("toolCallId", ""));
    }
    return out;
  };
  // The client that sent the decision holds c0's part: it gets everything.
  EXPECT_EQ(seen(false).size(), turn.size());
  // A re-attached client rebuilds the message from this stream only.
  EXPECT_EQ(seen(true), (std::vector<std::string>{"start:", "start-step:", "tool-input-start:c1",
                                                  "tool-input-available:c1",
                                                  "tool-output-available:c1", "finish:"}));
  // Version gating still applies to what passes.
  ClientStream old({5, 0, 0}, false);
  EXPECT_EQ((*old.Next(turn[2]))["type"], "data-output-denied");
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
