#include "server/protocol.h"

#include <gtest/gtest.h>

#include <set>

namespace affordance::server {
namespace {

using harness::Event;
using harness::EventKind;
using ojson = nlohmann::ordered_json;

// The event a chunk stands for (the tests write chunks, as a client reads them).
Event Ev(const ojson& chunk) {
  auto e = ParseUiChunk(chunk);
  EXPECT_TRUE(e.ok()) << chunk.dump();
  return e.ok() ? *e : Event{};
}

TEST(ServerProtocol, EveryEventKindIsWrittenWithExactlyItsDocumentedFieldsAndReadBack) {
  const std::vector<ojson> chunks = {
      {{"type", "start"}, {"messageId", "m1"}, {"messageMetadata", {{"threadId", "t1"}}}},
      {{"type", "start-step"}},
      {{"type", "text-start"}, {"id", "p0"}},
      {{"type", "text-delta"}, {"id", "p0"}, {"delta", "Hel"}},
      {{"type", "text-end"}, {"id", "p0"}},
      {{"type", "reasoning-start"}, {"id", "r0"}},
      {{"type", "reasoning-delta"}, {"id", "r0"}, {"delta", "hm"}},
      {{"type", "reasoning-end"}, {"id", "r0"}},
      {{"type", "tool-input-start"}, {"toolCallId", "c1"}, {"toolName", "ToolSearch"}},
      {{"type", "tool-input-delta"}, {"toolCallId", "c1"}, {"inputTextDelta", "{\"q"}},
      {{"type", "tool-input-available"},
       {"toolCallId", "c1"},
       {"toolName", "ToolSearch"},
       {"input", {{"query", "events"}}}},
      {{"type", "tool-input-error"},
       {"toolCallId", "c2"},
       {"toolName", "X"},
       {"input", "{oops"},
       {"errorText", "bad json"}},
      {{"type", "tool-output-available"}, {"toolCallId", "c1"}, {"output", {{"n", 1}}}},
      {{"type", "tool-output-error"}, {"toolCallId", "c3"}, {"errorText", "harness.x: no"}},
      {{"type", "tool-output-denied"}, {"toolCallId", "c4"}},
      {{"type", "tool-approval-request"}, {"approvalId", "apr_1"}, {"toolCallId", "c5"}},
      {{"type", "data-truth"},
       {"id", "c1"},
       {"data",
        {{"toolCallId", "c1"}, {"state", "executed"}, {"dataState", "mirrored"}, {"ref", "r1"}}}},
      {{"type", "data-truth"}, {"id", "c3"}, {"data", {{"toolCallId", "c3"}, {"state", "parsed"}}}},
      {{"type", "data-surface"},
       {"id", "s1"},
       {"data", {{"surfaceId", "s1"}, {"state", "persisted"}}}},
      {{"type", "data-approval"}, {"id", "apr_1"}, {"data", {{"approvalId", "apr_1"}}}},
      {{"type", "data-turn"}, {"id", "m1"}, {"data", {{"status", "answered"}}}},
      {{"type", "finish-step"}},
      {{"type", "error"}, {"errorText", "model.http: down"}},
      {{"type", "finish"}, {"finishReason", "stop"}},
      {{"type", "abort"}, {"reason", "cancelled"}},
      // Appended so the indices above stay: a citation as it is parsed, and a text part's
      // resolved citations on its end.
      {{"type", "data-citation"},
       {"id", "p0"},
       {"data", {{"offset", 4}, {"citedText", "[r1]"}, {"refs", {{{"ref", "r1"}}}}}},
       {"transient", true}},
      {{"type", "text-end"},
       {"id", "p1"},
       {"citations",
        {{{"source", {{"type", "source"}, {"sourceType", "document"}, {"id", "r1"}}},
          {"startIndex", 4},
          {"endIndex", 8},
          {"citedText", "[r1]"}}}}},
  };
  std::set<EventKind> kinds;
  for (const auto& c : chunks) {
    const Event e = Ev(c);
    kinds.insert(e.kind);
    EXPECT_EQ(harness::ChunkType(e.kind), c["type"].get<std::string>());
    EXPECT_EQ(UiChunk(e), c) << c.dump();
  }
  EXPECT_EQ(kinds.size(), static_cast<size_t>(EventKind::kAbort) + 1);  // every kind, once at least
  EXPECT_EQ(Ev(chunks[0]).thread_id, "t1");
  EXPECT_EQ(Ev(chunks[3]).text, "Hel");
  EXPECT_TRUE(Ev(chunks[8]).tool());
  EXPECT_FALSE(Ev(chunks[16]).tool());
  EXPECT_EQ(Ev(chunks[16]).data_state, "mirrored");
  EXPECT_EQ(Ev(chunks[16]).ref, "r1");
  EXPECT_EQ(Ev(chunks[25]).text, "[r1]");
  EXPECT_EQ(Ev(chunks[26]).value.size(), 1u);
}

TEST(ServerProtocol, CitationsOnTextEndGoOnlyToClientsThatKeepThem) {
  Event e = Event::Of(EventKind::kTextEnd);
  e.id = "p0";
  e.value = ojson::array({{{"startIndex", 0}, {"endIndex", 4}, {"citedText", "[r1]"}}});
  for (auto [version, kept] :
       {std::pair{"7.0.173", true}, std::pair{"7.0.138", true}, std::pair{"8.0.0", true},
        std::pair{"7.0.137", false}, std::pair{"7.0.31", false}, std::pair{"6.0.200", false},
        std::pair{"", false}}) {
    auto client = ParseClientVersion(version);
    ASSERT_TRUE(client.ok());
    auto chunk = ChunkFor(e, *client);
    ASSERT_TRUE(chunk.has_value());
    EXPECT_EQ(chunk->contains("citations"), kept) << version;
    EXPECT_EQ((*chunk)["id"], "p0");
  }
}

TEST(ServerProtocol, AChunkThatIsNoEventIsABadChunk) {
  for (const ojson& bad : {ojson(1), ojson::object(), ojson{{"type", 3}}, ojson{{"type", "nope"}},
                           ojson{{"type", "text-delta"}, {"delta", 4}},
                           ojson{{"type", "tool-input-error"}, {"input", ojson::object()}}}) {
    auto e = ParseUiChunk(bad);
    ASSERT_FALSE(e.ok()) << bad.dump();
    EXPECT_EQ(e.error().code, "server.bad_chunk");
  }
}

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
  auto v5 = ChunkFor(Ev(finish), {5, 0, 0});
  ASSERT_TRUE(v5.has_value());
  EXPECT_FALSE(v5->contains("finishReason"));
  EXPECT_EQ((*v5)["type"], "finish");
  auto v7 = ChunkFor(Ev(finish), {7, 0, 173});
  EXPECT_EQ((*v7)["finishReason"], "stop");
}

TEST(ServerProtocol, ApprovalChunksAreGatedOnVersionSix) {
  ojson request = {{"type", "tool-approval-request"}, {"approvalId", "a1"}, {"toolCallId", "c1"}};
  ojson denied = {{"type", "tool-output-denied"}, {"toolCallId", "c1"}};
  EXPECT_EQ(*ChunkFor(Ev(request), {6, 0, 0}), request);
  EXPECT_EQ(*ChunkFor(Ev(denied), {7, 0, 1}), denied);
  auto old = ChunkFor(Ev(request), {5, 0, 100});
  EXPECT_EQ((*old)["type"], "data-approval-request");
  EXPECT_EQ((*old)["id"], "c1");
  EXPECT_EQ((*old)["data"]["approvalId"], "a1");
  EXPECT_EQ((*ChunkFor(Ev(denied), {5, 0, 0}))["type"], "data-output-denied");
  // Everything else passes through untouched.
  ojson delta = {{"type", "text-delta"}, {"id", "t"}, {"delta", "hi"}};
  EXPECT_EQ(*ChunkFor(Ev(delta), {5, 0, 0}), delta);
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
      if (auto shown = view.Next(Ev(c)))
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
  EXPECT_EQ((*old.Next(Ev(turn[2])))["type"], "data-output-denied");
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
            "{\"error\":{\"code\":\"server.x\",\"message\":\"msg\",\"detail\":\"d\","
            "\"category\":\"internal\"}}");
  EXPECT_EQ(ErrorBody(MakeError(ErrorKind::kConflict, "server.turn_active", "busy")),
            "{\"error\":{\"code\":\"server.turn_active\",\"message\":\"busy\","
            "\"category\":\"conflict\"}}");
}

}  // namespace
}  // namespace affordance::server
