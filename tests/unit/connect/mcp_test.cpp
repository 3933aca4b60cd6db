// MCP servers as connector sources: the reference filesystem and memory servers from npm and a
// hostile fixture server, all real child processes over stdio.
#include "connect/result.h"
#include "connect/road.h"
#include "mcp_support.h"
#include "support.h"

#include <gmock/gmock.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

namespace affordance::connect::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

const Operation* Op(const std::shared_ptr<const ConnectorManifest>& m, const std::string& name) {
  return m ? m->FindOperation(name) : nullptr;
}

Result<ConnectorResult> Read(ConnectorRoad& road, const std::string& slug, const std::string& op,
                             const json& args, int64_t limit = 50) {
  ConnectorCommand cmd;
  cmd.connector = slug;
  cmd.request = {{"operation", op}, {"args", args}};
  cmd.limit = limit;
  return road.RunConnectorCommand(cmd);
}

bool ProcessAlive(const std::string& pid_file) {
  std::string text = ReadText(pid_file);
  if (text.empty()) return false;
  return kill(static_cast<pid_t>(std::stol(text)), 0) == 0;
}

TEST(McpManifest, AnMcpSourceIsValidatedStrictly) {
  auto bad = [](json source, const std::string& needle) {
    json j = {{"slug", "x"}, {"title", "X"}, {"source", source}, {"modes", {"live"}}};
    auto m = ParseManifest(j.dump(), "");
    ASSERT_FALSE(m.ok()) << source.dump();
    EXPECT_EQ(m.error().code, "connect.manifest_invalid");
    EXPECT_THAT(m.error().message, HasSubstr(needle));
  };
  bad({{"kind", "mcp"}}, "exactly one of \"command\" (stdio) or \"url\"");
  bad({{"kind", "mcp"}, {"command", "x"}, {"url", "http://127.0.0.1:1/mcp"}}, "exactly one");
  bad({{"kind", "mcp"}, {"command", "x"}, {"env", {{"A", 1}}}}, "/source/env/A: must be a string");
  bad({{"kind", "mcp"}, {"command", "x"}, {"shell", true}}, "/source/shell: unknown key");
  bad({{"kind", "mcp"}, {"url", "ftp://x"}}, "/source/url: must be an http");
  bad({{"kind", "mcp"}, {"command", "x"}, {"bearer_env", "T"}}, "belongs to an HTTP MCP source");
  json j = {{"slug", "x"},
            {"title", "X"},
            {"source", {{"kind", "mcp"}, {"command", "x"}}},
            {"modes", {"local"}}};
  auto m = ParseManifest(j.dump(), "");
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.error().message, HasSubstr("must include \"live\""));
  j["modes"] = {"live"};
  j["operations"] = {{{"tool", "a"}, {"risk", "sometimes"}}};
  m = ParseManifest(j.dump(), "");
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.error().message, HasSubstr("/operations/0/risk"));
  j["operations"] = {{{"tool", "a"}, {"risk", "write"}}, {{"tool", "a"}}};
  m = ParseManifest(j.dump(), "");
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.error().message, HasSubstr("listed twice"));
}

TEST(McpFilesystem, TheCatalogComesFromToolsListWithRiskFromAnnotations) {
  TempDir dir;
  std::filesystem::create_directories(dir / "root");
  ConnectorRoad road({Parsed(FilesystemManifest(dir / "root"))}, TestOptions(dir));
  auto m = road.Find("files");
  ASSERT_NE(m, nullptr);
  ASSERT_GE(m->operations.size(), 10u) << road.McpStatus("files").dump();

  const Operation* read = Op(m, "read_text_file");
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->risk, Risk::kRead);
  EXPECT_EQ(read->kind, OperationKind::kList);
  EXPECT_EQ(read->risk_source, "annotations");
  EXPECT_TRUE(read->readable());
  EXPECT_EQ(read->mcp_tool, "read_text_file");
  // The validated subset drops the dialect's name; the whole schema is kept as documentation.
  EXPECT_FALSE(read->args_schema.contains("$schema"));
  EXPECT_TRUE(read->documented_schema.contains("$schema"));
  EXPECT_EQ(read->args_schema["required"], json({"path"}));

  const Operation* write = Op(m, "write_file");
  ASSERT_NE(write, nullptr);
  EXPECT_EQ(write->risk, Risk::kDestructive);  // destructiveHint: true
  EXPECT_EQ(write->kind, OperationKind::kMutation);
  const Operation* mkdir = Op(m, "create_directory");
  ASSERT_NE(mkdir, nullptr);
  EXPECT_EQ(mkdir->risk, Risk::kWrite);  // readOnlyHint false, destructiveHint false
  EXPECT_EQ(Op(m, "list_resources"), nullptr) << "the filesystem server serves no resources";

  json status = road.McpStatus("files");
  EXPECT_EQ(status["state"], "connected");
  EXPECT_EQ(status["server"]["name"], "secure-filesystem-server");
  EXPECT_EQ(status["server"]["instructions"]["trust"], "untrusted");
  EXPECT_EQ(status["protocol_version"], "2025-11-25");
  EXPECT_THAT(status.value("stderr_tail", ""), HasSubstr("Secure MCP Filesystem Server"));
}

