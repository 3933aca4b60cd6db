// The UI message stream, resume, cancel, dropped connections, threads and acknowledgements, over
// real loopback HTTP against the `affordance serve` binary with the replay provider.
#include "server_process.h"
#include "store/store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

namespace affordance::server::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

std::string Script(const std::string& name) {
  return Source("tests/integration/server/scripts/" + name);
}

std::string NewThread(int port) {
  auto r = Http(port, "POST", "/api/threads", R"({"title":"Test"})");
  EXPECT_EQ(r.status, 201) << r.body;
  return r.json()["thread"]["id"];
}

std::vector<std::string> Types(const std::vector<json>& chunks) {
  std::vector<std::string> t;
  for (const auto& c : chunks) t.push_back(c["type"]);
  return t;
}

TEST(ServerHttp, ChatStreamsTheUiMessageStreamAndPersistsTheTurn) {
  TempDir dir;
  ServerProcess server(dir / "data", Script("full.json"));
  ASSERT_GT(server.port(), 0) << server.first_line();
  const std::string thread = NewThread(server.port());

  auto r = Http(server.port(), "POST", "/api/chat", ChatBody(thread, "What is on next week?"));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.Header("content-type"), "text/event-stream");
  EXPECT_EQ(r.Header("cache-control"), "no-cache");
  EXPECT_EQ(r.Header("x-vercel-ai-ui-message-stream"), "v1");
  EXPECT_EQ(r.Header("x-accel-buffering"), "no");
  EXPECT_EQ(r.Header("connection"), "close");  // the connection closes after the stream
  bool done = false;
  auto chunks = Chunks(r.body, &done);
  EXPECT_TRUE(done);
  EXPECT_THAT(r.body, ::testing::EndsWith("data: [DONE]\n\n"));
  auto types = Types(chunks);
  ASSERT_FALSE(types.empty());
  EXPECT_EQ(types.front(), "start");
  EXPECT_EQ(types.back(), "finish");
  for (const char* t :
       {"reasoning-start", "reasoning-delta", "tool-input-start", "tool-input-available",
        "tool-output-available", "tool-input-error", "tool-output-error", "data-truth",
        "data-surface", "data-turn", "text-delta", "finish-step"}) {
    EXPECT_THAT(types, ::testing::Contains(t)) << t;
  }
  // No client version declared: the strictest client, so finish carries no finishReason.
  EXPECT_FALSE(chunks.back().contains("finishReason"));
  EXPECT_EQ(chunks.front()["messageMetadata"]["threadId"], thread);

  // Persisted by the harness: user + assistant, and the read route shows every part kind.
  auto read = Http(server.port(), "GET", "/api/threads/" + thread);
  ASSERT_EQ(read.status, 200);
  auto messages = read.json()["messages"];
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[1]["id"], chunks.front()["messageId"]);
  std::vector<std::string> kinds;
  for (const auto& p : messages[1]["parts"]) kinds.push_back(p["type"]);
  for (const char* k : {"reasoning", "text", "tool-RunConnectorCommand", "tool-NoSuchTool",
                        "data-truth", "data-surface", "data-turn"}) {
    EXPECT_THAT(kinds, ::testing::Contains(k)) << k;
  }

  // A 6+ client gets finishReason.
  auto v7 = Http(server.port(), "POST", "/api/chat", ChatBody(thread, "Again"),
                 "x-ai-sdk-version: 7.0.173\r\n");
  ASSERT_EQ(v7.status, 200);
  EXPECT_EQ(Chunks(v7.body).back()["finishReason"], "stop");
}

TEST(ServerHttp, AStockClientsOwnChatIdGetsAThreadThatLaterMessagesContinue) {
  TempDir dir;
  ServerProcess server(dir / "data", Script("fast.json"));
  ASSERT_GT(server.port(), 0);
  auto first =
      Http(server.port(), "POST", "/api/chat", ChatBody("client-chosen-id", "Hello there"));
  ASSERT_EQ(first.status, 200);
  const std::string thread = Chunks(first.body).front()["messageMetadata"]["threadId"];
  auto second = Http(server.port(), "POST", "/api/chat", ChatBody("client-chosen-id", "And again"));
  EXPECT_EQ(Chunks(second.body).front()["messageMetadata"]["threadId"], thread);
  auto list = Http(server.port(), "GET", "/api/threads").json()["threads"];
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["title"], "Hello there");
  EXPECT_EQ(list[0]["messages"], 4);
}

