// MCP servers over Streamable HTTP: the reference memory server from npm (and the hostile fixture
// server) behind the official SDK's StreamableHTTPServerTransport, on loopback, real processes.
#include "connect/mcp_client.h"
#include "connect/result.h"
#include "connect/road.h"
#include "mcp_http_bridge.h"
#include "mcp_support.h"
#include "support.h"

#include <gmock/gmock.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

namespace affordance::connect::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

std::vector<std::string> MemoryServer() {
  return {AFFORDANCE_NODE,
          ModulePath("tools/node_modules/@modelcontextprotocol/server-memory/dist/index.js")};
}

json HttpManifest(const std::string& url, const std::string& bearer_env = "",
                  int64_t timeout_ms = 15000) {
  json source = {{"kind", "mcp"}, {"url", url}, {"timeout_ms", timeout_ms}};
  if (!bearer_env.empty()) source["bearer_env"] = bearer_env;
  return {
      {"slug", "memory"}, {"title", "Knowledge graph"}, {"source", source}, {"modes", {"live"}}};
}

Result<ConnectorResult> Read(ConnectorRoad& road, const std::string& op, const json& args,
                             const std::string& slug = "memory") {
  ConnectorCommand cmd;
  cmd.connector = slug;
  cmd.request = {{"operation", op}, {"args", args}};
  cmd.limit = 50;
  return road.RunConnectorCommand(cmd);
}

// A memory server over HTTP with its graph in `dir`.
struct World {
  TempDir dir;
  std::unique_ptr<HttpBridge> bridge;
  std::unique_ptr<ConnectorRoad> road;
  explicit World(std::vector<std::string> options = {}, const std::string& bearer_env = "",
                 int64_t timeout_ms = 15000) {
    setenv("MEMORY_FILE_PATH", (dir / "memory.jsonl").c_str(), 1);
    options.insert(options.end(), {"--log", dir / "http.log"});
    bridge = std::make_unique<HttpBridge>(options, MemoryServer());
    RoadOptions o = TestOptions(dir);
    o.mcp_backoff_ms = 50;
    road = std::make_unique<ConnectorRoad>(
        std::vector<ConnectorManifest>{Parsed(HttpManifest(bridge->url(), bearer_env, timeout_ms))},
        o);
  }
  // The bridge logs a request once its answer is written, a moment after we read the answer:
  // waits (at most 2 s) for at least `n` entries.
  std::vector<json> Log(size_t n = 0) {
    auto log = BridgeLog(dir / "http.log");
    for (int i = 0; i < 200 && log.size() < n; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      log = BridgeLog(dir / "http.log");
    }
    return log;
  }
};

TEST(McpHttpUrl, PlainHttpOnlyToThisMachineAndNeverWithAUserInTheUrl) {
  EXPECT_TRUE(ParseMcpUrl("http://127.0.0.1:8080/mcp").ok());
  EXPECT_TRUE(ParseMcpUrl("http://localhost/mcp").ok());
  EXPECT_TRUE(ParseMcpUrl("http://[::1]:9/").ok());
  auto u = ParseMcpUrl("https://mcp.example.org/v1/mcp?team=a");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->host, "mcp.example.org");
  EXPECT_EQ(u->port, 443);
  EXPECT_EQ(u->path, "/v1/mcp?team=a");
  EXPECT_FALSE(u->loopback);
  auto insecure = ParseMcpUrl("http://mcp.example.org/mcp");
  ASSERT_FALSE(insecure.ok());
  EXPECT_EQ(insecure.error().code, "connect.mcp_insecure_url");
  EXPECT_THAT(insecure.error().message, HasSubstr("use https://"));
  // 127.0.0.1.example.org is not this machine.
  EXPECT_EQ(ParseMcpUrl("http://127.0.0.1.example.org/").error().code, "connect.mcp_insecure_url");
  EXPECT_EQ(ParseMcpUrl("https://user:pw@example.org/").error().code, "connect.mcp_bad_url");
  EXPECT_EQ(ParseMcpUrl("https://example.org:99999/").error().code, "connect.mcp_bad_url");
  EXPECT_EQ(ParseMcpUrl("https://example.org/#x").error().code, "connect.mcp_bad_url");
  EXPECT_EQ(ParseMcpUrl("https:///mcp").error().code, "connect.mcp_bad_url");
  // The manifest is refused when it is loaded, with the code in its message.
  auto m = ParseManifest(HttpManifest("http://10.0.0.5:3000/mcp").dump(), "");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, "connect.manifest_invalid");
  EXPECT_THAT(m.error().message, HasSubstr("/source/url"));
  EXPECT_THAT(m.error().message, HasSubstr("connect.mcp_insecure_url"));
}