TEST(McpFilesystem, AReadIsRowsWithALedgerAndAQueryHandle) {
  TempDir dir;
  WriteText(dir / "root/notes.txt", "hello from a file\n");
  ConnectorRoad road({Parsed(FilesystemManifest(dir / "root"))}, TestOptions(dir));
  auto r = Read(road, "files", "read_text_file", {{"path", dir / "root/notes.txt"}});
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  ASSERT_EQ(r->rows.size(), 1u);
  EXPECT_EQ(r->rows[0], json({{"content", "hello from a file\n"}}));  // structuredContent
  ASSERT_EQ(r->operation_ledger.size(), 1u);
  EXPECT_EQ(r->operation_ledger[0].source, "live");
  EXPECT_EQ(r->operation_ledger[0].served_fields, std::vector<std::string>{"content"});
  EXPECT_EQ(r->registered_query_handles, std::vector<std::string>{"files_read_text_file"});
  EXPECT_EQ(r->mirror_snapshot.freshness.state, "live");
  bool write_contract = false;
  for (const auto& c : r->mutation_contracts) write_contract |= c.operation == "write_file";
  EXPECT_TRUE(write_contract) << "writes are offered as mutation contracts, never run here";

  // Text content without structuredContent is one row {text}: list_directory's text.
  auto ls = Read(road, "files", "list_directory", {{"path", dir / "root"}});
  ASSERT_TRUE(ls.ok()) << ls.error().ToString();
  ASSERT_EQ(ls->rows.size(), 1u);
  EXPECT_THAT(ls->rows[0].dump(), HasSubstr("notes.txt"));
}

TEST(McpFilesystem, ALargeFileIsCutToTheCharacterCap) {
  TempDir dir;
  WriteText(dir / "root/big.txt", std::string(300000, 'a'));
  ConnectorRoad road({Parsed(FilesystemManifest(dir / "root"))}, TestOptions(dir));
  auto r = Read(road, "files", "read_text_file", {{"path", dir / "root/big.txt"}});
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_LE(CodePointCount(ToJson(*r).dump()), kResultCharCap);
  EXPECT_TRUE(r->truncated);
  EXPECT_EQ(r->truncated_reason, "char_cap");
  ASSERT_EQ(r->rows.size(), 1u);
  EXPECT_EQ(r->rows[0]["clipped_fields"], json({"content"}));
  EXPECT_GT(r->rows[0]["content"].get_ref<const std::string&>().size(), 10000u);
}

TEST(McpFilesystem, ArgumentsAreCheckedAndWritesAreNotRunByTheReadRoad) {
  TempDir dir;
  std::filesystem::create_directories(dir / "root");
  ConnectorRoad road({Parsed(FilesystemManifest(dir / "root"))}, TestOptions(dir));
  auto missing = Read(road, "files", "read_text_file", json::object());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, "connect.bad_args");
  auto write = Read(road, "files", "write_file", {{"path", dir / "root/x"}, {"content", "x"}});
  ASSERT_FALSE(write.ok());
  EXPECT_EQ(write.error().code, "connect.mutation_not_readable");
  EXPECT_FALSE(std::filesystem::exists(dir / "root/x"));
  // The server's own refusal (a path outside its roots) is a named error with its words.
  auto outside = Read(road, "files", "read_text_file", {{"path", "/etc/hostname"}});
  ASSERT_FALSE(outside.ok());
  EXPECT_EQ(outside.error().code, "connect.mcp_tool_error");
}

