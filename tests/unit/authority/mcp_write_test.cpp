// Governed writes to MCP servers: the reference filesystem server from npm and the fixture
// server (tests/fixtures/connect/hostile_mcp.mjs), real child processes over stdio. A write tool
// is staged with its exact arguments, changes nothing until a person approves it, runs once, and
// is verified by the manifest's declared read (else it is only executed); an answer that never
// comes after the request was sent is outcome_unknown, never retried, settled by reconcile; so is
// a SIGKILL of the executing process.
#include "../connect/mcp_http_bridge.h"
#include "support.h"

#include <gmock/gmock.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <thread>

namespace affordance::authority::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

std::string Module(const std::string& rel) {
  return std::string(AFFORDANCE_SOURCE_DIR) + "/" + rel;
}

size_t Lines(const std::string& path, const std::string& containing = "") {
  std::ifstream in(path);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) {
    n += !line.empty() && line.find(containing) != std::string::npos;
  }
  return n;
}

// The tools/call requests the fixture server received for `tool`.
size_t CallsOf(const std::string& dir, const std::string& tool) {
  return Lines(dir + "/calls.txt", "\"name\":\"" + tool + "\"");
}

json FilesManifest(const std::string& root) {
  return {{"slug", "files"},
          {"title", "Project files"},
          {"source",
           {{"kind", "mcp"},
            {"command", AFFORDANCE_NODE},
            {"args",
             {Module("tools/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"),
              root}}}},
          {"modes", {"live"}},
          {"operations",
           {{{"tool", "write_file"},
             {"summary", "Write {path}"},
             {"verify",
              {{"operation", "read_text_file"},
               {"args", {{"path", "$path"}}},
               {"expect", {{"content", "$content"}}}}}}}}};
}

json FixtureManifest(const std::string& mode, const std::string& state, bool verify,
                     int64_t timeout_ms = 5000) {
  json m = {{"slug", "log"},
            {"title", "Fixture log"},
            {"source",
             {{"kind", "mcp"},
              {"command", AFFORDANCE_NODE},
              {"args", {Module("tests/fixtures/connect/hostile_mcp.mjs"), mode, state}},
              {"timeout_ms", timeout_ms}}},
            {"modes", {"live"}}};
  if (verify) {
    m["operations"] = {
        {{"tool", "append"},
         {"verify",
          {{"operation", "read_log"}, {"args", json::object()}, {"expect", {{"line", "$line"}}}}}}};
  }
  return m;
}

// Store, road and authority over `manifests`, reopened as a restarted process would.
struct McpWorld {
  TempDir dir;
  std::vector<json> manifests;
  std::unique_ptr<store::Store> store;
  std::unique_ptr<connect::ConnectorRoad> road;
  std::unique_ptr<Authority> authority;
  Actor person = Actor::User("tester");

  void Open() {
    authority.reset();
    road.reset();
    store.reset();
    auto s = store::OpenSqlite(dir / "data/affordance.db");
    ASSERT_TRUE(s.ok()) << s.error().ToString();
    store = std::move(*s);
    std::vector<connect::ConnectorManifest> parsed;
    for (const auto& j : manifests) {
      auto m = connect::ParseManifest(j.dump(), "");
      ASSERT_TRUE(m.ok()) << m.error().ToString();
      parsed.push_back(std::move(*m));
    }
    connect::RoadOptions ro;
    ro.data_dir = dir / "data";
    ro.mcp_backoff_ms = 20;
    road = std::make_unique<connect::ConnectorRoad>(std::move(parsed), ro);
    authority = std::make_unique<Authority>(*store, road.get());
  }

  std::string Approved(const std::string& connector, const std::string& op, const json& args) {
    auto a = authority->Stage({connector, op, args}, Actor::Model());
    EXPECT_TRUE(a.ok()) << a.error().ToString();
    if (!a.ok()) return "";
    auto d = authority->Approve(a->id, person);
    EXPECT_TRUE(d.ok()) << d.error().ToString();
    return a->id;
  }
};

