// `affordance connector ...` end to end: the real binary, the example manifests, real mirrors.
#include "connect/process.h"
#include "support.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <map>

namespace affordance::connect {
namespace {

using nlohmann::json;
using testing::Source;
using testing::TempDir;

struct Cli {
  TempDir data;
  ProcessOutput Run(std::vector<std::string> args) {
    std::vector<std::string> argv = {AFFORDANCE_CLI, "connector",
                                     "--connectors", Source("examples/connectors"),
                                     "--data",       data.path()};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = RunProcess(argv, 60000);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().ToString());
    return r.ok() ? r.value() : ProcessOutput{};
  }
};

TEST(ConnectorCli, ListShowsTheExampleConnectors) {
  Cli cli;
  auto out = cli.Run({"list", "--json"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  json j = json::parse(out.out);
  ASSERT_EQ(j["connectors"].size(), 2u);
  EXPECT_EQ(j["connectors"][0]["slug"], "calendar");
  EXPECT_EQ(j["connectors"][0]["freshness"], "empty");
  EXPECT_EQ(j["connectors"][1]["source"], "printed_cli");
  auto human = cli.Run({"list"});
  EXPECT_NE(human.out.find("calendar         ics"), std::string::npos) << human.out;
}

TEST(ConnectorCli, SyncRunAndSqlOverTheCalendar) {
  Cli cli;
  auto sync = cli.Run({"sync", "calendar", "--json"});
  ASSERT_EQ(sync.exit_code, 0) << sync.out << sync.err;
  EXPECT_GT(json::parse(sync.out)["rows"].get<int>(), 5);
  // Not a terminal: plain progress lines on stderr.
  EXPECT_NE(sync.err.find("sync calendar: write 0/"), std::string::npos) << sync.err;

  auto run = cli.Run({"run", "calendar", "--operation", "search_events", "--args",
                      R"({"text":"dentist"})", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.out;
  json r = json::parse(run.out);
  EXPECT_EQ(r["rows"].size(), 1u);
  EXPECT_EQ(r["rows"][0]["summary"], "Dentist");
  EXPECT_EQ(r["mirror_snapshot"]["serving_decision"], "mirror");

  auto words = cli.Run({"run", "calendar", "what", "conflicts", "next", "week?", "--json"});
  ASSERT_EQ(words.exit_code, 0) << words.out;
  json w = json::parse(words.out);
  EXPECT_EQ(w["status"], "unresolved");
  EXPECT_EQ(w["candidates"].size(), 6u);  // every operation of the calendar: it names none

  auto sql =
      cli.Run({"sql", "calendar", "SELECT count(*) AS n FROM events WHERE all_day = 1", "--json"});
  ASSERT_EQ(sql.exit_code, 0) << sql.out;
  EXPECT_EQ(json::parse(sql.out)["rows"][0]["n"], 1);
}

TEST(ConnectorCli, ErrorsAreJsonWithCodesAndExitStatus) {
  Cli cli;
  ASSERT_EQ(cli.Run({"sync", "calendar"}).exit_code, 0);
  auto denied = cli.Run({"sql", "calendar", "DELETE FROM events", "--json"});
  EXPECT_EQ(denied.exit_code, 1);
  EXPECT_EQ(json::parse(denied.out)["error"]["code"], "connect.sql_denied");
  auto unknown = cli.Run({"run", "nope", "anything", "--json"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(json::parse(unknown.out)["error"]["code"], "connect.unknown_connector");
  auto bad_args =
      cli.Run({"run", "calendar", "--operation", "event_detail", "--args", "{", "--json"});
  EXPECT_EQ(bad_args.exit_code, 2);
  EXPECT_EQ(json::parse(bad_args.out)["error"]["code"], "connect.bad_args");
  auto human = cli.Run({"sql", "calendar", "DROP TABLE events"});
  EXPECT_EQ(human.exit_code, 1);
  EXPECT_NE(human.err.find("[connect.sql_denied]"), std::string::npos) << human.err;

  TempDir broken;
  testing::WriteText(broken / "bad.json", R"({"slug": "x"})");
  auto bad = RunProcess(
      {AFFORDANCE_CLI, "connector", "--connectors", broken.path(), "list", "--json"}, 10000);
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ(bad->exit_code, 2);  // a bad manifest is bad input, at every command (ErrorKind)
  json e = json::parse(bad->out)["error"];
  EXPECT_EQ(e["code"], "connect.manifest_invalid");
  EXPECT_EQ(e["category"], "invalid");
  EXPECT_EQ(e["message"], "/title: is required");
  EXPECT_EQ(e["detail"], broken / "bad.json");
}

unsigned ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// Issue 24: a mirror holds the connector's rows, so it is as private as the store: its folder 0700,
// the file 0600, even under umask 000.
TEST(ConnectorCli, MirrorsArePrivate) {
  Cli cli;
  auto sync = RunProcess({"/bin/sh", "-c", "umask 000; exec \"$0\" \"$@\"", AFFORDANCE_CLI,
                          "connector", "--connectors", Source("examples/connectors"), "--data",
                          cli.data.path(), "sync", "calendar"},
                         60000);
  ASSERT_TRUE(sync.ok());
  ASSERT_EQ(sync->exit_code, 0) << sync->err;
  EXPECT_EQ(ModeOf(cli.data / "calendar"), 0700u);
  EXPECT_EQ(ModeOf(cli.data / "calendar/mirror.db"), 0600u);
}

// Issue 24: --args and manifests deeper than the JSON limit are typed errors. Linux caps one
// argument at 128 KiB: --args carries 60,000 levels, a manifest a million.
TEST(ConnectorCli, InputNestedTooDeepIsRefused) {
  Cli cli;
  auto deep = cli.Run({"run", "calendar", "--operation", "event_detail", "--args",
                       std::string(60000, '[') + std::string(60000, ']'), "--json"});
  EXPECT_EQ(deep.exit_code, 2);
  json e = json::parse(deep.out)["error"];
  EXPECT_EQ(e["code"], "cli.too_deep");
  EXPECT_EQ(e["message"], "--args nests deeper than 128 levels of arrays and objects");

  TempDir manifests;
  testing::WriteText(manifests / "deep.json",
                     "{\"slug\": " + std::string(1000000, '[') + std::string(1000000, ']') + "}");
  auto bad = RunProcess(
      {AFFORDANCE_CLI, "connector", "--connectors", manifests.path(), "list", "--json"}, 10000);
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ(bad->exit_code, 2);
  e = json::parse(bad->out)["error"];
  EXPECT_EQ(e["code"], "connect.too_deep");
  EXPECT_EQ(e["message"], "the manifest nests deeper than 128 levels of arrays and objects");
  EXPECT_EQ(e["detail"], manifests / "deep.json" + ": limit 128");
}

}  // namespace
}  // namespace affordance::connect

namespace affordance::connect {
namespace {

// The example MCP manifests (examples/connectors/mcp): the reference servers from tools/.
TEST(ConnectorCli, TheExampleMcpServersShowTheirCatalogRiskSourcesAndReadAsRows) {
  TempDir data;
  setenv("AFFORDANCE_MEMORY_FILE", (data / "memory.jsonl").c_str(), 1);
  auto run = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = {AFFORDANCE_CLI, "connector",
                                     "--connectors", testing::Source("examples/connectors/mcp"),
                                     "--data",       data.path()};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = RunProcess(argv, 60000);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().ToString());
    return r.ok() ? r.value() : ProcessOutput{};
  };
  auto list = run({"list", "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  json j = json::parse(list.out);
  ASSERT_EQ(j["connectors"].size(), 2u);
  const json& files = j["connectors"][0];
  EXPECT_EQ(files["slug"], "files");
  EXPECT_EQ(files["source"], "mcp");
  EXPECT_EQ(files["mcp"]["state"], "connected") << files.dump();
  EXPECT_EQ(files["mcp"]["server"]["name"], "secure-filesystem-server");
  EXPECT_EQ(files["freshness"], "live");
  std::map<std::string, json> ops;
  for (const auto& op : files["operations"]) ops[op["name"].get<std::string>()] = op;
  EXPECT_EQ(ops["read_text_file"]["risk"], "read");
  EXPECT_EQ(ops["read_text_file"]["risk_source"], "annotations");
  EXPECT_EQ(ops["read_text_file"]["trust"], "untrusted");
  EXPECT_TRUE(ops["read_text_file"]["input_schema"].contains("$schema"));
  EXPECT_EQ(ops["write_file"]["risk"], "destructive");
  EXPECT_EQ(ops["write_file"]["kind"], "mutation");
  EXPECT_EQ(ops["write_file"]["verify"], "read_text_file");
  const json& memory = j["connectors"][1];
  EXPECT_EQ(memory["slug"], "memory");
  EXPECT_EQ(memory["mcp"]["server"]["instructions"]["trust"], "untrusted");

  auto read = run({"run", "files", "--operation", "read_text_file", "--args",
                   R"({"path": "offsite.txt"})", "--json"});
  ASSERT_EQ(read.exit_code, 0) << read.out << read.err;
  json r = json::parse(read.out);
  ASSERT_EQ(r["rows"].size(), 1u);
  EXPECT_NE(r["rows"][0]["content"].get<std::string>().find("Team offsite"), std::string::npos);
  EXPECT_EQ(r["operation_ledger"][0]["source"], "live");

  auto write = run({"run", "files", "--operation", "write_file", "--args",
                    R"({"path": "x.txt", "content": "x"})", "--json"});
  EXPECT_EQ(write.exit_code, 2) << write.out;
  EXPECT_EQ(json::parse(write.out)["error"]["code"], "connect.mutation_not_readable");
}

}  // namespace
}  // namespace affordance::connect