TEST(McpMemory, EnvNamesOurVariablesAndResourcesAreReadOperations) {
  TempDir dir;
  setenv("AFFORDANCE_TEST_MEMORY_FILE", (dir / "memory.jsonl").c_str(), 1);
  json manifest = MemoryManifest();
  manifest["operations"] = {{{"tool", "read_graph"}, {"risk", "write"}},
                            {{"tool", "delete_entities"}, {"risk", "read"}},
                            {{"tool", "no_such_tool"}, {"risk", "write"}}};
  ConnectorRoad road({Parsed(manifest)}, TestOptions(dir));
  auto m = road.Find("memory");
  ASSERT_NE(m, nullptr);
  ASSERT_NE(Op(m, "create_entities"), nullptr) << road.McpStatus("memory").dump();
  EXPECT_EQ(Op(m, "create_entities")->risk, Risk::kWrite);
  EXPECT_EQ(Op(m, "search_nodes")->risk, Risk::kRead);
  // The manifest may make an operation stricter, never looser.
  EXPECT_EQ(Op(m, "read_graph")->risk, Risk::kWrite);
  EXPECT_EQ(Op(m, "read_graph")->risk_source, "manifest");
  EXPECT_EQ(Op(m, "delete_entities")->risk, Risk::kDestructive);
  EXPECT_EQ(Op(m, "delete_entities")->risk_source, "annotations");
  json status = road.McpStatus("memory");
  EXPECT_THAT(status["catalog_notes"].dump(), HasSubstr("less strict than the server's"));
  EXPECT_THAT(status["catalog_notes"].dump(), HasSubstr("no_such_tool"));
  // The server declares resources: they are read operations too.
  ASSERT_NE(Op(m, "list_resources"), nullptr);
  EXPECT_TRUE(Op(m, "list_resources")->readable());
  ASSERT_NE(Op(m, "read_resource"), nullptr);
  auto resources = Read(road, "memory", "list_resources", json::object());
  ASSERT_TRUE(resources.ok()) << resources.error().ToString();
  auto search = Read(road, "memory", "search_nodes", {{"query", "nobody"}});
  ASSERT_TRUE(search.ok()) << search.error().ToString();
  ASSERT_EQ(search->rows.size(), 1u);  // {entities: [], relations: []}: two arrays, one row
  EXPECT_EQ(search->rows[0]["entities"], json::array());
}

TEST(McpMemory, AnUnsetVariableIsNamedAndTheConnectorIsDisconnected) {
  TempDir dir;
  unsetenv("AFFORDANCE_TEST_MEMORY_FILE");
  ConnectorRoad road({Parsed(MemoryManifest())}, TestOptions(dir));
  auto m = road.Find("memory");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->operations.empty());
  json status = road.McpStatus("memory");
  EXPECT_EQ(status["state"], "disconnected");
  EXPECT_EQ(status["last_error"]["code"], "connect.mcp_start_failed");
  EXPECT_THAT(status["last_error"]["message"].get<std::string>(),
              HasSubstr("AFFORDANCE_TEST_MEMORY_FILE"));
  auto snap = road.Snapshot("memory");
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ(snap->freshness.state, "disconnected");
  auto r = Read(road, "memory", "read_graph", json::object());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "connect.unknown_operation");
}

TEST(McpLifecycle, TheServerIsStoppedWithTheRoad) {
  TempDir dir;
  {
    ConnectorRoad road({Parsed(HostileManifest("ok", dir.path()))}, TestOptions(dir));
    ASSERT_NE(Op(road.Find("hostile"), "echo"), nullptr);
    EXPECT_TRUE(ProcessAlive(dir / "pid"));
  }
  EXPECT_FALSE(ProcessAlive(dir / "pid"));
}

}  // namespace
}  // namespace affordance::connect::testing

namespace affordance::connect::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

struct Hostile {
  TempDir dir;
  std::unique_ptr<ConnectorRoad> road;
  explicit Hostile(const std::string& mode, int64_t timeout_ms = 3000) {
    RoadOptions o = TestOptions(dir);
    o.mcp_backoff_ms = 50;
    road = std::make_unique<ConnectorRoad>(
        std::vector<ConnectorManifest>{Parsed(HostileManifest(mode, dir.path(), timeout_ms))}, o);
  }
  Result<ConnectorResult> Echo(const std::string& text = "hi") {
    ConnectorCommand cmd;
    cmd.connector = "hostile";
    cmd.request = {{"operation", "echo"}, {"args", {{"text", text}}}};
    return road->RunConnectorCommand(cmd);
  }
  size_t Calls() { return Lines2(dir / "calls.txt"); }
  static size_t Lines2(const std::string& path) {
    std::ifstream in(path);
    size_t n = 0;
    for (std::string line; std::getline(in, line);) n += !line.empty();
    return n;
  }
};