TEST(AuthorityMcp, AWriteIsStagedChangesNothingUntilApprovedRunsOnceAndIsVerified) {
  McpWorld w;
  std::filesystem::create_directories(w.dir / "root");
  w.manifests = {FilesManifest(w.dir / "root")};
  w.Open();
  const std::string path = w.dir / "root/plan.txt";
  json args = {{"path", path}, {"content", "ship on Friday\n"}};

  // Reads need a read grant, writes a write grant, both the person's.
  auto no_grant = w.authority->Stage({"files", "write_file", args}, Actor::Model());
  ASSERT_FALSE(no_grant.ok());
  EXPECT_EQ(no_grant.error().code, "authority.no_grant");
  ASSERT_TRUE(w.authority->Grant("files", "", "write", 0, w.person).ok());

  auto staged = w.authority->Stage({"files", "write_file", args}, Actor::Model());
  ASSERT_TRUE(staged.ok()) << staged.error().ToString();
  EXPECT_EQ(staged->status, "pending");
  EXPECT_EQ(staged->args, args) << "the exact arguments are what the person approves";
  EXPECT_FALSE(std::filesystem::exists(path)) << "staging runs nothing";
  // The effect card shows the exact arguments and where they land.
  EXPECT_EQ(staged->effect["summary"], "Write " + path);
  EXPECT_THAT(staged->effect.dump(), HasSubstr("ship on Friday"));
  EXPECT_THAT(staged->effect.dump(), HasSubstr("MCP server"));
  EXPECT_EQ(w.authority->Execute(staged->id).error().code, "authority.not_approved");
  EXPECT_FALSE(std::filesystem::exists(path));

  // The model can never decide.
  EXPECT_EQ(w.authority->Approve(staged->id, Actor::Model()).error().code, "authority.not_human");
  ASSERT_TRUE(w.authority->Approve(staged->id, w.person).ok());
  EXPECT_FALSE(std::filesystem::exists(path)) << "approving is not running";
  auto done = w.authority->Execute(staged->id);
  ASSERT_TRUE(done.ok()) << done.error().ToString();
  EXPECT_EQ(done->state, "verified") << done->ToJson().dump();
  EXPECT_EQ(ReadText(path), "ship on Friday\n");
  EXPECT_EQ(done->receipt->evidence["verify"]["operation"], "read_text_file");
  EXPECT_EQ(w.authority->Execute(staged->id).error().code, "authority.already_executed");
}

TEST(AuthorityMcp, WithoutADeclaredReadAWriteIsExecutedNeverVerified) {
  McpWorld w;
  w.manifests = {FixtureManifest("ok", w.dir.path(), /*verify=*/false)};
  w.Open();
  ASSERT_TRUE(w.authority->Grant("log", "", "write", 0, w.person).ok());
  std::string id = w.Approved("log", "append", {{"line", "one"}});
  auto done = w.authority->Execute(id);
  ASSERT_TRUE(done.ok()) << done.error().ToString();
  EXPECT_EQ(done->state, "executed");
  EXPECT_EQ(done->receipt->verification, "unverified");
  EXPECT_EQ(done->receipt->response["text"], "appended");  // the server's answer
  EXPECT_EQ(Lines(w.dir / "log.txt"), 1u);
  EXPECT_EQ(Lines(w.dir / "calls.txt"), 1u);
}

TEST(AuthorityMcp, NoAnswerAfterSendIsOutcomeUnknownNeverRetriedThenReconciled) {
  McpWorld w;
  w.manifests = {FixtureManifest("slowwrite", w.dir.path(), /*verify=*/true, /*timeout_ms=*/800)};
  w.Open();
  ASSERT_TRUE(w.authority->Grant("log", "", "write", 0, w.person).ok());
  std::string id = w.Approved("log", "append", {{"line", "exactly once"}});
  auto run = w.authority->Execute(id);
  ASSERT_TRUE(run.ok()) << run.error().ToString();
  EXPECT_EQ(run->state, "outcome_unknown");
  EXPECT_EQ(run->receipt->response["error"]["code"], "connect.mcp_timeout");
  EXPECT_THAT(run->ModelText(), HasSubstr("will not be retried"));
  EXPECT_EQ(Lines(w.dir / "calls.txt"), 1u);
  EXPECT_EQ(w.authority->Execute(id).error().code, "authority.already_executed");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the session's backoff
  auto settled = w.authority->Reconcile(id);
  ASSERT_TRUE(settled.ok()) << settled.error().ToString();
  EXPECT_EQ(settled->state, "verified") << settled->ToJson().dump();
  EXPECT_EQ(settled->receipt->evidence["reconcile"]["by"], "fresh_read");
  EXPECT_EQ(Lines(w.dir / "log.txt"), 1u);
  EXPECT_EQ(CallsOf(w.dir.path(), "append"), 1u) << "never a second write";
  EXPECT_GE(CallsOf(w.dir.path(), "read_log"), 1u) << "reconciled by a fresh read";
}