TEST(ServerHttp, ThreadsListReadRenameDelete) {
  TempDir dir;
  ServerProcess server(dir / "data", Script("fast.json"));
  ASSERT_GT(server.port(), 0);
  const std::string a = NewThread(server.port());
  auto renamed = Http(server.port(), "PATCH", "/api/threads/" + a, R"({"title":"Renamed"})");
  ASSERT_EQ(renamed.status, 200) << renamed.body;
  EXPECT_EQ(renamed.json()["thread"]["title"], "Renamed");
  auto bad = Http(server.port(), "PATCH", "/api/threads/" + a, R"({"title":""})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.json()["error"]["code"], "server.bad_request");
  EXPECT_EQ(Http(server.port(), "GET", "/api/threads").json()["threads"][0]["title"], "Renamed");
  auto gone = Http(server.port(), "DELETE", "/api/threads/" + a);
  ASSERT_EQ(gone.status, 200);
  for (const char* method : {"GET", "DELETE"}) {
    auto r = Http(server.port(), method, "/api/threads/" + a);
    EXPECT_EQ(r.status, 404) << method;
    EXPECT_EQ(r.json()["error"]["code"], "server.unknown_thread");
    EXPECT_EQ(r.json()["error"]["detail"], a);
  }
  EXPECT_EQ(Http(server.port(), "PATCH", "/api/threads/t_nope", R"({"title":"x"})").status, 404);
}

TEST(ServerHttp, ResumeReplaysTheRunningTurnAndADroppedClientDoesNotLoseIt) {
  TempDir dir;
  ServerProcess server(dir / "data", Script("slow.json"));
  ASSERT_GT(server.port(), 0);
  const std::string thread = NewThread(server.port());
  {
    Socket client(server.port());
    client.Send(Request(server.port(), "POST", "/api/chat", ChatBody(thread, "Stream slowly")));
    auto partial = client.ReadUntil("text-delta");
    ASSERT_THAT(partial, HasSubstr("text-delta"));
  }  // the connection drops mid-turn
  auto again = Http(server.port(), "POST", "/api/chat", ChatBody(thread, "x"));
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(again.json()["error"]["code"], "server.turn_active");

  auto resumed = Http(server.port(), "GET", "/api/chat/" + thread + "/stream");
  ASSERT_EQ(resumed.status, 200);
  bool done = false;
  auto chunks = Chunks(resumed.body, &done);
  EXPECT_TRUE(done);
  ASSERT_FALSE(chunks.empty());
  EXPECT_EQ(chunks.front()["type"], "start");  // replayed from the beginning
  EXPECT_EQ(chunks.back()["type"], "finish");
  EXPECT_EQ(Http(server.port(), "GET", "/api/chat/" + thread + "/stream").status, 204);
  EXPECT_EQ(Http(server.port(), "GET", "/api/chat/t_unknown/stream").status, 204);

  auto messages = Http(server.port(), "GET", "/api/threads/" + thread).json()["messages"];
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[1]["metadata"]["status"], "complete");
  std::string text;
  for (const auto& p : messages[1]["parts"]) {
    if (p["type"] == "text") text += p["text"].get<std::string>();
  }
  EXPECT_THAT(text, HasSubstr("cancelled, dropped and resumed"));
}