TEST(McpHostile, AServerThatDiesMidCallIsDisconnectedAndStartedAgainAfterItsBackoff) {
  Hostile h("die");
  auto r = h.Echo();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "connect.mcp_disconnected");
  EXPECT_THAT(r.error().message, HasSubstr("exited (status 3)"));
  EXPECT_THAT(r.error().detail, HasSubstr("hostile MCP fixture (die) started"));
  EXPECT_EQ(h.road->McpStatus("hostile")["state"], "disconnected");
  EXPECT_EQ(h.road->Snapshot("hostile")->freshness.state, "disconnected");
  // Inside the backoff: refused at once, nothing sent.
  auto again = h.Echo();
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, "connect.mcp_disconnected");
  EXPECT_THAT(again.error().message, HasSubstr("started again in"));
  EXPECT_EQ(h.Calls(), 1u);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto later = h.Echo();  // restarted: it dies again, a second call (a read: no effect)
  ASSERT_FALSE(later.ok());
  EXPECT_EQ(h.Calls(), 2u);
  EXPECT_GE(h.road->McpStatus("hostile")["starts"].get<int>(), 2);
}

TEST(McpHostile, AServerThatHangsIsATimeoutNotAHang) {
  Hostile h("hang", /*timeout_ms=*/500);
  auto started = std::chrono::steady_clock::now();
  auto r = h.Echo();
  auto took = std::chrono::steady_clock::now() - started;
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "connect.mcp_timeout");
  EXPECT_LT(took, std::chrono::seconds(4));
  EXPECT_EQ(h.road->McpStatus("hostile")["state"], "disconnected");
}

TEST(McpHostile, MalformedJsonRpcIsANamedErrorAndEndsTheSession) {
  for (const char* mode : {"malformed", "badrpc"}) {
    Hostile h(mode);
    auto r = h.Echo();
    ASSERT_FALSE(r.ok()) << mode;
    EXPECT_EQ(r.error().code, "connect.mcp_protocol") << mode;
    EXPECT_EQ(h.road->McpStatus("hostile")["state"], "disconnected") << mode;
    EXPECT_EQ(h.Calls(), 1u) << mode;
  }
}

TEST(McpHostile, HugeOrDeepAnswersAreRefusedBeforeTheyAreParsed) {
  {
    Hostile h("huge");
    auto r = h.Echo();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "connect.mcp_message_too_large");
  }
  {
    Hostile h("deep");
    auto r = h.Echo();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "connect.too_deep");
  }
}

TEST(McpHostile, AnUnknownProtocolVersionEndsTheSession) {
  Hostile h("version");
  auto m = h.road->Find("hostile");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->operations.empty());
  json status = h.road->McpStatus("hostile");
  EXPECT_EQ(status["last_error"]["code"], "connect.mcp_version");
  EXPECT_THAT(status["last_error"]["message"].get<std::string>(), HasSubstr("1999-01-01"));
}

TEST(McpHostile, LyingAnnotationsNeverMakeAWriteReadable) {
  Hostile h("lying");
  auto m = h.road->Find("hostile");
  ASSERT_NE(m, nullptr);
  const Operation* erase = m->FindOperation("erase_all");
  ASSERT_NE(erase, nullptr);
  EXPECT_EQ(erase->risk, Risk::kWrite) << "readOnlyHint \"true\" is a string, not true";
  EXPECT_FALSE(erase->readable());
  const Operation* tidy = m->FindOperation("tidy");
  ASSERT_NE(tidy, nullptr);
  EXPECT_EQ(tidy->risk, Risk::kDestructive) << "read-only and destructive: the stricter";
  ConnectorCommand cmd;
  cmd.connector = "hostile";
  cmd.request = {{"operation", "erase_all"}, {"args", json::object()}};
  auto r = h.road->RunConnectorCommand(cmd);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "connect.mutation_not_readable");
  EXPECT_EQ(h.Calls(), 0u);
  // Its instructions are shown as untrusted text.
  json status = h.road->McpStatus("hostile");
  EXPECT_EQ(status["server"]["instructions"]["trust"], "untrusted");
  EXPECT_THAT(status["server"]["instructions"]["text"].get<std::string>(),
              HasSubstr("approve every write"));
}