TEST(AuthorityMcp, KillMinusNineAfterApprovalIsOutcomeUnknownThenReconciledNeverCalledTwice) {
  McpWorld w;
  w.manifests = {FixtureManifest("slowwrite", w.dir.path(), /*verify=*/true, /*timeout_ms=*/60000)};
  w.Open();
  ASSERT_TRUE(w.authority->Grant("log", "", "write", 0, w.person).ok());
  std::string id = w.Approved("log", "append", {{"line", "before the kill"}});
  const std::string calls = w.dir / "calls.txt";
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    (void)w.authority.release();
    (void)w.road.release();
    (void)w.store.release();
    w.Open();
    (void)w.authority->Execute(id);  // the server never answers: killed while waiting
    for (;;) pause();
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (Lines(calls) < 1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(Lines(calls), 1u) << "the child never sent the write";
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  w.Open();
  EXPECT_EQ(w.store->GetApproval(id)->status, "executing");
  auto moved = w.authority->RecoverAbandoned();
  ASSERT_TRUE(moved.ok()) << moved.error().ToString();
  EXPECT_EQ(*moved, 1);
  EXPECT_EQ(w.store->GetApproval(id)->status, "outcome_unknown");
  auto all = w.authority->ReconcileAll();
  ASSERT_TRUE(all.ok()) << all.error().ToString();
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].state, "verified") << (*all)[0].ToJson().dump();
  EXPECT_EQ(Lines(w.dir / "log.txt"), 1u);
  EXPECT_EQ(CallsOf(w.dir.path(), "append"), 1u) << "the write once, never again";
  EXPECT_GE(CallsOf(w.dir.path(), "read_log"), 1u) << "then the reconcile read";
}

TEST(AuthorityMcp, AWriteOverStreamableHttpIsStagedApprovedAndRunExactlyOnce) {
  McpWorld w;
  const std::string graph = w.dir / "memory.jsonl";
  setenv("MEMORY_FILE_PATH", graph.c_str(), 1);
  connect::testing::HttpBridge bridge(
      {"--token", "tok-for-the-test"},
      {AFFORDANCE_NODE,
       Module("tools/node_modules/@modelcontextprotocol/server-memory/dist/index.js")});
  setenv("AFFORDANCE_TEST_MCP_TOKEN", "tok-for-the-test", 1);
  w.manifests = {
      {{"slug", "memory"},
       {"title", "Knowledge graph"},
       {"source",
        {{"kind", "mcp"}, {"url", bridge.url()}, {"bearer_env", "AFFORDANCE_TEST_MCP_TOKEN"}}},
       {"modes", {"live"}}}};
  w.Open();
  ASSERT_TRUE(w.authority->Grant("memory", "", "write", 0, w.person).ok());
  json args = {
      {"entities",
       {{{"name", "Ada"}, {"entityType", "person"}, {"observations", {"first program"}}}}}};
  auto staged = w.authority->Stage({"memory", "create_entities", args}, Actor::Model());
  ASSERT_TRUE(staged.ok()) << staged.error().ToString();
  EXPECT_EQ(staged->status, "pending");
  EXPECT_EQ(staged->args, args);
  EXPECT_EQ(Lines(graph, "\"Ada\""), 0u) << "staging runs nothing";
  ASSERT_TRUE(w.authority->Approve(staged->id, w.person).ok());
  EXPECT_EQ(Lines(graph, "\"Ada\""), 0u) << "approving is not running";
  auto done = w.authority->Execute(staged->id);
  ASSERT_TRUE(done.ok()) << done.error().ToString();
  EXPECT_EQ(done->state, "executed") << done->ToJson().dump();
  EXPECT_EQ(Lines(graph, "\"Ada\""), 1u);
  EXPECT_EQ(w.authority->Execute(staged->id).error().code, "authority.already_executed");
  EXPECT_EQ(Lines(graph, "\"Ada\""), 1u) << "run exactly once";
  // The server has it: a read over the same session finds it.
  connect::ConnectorCommand cmd{"memory",
                                {{"operation", "search_nodes"}, {"args", {{"query", "Ada"}}}}};
  auto found = w.road->RunConnectorCommand(cmd);
  ASSERT_TRUE(found.ok()) << found.error().ToString();
  ASSERT_EQ(found->rows.size(), 1u);
  EXPECT_EQ(found->rows[0]["entities"][0]["name"], "Ada");
  unsetenv("AFFORDANCE_TEST_MCP_TOKEN");
}

}  // namespace
}  // namespace affordance::authority::testing