TEST(ServerHttp, CancelEndsTheStreamWithAbortAndPersistsACancelledTurn) {
  TempDir dir;
  ServerProcess server(dir / "data", Script("slow.json"));
  ASSERT_GT(server.port(), 0);
  const std::string thread = NewThread(server.port());
  Socket client(server.port());
  client.Send(Request(server.port(), "POST", "/api/chat", ChatBody(thread, "Stream slowly")));
  ASSERT_THAT(client.ReadUntil("text-delta"), HasSubstr("text-delta"));
  auto cancel = Http(server.port(), "POST", "/api/chat/" + thread + "/cancel");
  ASSERT_EQ(cancel.status, 202) << cancel.body;
  auto r = Parse(client.ReadUntil("data: [DONE]"));
  auto chunks = Chunks(r.body);
  ASSERT_FALSE(chunks.empty());
  EXPECT_EQ(chunks.back()["type"], "abort");
  auto none = Http(server.port(), "POST", "/api/chat/" + thread + "/cancel");
  EXPECT_EQ(none.status, 404);
  EXPECT_EQ(none.json()["error"]["code"], "server.no_active_turn");
  auto messages = Http(server.port(), "GET", "/api/threads/" + thread).json()["messages"];
  ASSERT_EQ(messages.size(), 2u);
  json turn;
  for (const auto& p : messages[1]["parts"]) {
    if (p["type"] == "data-turn") turn = p["data"];
  }
  EXPECT_EQ(turn["status"], "cancelled");
}

TEST(ServerHttp, OnlyLiveSurfacesTakePaintAcknowledgementsAndStatesNeverMoveBack) {
  TempDir dir;
  ServerProcess server(dir / "data", Script("full.json"));
  ASSERT_GT(server.port(), 0);
  const std::string thread = NewThread(server.port());
  auto chat = Http(server.port(), "POST", "/api/chat", ChatBody(thread, "Next week?"));
  std::string live, fixed;
  for (const auto& c : Chunks(chat.body)) {
    if (c["type"] != "data-surface") continue;
    EXPECT_EQ(c["data"]["state"], "persisted");  // nobody painted it yet
    (c["data"]["live"].get<bool>() ? live : fixed) = c["id"];
  }
  ASSERT_FALSE(live.empty());
  ASSERT_FALSE(fixed.empty());
  auto ack = [&](const std::string& id, const std::string& state) {
    return Http(server.port(), "POST", "/api/threads/" + thread + "/surfaces/" + id + "/ack",
                json{{"state", state}}.dump());
  };
  auto painted = ack(live, "painted");
  ASSERT_EQ(painted.status, 200) << painted.body;
  EXPECT_EQ(painted.json()["state"], "painted");
  EXPECT_EQ(ack(live, "hydrated").json()["state"], "hydrated");
  EXPECT_EQ(ack(live, "painted").json()["state"], "hydrated");  // never back
  auto st = ack(fixed, "painted");
  EXPECT_EQ(st.status, 409);
  EXPECT_EQ(st.json()["error"]["code"], "server.static_surface");
  EXPECT_EQ(ack("s_nope", "painted").status, 404);
  EXPECT_EQ(ack(live, "verified").status, 400);
  for (const auto& p :
       Http(server.port(), "GET", "/api/threads/" + thread).json()["messages"][1]["parts"]) {
    if (p["type"] != "data-surface") continue;
    EXPECT_EQ(p["data"]["state"], p["id"] == live ? "hydrated" : "persisted") << p["id"];
  }
}