TEST(McpHttp, TheCatalogAndItsRiskComeFromToolsListOverHttp) {
  World w;
  auto m = w.road->Find("memory");
  ASSERT_NE(m, nullptr);
  const Operation* create = m->FindOperation("create_entities");
  ASSERT_NE(create, nullptr) << w.road->McpStatus("memory").dump();
  EXPECT_EQ(create->risk, Risk::kWrite);
  EXPECT_EQ(create->risk_source, "annotations");
  ASSERT_NE(m->FindOperation("delete_entities"), nullptr);
  EXPECT_EQ(m->FindOperation("delete_entities")->risk, Risk::kDestructive);
  ASSERT_NE(m->FindOperation("read_graph"), nullptr);
  EXPECT_TRUE(m->FindOperation("read_graph")->readable());
  json status = w.road->McpStatus("memory");
  EXPECT_EQ(status["state"], "connected");
  EXPECT_EQ(status["server"]["name"], "memory-server");
  EXPECT_EQ(status["protocol_version"], "2025-11-25");
  // The session id the server gave at initialize, and the revision, on every later message.
  auto log = w.Log(3);
  ASSERT_GE(log.size(), 3u);  // initialize, notifications/initialized, tools/list
  EXPECT_TRUE(log[0]["session"].is_null());
  EXPECT_TRUE(log[0]["version"].is_null());
  for (size_t i = 1; i < log.size(); ++i) {
    EXPECT_TRUE(log[i]["session"].is_string()) << log[i].dump();
    EXPECT_EQ(log[i]["version"], "2025-11-25") << log[i].dump();
  }
  EXPECT_EQ(log[1]["status"], 202);  // a notification
}

TEST(McpHttp, AReadIsRowsWhetherTheServerAnswersWithJsonOrAnEventStream) {
  for (bool json_answers : {false, true}) {
    World w(json_answers ? std::vector<std::string>{"--json"} : std::vector<std::string>{});
    auto r = Read(*w.road, "search_nodes", {{"query", "nobody"}});
    ASSERT_TRUE(r.ok()) << r.error().ToString();
    ASSERT_EQ(r->rows.size(), 1u);
    EXPECT_EQ(r->rows[0]["entities"], json::array());
    EXPECT_EQ(r->mirror_snapshot.serving_decision, "live");
    EXPECT_EQ(r->operation_ledger.at(0).source, "live");
    auto graph = Read(*w.road, "read_graph", json::object());
    ASSERT_TRUE(graph.ok()) << graph.error().ToString();
    // Arguments are still checked against the tool's schema before anything is sent.
    auto bad = Read(*w.road, "search_nodes", {{"query", 7}});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, "connect.bad_args");
  }
}