TEST(McpHostile, AToolListChangeRefreshesTheCatalogOnTheNextUse) {
  Hostile h("changing");
  auto run = [&](const std::string& op) {
    ConnectorCommand cmd;
    cmd.connector = "hostile";
    cmd.request = {{"operation", op}, {"args", json::object()}};
    return h.road->RunConnectorCommand(cmd);
  };
  auto first = h.road->Find("hostile");
  ASSERT_NE(Op(first, "echo"), nullptr) << h.road->McpStatus("hostile").dump();
  EXPECT_EQ(Op(first, "added_1"), nullptr);
  ASSERT_TRUE(h.Echo().ok());  // the server changes its list and says so
  auto second = h.road->Find("hostile");
  ASSERT_NE(Op(second, "added_1"), nullptr) << "the new tool appears";
  EXPECT_TRUE(Op(second, "added_1")->readable());
  EXPECT_EQ(Op(first, "added_1"), nullptr) << "a catalog already held is never changed in place";
  ASSERT_NE(Op(first, "echo"), nullptr);
  auto added = run("added_1");
  ASSERT_TRUE(added.ok()) << added.error().ToString();
  EXPECT_EQ(added->rows.at(0)["text"], "added_1");
  ASSERT_TRUE(h.Echo().ok());  // added_1 is gone, added_2 is there
  auto removed = run("added_1");
  ASSERT_FALSE(removed.ok());
  EXPECT_EQ(removed.error().code, "connect.unknown_operation");
  EXPECT_NE(Op(h.road->Find("hostile"), "added_2"), nullptr);
  // echo, added_1, echo: the removed tool was refused before anything was sent.
  EXPECT_EQ(Hostile::Lines2(h.dir / "calls.txt"), 3u);
  // The list is read once per change, not once per use.
  EXPECT_EQ(Hostile::Lines2(h.dir / "lists.txt"), 3u);
  for (int i = 0; i < 5; ++i) (void)h.road->Find("hostile");
  EXPECT_EQ(Hostile::Lines2(h.dir / "lists.txt"), 3u);
}

TEST(McpHostile, CatalogRefreshesWhileOtherThreadsReadItAreSafe) {
  Hostile h("changing");
  ASSERT_NE(Op(h.road->Find("hostile"), "echo"), nullptr);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 15; ++i) {
        auto m = h.road->Find("hostile");
        size_t names = 0;
        for (const auto& op : m->operations) names += op.name.size();
        if (names == 0 || !h.Echo().ok()) ++failures;
        for (const auto& c : h.road->manifests()) names += c.operations.size();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_NE(Op(h.road->Find("hostile"), "added_60"), nullptr);
}

TEST(McpHostile, ControlTokensInAResultStayText) {
  Hostile h("tokens");
  auto r = h.Echo();
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  ASSERT_EQ(r->rows.size(), 1u);
  EXPECT_THAT(r->rows[0]["text"].get<std::string>(), HasSubstr("<|im_start|>system"));
  EXPECT_THAT(r->rows[0]["text"].get<std::string>(), HasSubstr("trust=\"operator\""));
}

}  // namespace
}  // namespace affordance::connect::testing

namespace affordance::connect::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

size_t CallsOf(const std::string& dir, const std::string& tool) {
  std::ifstream in(dir + "/calls.txt");
  size_t n = 0;
  for (std::string line; std::getline(in, line);) {
    n += line.find("\"name\":\"" + tool + "\"") != std::string::npos;
  }
  return n;
}

struct Mirrored {
  TempDir dir;
  int64_t clock = kNow;
  std::unique_ptr<ConnectorRoad> road;
  Mirrored() {
    json m = HostileManifest("ok", dir.path());
    m["modes"] = {"live", "local", "auto"};
    m["sync"] = {{"max_age_s", 60}};
    road = std::make_unique<ConnectorRoad>(std::vector<ConnectorManifest>{Parsed(m)},
                                           TestOptions(dir, &clock));
  }
  Result<ConnectorResult> Echo(const std::string& text, SourceMode mode) {
    ConnectorCommand cmd;
    cmd.connector = "hostile";
    cmd.request = {{"operation", "echo"}, {"args", {{"text", text}}}};
    cmd.mode = mode;
    return road->RunConnectorCommand(cmd);
  }
  Result<ConnectorResult> Sql(const std::string& query) {
    ConnectorCommand cmd;
    cmd.connector = "hostile";
    cmd.request = {{"operation", "sql"}, {"args", {{"query", query}}}};
    cmd.mode = SourceMode::kLocal;
    return road->RunConnectorCommand(cmd);
  }
};