// Two-time grounding over HTTP: the live surface's artifact re-executes its Query() handle through
// POST /api/query with a matching receipt; other args are a 409 mismatch without rows.
TEST(ServerHttp, QueryReExecutesAStoredBindingWithAReceipt) {
  TempDir dir;
  ServerProcess server(dir / "data", Script("full.json"));
  ASSERT_GT(server.port(), 0);
  const std::string thread = NewThread(server.port());
  auto chat = Http(server.port(), "POST", "/api/chat", ChatBody(thread, "Next week?"));
  std::string artifact;
  for (const auto& c : Chunks(chat.body)) {
    if (c["type"] == "data-surface" && c["data"]["live"].get<bool>()) {
      artifact = c["data"]["artifactId"];
    }
  }
  ASSERT_FALSE(artifact.empty());
  const json week = {{"from", "2026-11-30T00:00:00Z"}, {"to", "2026-12-07T00:00:00Z"}};
  auto ok =
      Http(server.port(), "POST", "/api/query",
           json{{"artifact", artifact}, {"handle", "calendar_list_events"}, {"args", week}}.dump());
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(ok.json()["receipt"]["match"], true);
  EXPECT_EQ(ok.json()["receipt"]["live"]["operation"], "list_events");
  EXPECT_GT(ok.json()["rows"].size(), 0u);
  auto other =
      Http(server.port(), "POST", "/api/query",
           json{{"artifact", artifact},
                {"statement", "events"},
                {"args", {{"from", "2026-12-07T00:00:00Z"}, {"to", "2026-12-14T00:00:00Z"}}}}
               .dump());
  EXPECT_EQ(other.status, 409) << other.body;
  EXPECT_EQ(other.json()["error"]["code"], "surface.binding_mismatch");
  EXPECT_EQ(other.json()["rows"].size(), 0u);
  EXPECT_EQ(other.json()["receipt"]["mismatches"], json::array({"args"}));
  auto read = Http(server.port(), "GET", "/api/artifacts/" + artifact);
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(read.json()["artifact"]["id"], artifact);
  EXPECT_EQ(read.json()["artifact"]["bindings"]["queries"][0]["handle"], "calendar_list_events");
  EXPECT_EQ(Http(server.port(), "GET", "/api/artifacts/a_nope").status, 404);
  EXPECT_EQ(Http(server.port(), "POST", "/api/query", "{}").status, 400);
}

TEST(ServerHttp, ProviderErrorsReachTheClientAsErrorChunks) {
  TempDir dir;
  ServerProcess server(dir / "data", Script("exhausted.json"));
  ASSERT_GT(server.port(), 0);
  auto r = Http(server.port(), "POST", "/api/chat", ChatBody(NewThread(server.port()), "x"));
  auto chunks = Chunks(r.body);
  json error;
  for (const auto& c : chunks) {
    if (c["type"] == "error") error = c;
  }
  ASSERT_FALSE(error.is_null()) << r.body;
  EXPECT_THAT(error["errorText"].get<std::string>(), HasSubstr("model.replay_exhausted"));
}

TEST(ServerHttp, DeployTruthSaysWhichServerThisIs) {
  TempDir dir;
  ServerProcess server(dir / "data", Script("fast.json"));
  ASSERT_GT(server.port(), 0);
  auto r = Http(server.port(), "GET", "/deploy-truth");
  ASSERT_EQ(r.status, 200);
  auto t = r.json();
  EXPECT_EQ(t["pid"], server.pid());
  EXPECT_EQ(t["data"], std::filesystem::absolute(dir / "data").string());
  EXPECT_EQ(t["provider"]["name"], "replay");
  EXPECT_EQ(t["provider"]["script"], Script("fast.json"));
  EXPECT_FALSE(t["commit"].get<std::string>().empty());
  EXPECT_THAT(t["buildTime"].get<std::string>(), ::testing::EndsWith("Z"));
  EXPECT_THAT(t["startTime"].get<std::string>(), ::testing::EndsWith("Z"));
  EXPECT_EQ(
      t["engine"],
      (json{{"steps", 0}, {"promptTokens", 0}, {"cachedPromptTokens", 0}, {"reencodedSteps", 0}}));
  // After a turn: its steps and prompt tokens, and the engine's cache report (a replay has none).
  auto chat = Http(server.port(), "POST", "/api/chat", ChatBody(NewThread(server.port()), "hi"));
  ASSERT_EQ(chat.status, 200) << chat.body;
  auto after = Http(server.port(), "GET", "/deploy-truth").json();
  EXPECT_GE(after["engine"]["steps"].get<int64_t>(), 1);
  EXPECT_GT(after["engine"]["promptTokens"].get<int64_t>(), 0);
  EXPECT_EQ(after["engine"]["cachedPromptTokens"], 0);
  EXPECT_EQ(server.Stop(), 0);  // SIGTERM: a clean exit
}

}  // namespace
}  // namespace affordance::server::testing