TEST(McpHttp, ABearerTokenIsSentAndAMissingOrWrongOneIsANamedError) {
  const char* var = "AFFORDANCE_TEST_MCP_TOKEN";
  {
    unsetenv(var);
    World w({"--token", "s3cret-token-value"}, var);
    EXPECT_TRUE(w.road->Find("memory")->operations.empty());
    json status = w.road->McpStatus("memory");
    EXPECT_EQ(status["state"], "disconnected");
    EXPECT_EQ(status["last_error"]["code"], "connect.mcp_start_failed");
    EXPECT_THAT(status["last_error"]["message"].get<std::string>(), HasSubstr(var));
    EXPECT_TRUE(w.Log().empty()) << "nothing is sent without the token";
  }
  {
    setenv(var, "not-the-token-at-all", 1);
    World w({"--token", "s3cret-token-value"}, var);
    EXPECT_TRUE(w.road->Find("memory")->operations.empty());
    json status = w.road->McpStatus("memory");
    EXPECT_EQ(status["state"], "disconnected");
    EXPECT_EQ(status["last_error"]["code"], "connect.mcp_unauthorized");
    EXPECT_THAT(status["last_error"]["message"].get<std::string>(), HasSubstr(var));
    EXPECT_THAT(status.dump(), Not(HasSubstr("not-the-token-at-all")));
    auto log = w.Log(1);
    ASSERT_EQ(log.size(), 1u);
    EXPECT_EQ(log[0]["status"], 401);
  }
  {
    // No bearer_env at all: the server's 401 says a token is needed.
    World w({"--token", "s3cret-token-value"});
    EXPECT_TRUE(w.road->Find("memory")->operations.empty());
    json status = w.road->McpStatus("memory");
    EXPECT_EQ(status["last_error"]["code"], "connect.mcp_unauthorized");
    EXPECT_THAT(status["last_error"]["message"].get<std::string>(), HasSubstr("bearer_env"));
  }
  {
    setenv(var, "s3cret-token-value", 1);
    World w({"--token", "s3cret-token-value"}, var);
    auto r = Read(*w.road, "read_graph", json::object());
    ASSERT_TRUE(r.ok()) << r.error().ToString();
    for (const auto& entry : w.Log(4)) EXPECT_EQ(entry["auth"], "bearer") << entry.dump();
    EXPECT_THAT(w.road->McpStatus("memory").dump(), Not(HasSubstr("s3cret")));
  }
  unsetenv(var);
}

TEST(McpHttp, AServerKilledMidSessionIsDisconnectedNeverAHang) {
  World w;
  ASSERT_TRUE(Read(*w.road, "read_graph", json::object()).ok());
  w.bridge->Kill(SIGKILL);
  auto started = std::chrono::steady_clock::now();
  auto r = Read(*w.road, "read_graph", json::object());
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(3));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "connect.mcp_disconnected");
  EXPECT_THAT(r.error().message, HasSubstr("cannot reach the MCP server"));
  EXPECT_EQ(w.road->McpStatus("memory")["state"], "disconnected");
  EXPECT_EQ(w.road->Snapshot("memory")->freshness.state, "disconnected");
  // Later uses are refused within the backoff, then tried again: still disconnected, no hang.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto again = Read(*w.road, "read_graph", json::object());
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, "connect.mcp_disconnected");
}

TEST(McpHttp, AServerThatNeverAnswersIsATimeout) {
  TempDir dir;
  HttpBridge bridge({}, {AFFORDANCE_NODE, ModulePath("tests/fixtures/connect/hostile_mcp.mjs"),
                         "hang", dir.path()});
  json manifest = HttpManifest(bridge.url(), "", /*timeout_ms=*/600);
  manifest["slug"] = "hostile";
  RoadOptions o = TestOptions(dir);
  ConnectorRoad road({Parsed(manifest)}, o);
  auto started = std::chrono::steady_clock::now();
  auto r = Read(road, "echo", {{"text", "hi"}}, "hostile");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(4));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "connect.mcp_timeout");
  EXPECT_EQ(road.McpStatus("hostile")["state"], "disconnected");
}

TEST(McpHttp, AToolListChangeInsideAnAnswerStreamRefreshesTheCatalog) {
  TempDir dir;
  HttpBridge bridge({}, {AFFORDANCE_NODE, ModulePath("tests/fixtures/connect/hostile_mcp.mjs"),
                         "changing", dir.path()});
  json manifest = HttpManifest(bridge.url(), "", 5000);
  manifest["slug"] = "hostile";
  ConnectorRoad road({Parsed(manifest)}, TestOptions(dir));
  ASSERT_NE(road.Find("hostile")->FindOperation("echo"), nullptr)
      << road.McpStatus("hostile").dump();
  EXPECT_EQ(road.Find("hostile")->FindOperation("added_1"), nullptr);
  // The echo's SSE stream carries notifications/tools/list_changed before its answer.
  ASSERT_TRUE(Read(road, "echo", {{"text", "hi"}}, "hostile").ok());
  EXPECT_NE(road.Find("hostile")->FindOperation("added_1"), nullptr);
  ASSERT_TRUE(Read(road, "echo", {{"text", "hi"}}, "hostile").ok());
  auto removed = Read(road, "added_1", json::object(), "hostile");
  ASSERT_FALSE(removed.ok());
  EXPECT_EQ(removed.error().code, "connect.unknown_operation");
  EXPECT_NE(road.Find("hostile")->FindOperation("added_2"), nullptr);
}