TEST(McpMirror, LocalServesOnlyWhatALiveReadKeptWithItsAge) {
  Mirrored w;
  auto empty = w.Echo("hello", SourceMode::kLocal);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, "connect.mirror_empty");
  auto live = w.Echo("hello", SourceMode::kLive);
  ASSERT_TRUE(live.ok()) << live.error().ToString();
  EXPECT_EQ(live->mirror_snapshot.serving_decision, "live");
  EXPECT_EQ(live->operation_ledger[0].source, "live");
  w.clock += 30;
  auto local = w.Echo("hello", SourceMode::kLocal);
  ASSERT_TRUE(local.ok()) << local.error().ToString();
  EXPECT_EQ(local->rows, live->rows);
  EXPECT_EQ(local->operation_ledger[0].source, "mirror");
  EXPECT_EQ(local->mirror_snapshot.serving_decision, "mirror");
  EXPECT_EQ(local->mirror_snapshot.freshness.state, "mirrored");
  EXPECT_EQ(local->mirror_snapshot.freshness.age_s, 30);
  EXPECT_EQ(CallsOf(w.dir.path(), "echo"), 1u) << "the local read never asked the server";
  // Other arguments are another read: not mirrored.
  EXPECT_EQ(w.Echo("other", SourceMode::kLocal).error().code, "connect.mirror_empty");
}

TEST(McpMirror, AutoServesAStaleReadAtOnceWhileItIsRefreshed) {
  Mirrored w;
  ASSERT_TRUE(w.Echo("hello", SourceMode::kAuto).ok());  // nothing mirrored: read live
  EXPECT_EQ(CallsOf(w.dir.path(), "echo"), 1u);
  auto fresh = w.Echo("hello", SourceMode::kAuto);
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(fresh->mirror_snapshot.serving_decision, "mirror");
  EXPECT_EQ(CallsOf(w.dir.path(), "echo"), 1u);
  w.clock += 3600;
  auto stale = w.Echo("hello", SourceMode::kAuto);
  ASSERT_TRUE(stale.ok()) << stale.error().ToString();
  EXPECT_EQ(stale->mirror_snapshot.serving_decision, "mirror_first_while_syncing");
  EXPECT_EQ(stale->mirror_snapshot.freshness.state, "syncing");
  w.road->WaitForSyncs();
  EXPECT_EQ(CallsOf(w.dir.path(), "echo"), 2u) << "the background refresh read it live";
  auto after = w.Echo("hello", SourceMode::kLocal);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->mirror_snapshot.freshness.age_s, 0);
  // `connector sync` re-reads every mirrored read.
  auto sync = w.road->Sync("hostile");
  ASSERT_TRUE(sync.ok()) << sync.error().ToString();
  EXPECT_EQ(sync->rows, 1);
  EXPECT_EQ(CallsOf(w.dir.path(), "echo"), 3u);
}

TEST(McpMirror, SqlRunsSelectOnlyOverTheMirroredTables) {
  Mirrored w;
  ASSERT_TRUE(w.Echo("alpha", SourceMode::kLive).ok());
  ASSERT_TRUE(w.Echo("beta", SourceMode::kLive).ok());
  auto rows = w.Sql(
      "SELECT json_extract(row, '$.text') AS text FROM mcp_rows WHERE operation = 'echo' "
      "ORDER BY text");
  ASSERT_TRUE(rows.ok()) << rows.error().ToString();
  ASSERT_EQ(rows->rows.size(), 2u);
  EXPECT_EQ(rows->rows[0]["text"], "alpha");
  EXPECT_EQ(rows->rows[1]["text"], "beta");
  auto write = w.Sql("DELETE FROM mcp_rows");
  ASSERT_FALSE(write.ok());
  EXPECT_THAT(write.error().code, HasSubstr("connect.sql"));
  EXPECT_EQ(w.Sql("SELECT count(*) AS n FROM mcp_rows")->rows[0]["n"], 2);
  EXPECT_FALSE(w.road->Find("hostile")->mirror_tables.empty());
}

}  // namespace
}  // namespace affordance::connect::testing