TEST(McpHttp, AnAnswerOverMaxMessageBytesIsRefusedInBothAnswerForms) {
  for (bool json_answers : {false, true}) {
    TempDir dir;
    {
      // A graph whose read_graph answer is about 6 MB (the SDK's stdio reader takes 10 MB).
      std::ofstream graph(dir / "memory.jsonl");
      for (int i = 0; i < 2000; ++i) {
        graph << json{{"type", "entity"},
                      {"name", "e" + std::to_string(i)},
                      {"entityType", "thing"},
                      {"observations", {std::string(1000, 'x')}}}
                     .dump()
              << "\n";
      }
    }
    setenv("MEMORY_FILE_PATH", (dir / "memory.jsonl").c_str(), 1);
    HttpBridge bridge(
        json_answers ? std::vector<std::string>{"--json"} : std::vector<std::string>{},
        MemoryServer());
    json manifest = HttpManifest(bridge.url());
    manifest["source"]["max_message_bytes"] = 1 << 20;
    ConnectorRoad road({Parsed(manifest)}, TestOptions(dir));
    auto r = Read(road, "read_graph", json::object());
    ASSERT_FALSE(r.ok()) << json_answers;
    EXPECT_EQ(r.error().code, "connect.mcp_message_too_large") << r.error().ToString();
    EXPECT_EQ(road.McpStatus("memory")["state"], "disconnected");
    // A small answer on a new session is fine.
    std::this_thread::sleep_for(std::chrono::milliseconds(600));  // the backoff
    auto small = Read(road, "search_nodes", {{"query", "e1999"}});
    ASSERT_TRUE(small.ok()) << small.error().ToString();
  }
}

TEST(McpHttp, AnExpiredSessionIsInitializedAgainOnceAndTheRequestSentAgain) {
  World w;
  ASSERT_TRUE(Read(*w.road, "read_graph", json::object()).ok());
  std::string first = w.Log(4).back()["session"];
  ASSERT_TRUE(w.bridge->Expire());
  auto r = Read(*w.road, "search_nodes", {{"query", "x"}});
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  // initialize, initialized, tools/list, read_graph; 404; initialize, initialized, search_nodes
  auto log = w.Log(8);
  int expired = 0, initializes = 0;
  for (const auto& e : log) {
    expired += e["status"] == 404;
    initializes += e["session"].is_null();
  }
  EXPECT_EQ(expired, 1);
  EXPECT_EQ(initializes, 2) << "one initialize at start, one after the 404";
  EXPECT_NE(log.back()["session"], first);
  EXPECT_EQ(w.road->McpStatus("memory")["state"], "connected");
}

TEST(McpHttp, TheSessionIsDeletedWhenTheRoadStops) {
  World w;
  ASSERT_TRUE(Read(*w.road, "read_graph", json::object()).ok());
  std::string session = w.Log(4).back()["session"];
  w.road.reset();
  // The bridge logs a request once its answer is written, a moment after we got it.
  auto log = w.Log();
  for (int i = 0; i < 200 && (log.empty() || log.back()["method"] != "DELETE"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    log = w.Log();
  }
  ASSERT_FALSE(log.empty());
  EXPECT_EQ(log.back()["method"], "DELETE");
  EXPECT_EQ(log.back()["session"], session);
}

TEST(McpHttp, AnUnreachableServerIsDisconnected) {
  TempDir dir;
  int port = 0;
  {
    HttpBridge gone({}, MemoryServer());  // a port that was just free, now closed again
    port = gone.port();
  }
  ConnectorRoad road(
      {Parsed(HttpManifest("http://127.0.0.1:" + std::to_string(port) + "/mcp", "", 2000))},
      TestOptions(dir));
  EXPECT_TRUE(road.Find("memory")->operations.empty());
  json status = road.McpStatus("memory");
  EXPECT_EQ(status["state"], "disconnected");
  EXPECT_EQ(status["last_error"]["code"], "connect.mcp_disconnected");
}

}  // namespace
}  // namespace affordance::connect::testing
