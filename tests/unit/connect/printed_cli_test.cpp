// The printed CLI bridge, against fixture-pp-cli: a real child process that follows the Printing
// Press contract (--agent, {results, meta}, exit codes, which, sql, sync, a SQLite mirror).
#include "connect/printed_cli.h"
#include "connect/process.h"
#include "connect/road.h"
#include "support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

namespace affordance::connect {
namespace {

using nlohmann::json;
using testing::ReadText;
using testing::ScriptedChooser;
using testing::Source;
using testing::TempDir;
using testing::TestOptions;

class PrintedCli : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("XDG_DATA_HOME", dir_.path().c_str(), 1);
    unsetenv("FIXTURE_PP_AUTH_FAIL");
    unsetenv("FIXTURE_PP_SYNC_SLEEP_MS");
    unsetenv("FIXTURE_PP_TOKEN");
    unsetenv("FIXTURE_PP_FAIL_IDS");
    json j = json::parse(ReadText(Source("examples/connectors/fixture-cli.json")));
    j["source"]["command"] = FIXTURE_PP_CLI;
    j["source"]["timeout_ms"] = 5000;
    j["operations"].push_back(
        {{"name", "fail"},
         {"kind", "list"},
         {"argv", {"fail"}},
         {"positional", {"code"}},
         {"args", {{"type", "object"}, {"properties", {{"code", {{"type", "integer"}}}}}}}});
    j["operations"].push_back(
        {{"name", "nap"},
         {"kind", "list"},
         {"argv", {"sleep"}},
         {"positional", {"ms"}},
         {"args", {{"type", "object"}, {"properties", {{"ms", {{"type", "integer"}}}}}}}});
    j["operations"].push_back({{"name", "garbage"}, {"kind", "list"}, {"argv", {"garbage"}}});
    j["operations"].push_back(
        {{"name", "nested"},
         {"kind", "list"},
         {"argv", {"nested"}},
         {"positional", {"levels", "code"}},
         {"args",
          {{"type", "object"},
           {"properties", {{"levels", {{"type", "integer"}}}, {"code", {{"type", "integer"}}}}}}}});
    j["operations"].push_back({{"name", "partial"}, {"kind", "list"}, {"argv", {"partial"}}});
    manifest_json_ = j;
  }
  void TearDown() override {
    unsetenv("XDG_DATA_HOME");
    unsetenv("FIXTURE_PP_FAIL_IDS");
    unsetenv("FIXTURE_PP_ITEMS");
  }

  std::unique_ptr<ConnectorRoad> Road(std::function<void(json&)> edit = {}) {
    json j = manifest_json_;
    if (edit) edit(j);
    auto m = ParseManifest(j.dump(), "");
    EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().ToString());
    return std::make_unique<ConnectorRoad>(std::vector<ConnectorManifest>{m.value()},
                                           TestOptions(dir_));
  }
  static ConnectorCommand Named(const std::string& op, json args = json::object(),
                                std::optional<SourceMode> mode = std::nullopt,
                                std::optional<int64_t> limit = std::nullopt) {
    return {"fixture", {{"operation", op}, {"args", std::move(args)}}, limit, mode};
  }

  TempDir dir_;
  json manifest_json_;
};

TEST_F(PrintedCli, SyncFillsTheCliMirrorAndLocalReadsServeIt) {
  auto road = Road();
  auto sync = road->Sync("fixture");
  ASSERT_TRUE(sync.ok()) << sync.error().ToString();
  EXPECT_EQ(sync->rows, 30);
  EXPECT_TRUE(std::filesystem::exists(dir_ / "fixture-pp-cli/data.db"));
  auto r =
      road->RunConnectorCommand(Named("list_items", {{"status", "closed"}}, SourceMode::kLocal));
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->rows.size(), 10u);
  EXPECT_EQ(r->rows[0], json::parse(R"({"id":"3","title":"Item 3","status":"closed"})"));
  EXPECT_EQ(r->operation_ledger.at(0).source, "mirror");
  EXPECT_EQ(r->operation_ledger.at(0).served_fields,
            (std::vector<std::string>{"id", "status", "title"}));
  EXPECT_EQ(r->mirror_snapshot.serving_decision, "cli_local");
  EXPECT_EQ(r->mirror_snapshot.freshness.synced_at, 1795953600);  // 2026-11-29T12:00:00Z
  EXPECT_EQ(r->mirror_snapshot.freshness.state, "mirrored");
  EXPECT_EQ(r->mirror_snapshot.credential_state, "missing");  // FIXTURE_PP_TOKEN unset
}

TEST_F(PrintedCli, LiveModeAsksTheCliForLiveData) {
  auto road = Road();
  setenv("FIXTURE_PP_TOKEN", "t", 1);
  auto r = road->RunConnectorCommand(Named("list_items", json::object(), SourceMode::kLive, 5));
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->rows.size(), 5u);
  EXPECT_EQ(r->total_rows, 30);
  EXPECT_EQ(r->operation_ledger.at(0).source, "live");
  EXPECT_EQ(r->mirror_snapshot.freshness.state, "live");
  EXPECT_EQ(r->mirror_snapshot.serving_decision, "cli_live");
  EXPECT_EQ(r->mirror_snapshot.credential_state, "present");
}

TEST_F(PrintedCli, ACompleteWhichResolutionRunsDirectly) {
  auto road = Road();
  ScriptedChooser chooser({});  // must not be asked
  auto r = road->RunConnectorCommand({"fixture", "open items", std::nullopt, SourceMode::kLive},
                                     &chooser);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_TRUE(chooser.asked.empty());
  EXPECT_EQ(r->resolution["by"], "which");
  EXPECT_EQ(r->resolution["entry"]["args"], json::parse(R"({"status":"open"})"));
  EXPECT_EQ(r->operation_ledger.at(0).command, "list_items");
  EXPECT_EQ(r->operation_ledger.at(0).args, json::parse(R"({"status":"open"})"));
  EXPECT_EQ(r->rows.size(), 20u);
}

TEST_F(PrintedCli, AnAmbiguousWhichGoesToTheChooserWithTheCliRankingAsHints) {
  auto road = Road();
  ScriptedChooser chooser({Choice{"get_item", {{"id", "3"}}, ""}});
  auto r =
      road->RunConnectorCommand({"fixture", "items", std::nullopt, SourceMode::kLive}, &chooser);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  ASSERT_EQ(chooser.asked.size(), 1u);
  const auto& candidates = chooser.asked[0].candidates;
  ASSERT_GE(candidates.size(), 2u);
  EXPECT_EQ(candidates[0].operation, "list_items");
  EXPECT_EQ(candidates[0].score, 1);
  EXPECT_EQ(candidates[1].operation, "list_items");
  EXPECT_EQ(candidates[1].suggested_args, json::parse(R"({"status":"open"})"));
  EXPECT_EQ(r->rows.at(0)["body"], "Body of item 3");
  EXPECT_EQ(r->resolution["by"], "chooser");

  auto unresolved =
      road->RunConnectorCommand({"fixture", "items", std::nullopt, SourceMode::kLive});
  ASSERT_TRUE(unresolved.ok());
  EXPECT_EQ(unresolved->status, "unresolved");
  EXPECT_EQ(unresolved->candidates.at(0).score, 1);
}

TEST_F(PrintedCli, IdOnlyListsFanOutToParallelDetailCalls) {
  auto road = Road();
  auto r = road->RunConnectorCommand(Named("item_ids", json::object(), SourceMode::kLive, 12));
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  ASSERT_EQ(r->rows.size(), 12u);
  for (size_t i = 0; i < 12; ++i) {
    EXPECT_EQ(r->rows[i]["id"], std::to_string(i + 1));
    EXPECT_EQ(r->rows[i]["body"], "Body of item " + std::to_string(i + 1));
  }
  const LedgerEntry& fan = r->operation_ledger.at(1);
  EXPECT_EQ(fan.command, "get_item");
  EXPECT_EQ(fan.fan_out["parallel"], 8);
  EXPECT_EQ(fan.fan_out["succeeded"], 12);
  EXPECT_EQ(r->query_contracts.at(1).args["id"].size(), 12u);
}

// Issue 44: one failing detail read makes the result partial, and the failed read is named by
// its id, operation and arguments; every read failing is an error that says so.
TEST_F(PrintedCli, AFailedDetailReadIsNamedAndTheResultIsPartial) {
  auto road = Road();
  setenv("FIXTURE_PP_ITEMS", "12", 1);  // a list of 12 ids, all read (limit 12)
  setenv("FIXTURE_PP_FAIL_IDS", "7", 1);
  auto r = road->RunConnectorCommand(Named("item_ids", json::object(), SourceMode::kLive, 12));
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->status, "partial");
  EXPECT_EQ(r->returned_rows, 11);
  EXPECT_EQ(r->total_rows, 12);  // the list's size
  EXPECT_FALSE(r->truncated);
  for (const auto& row : r->rows) EXPECT_NE(row["id"], "7");
  const json& fan = r->operation_ledger.at(1).fan_out;
  EXPECT_EQ(fan["requested"], 12);
  EXPECT_EQ(fan["succeeded"], 11);
  EXPECT_EQ(fan["failed"], 1);
  EXPECT_EQ(fan["listed"], 12);
  EXPECT_EQ(fan["failed_ids"], json::parse(R"(["7"])"));
  ASSERT_EQ(fan["errors"].size(), 1u);
  EXPECT_EQ(fan["errors"][0]["id"], "7");
  EXPECT_EQ(fan["errors"][0]["operation"], "get_item");
  EXPECT_EQ(fan["errors"][0]["args"], json::parse(R"({"id":"7"})"));
  EXPECT_EQ(fan["errors"][0]["code"], "connect.api");
  EXPECT_THAT(fan["errors"][0]["message"].get<std::string>(),
              ::testing::HasSubstr("failed to read item 7"));
  // The same in what the model reads.
  json j = ToJson(*r);
  EXPECT_EQ(j["status"], "partial");
  EXPECT_EQ(j["operation_ledger"][1]["fan_out"]["errors"][0]["id"], "7");

  setenv("FIXTURE_PP_FAIL_IDS", "all", 1);
  auto none = road->RunConnectorCommand(Named("item_ids", json::object(), SourceMode::kLive, 12));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, "connect.api");
  EXPECT_THAT(none.error().message,
              ::testing::HasSubstr("every detail read of item_ids failed (12 of 12)"));
  EXPECT_THAT(none.error().message, ::testing::HasSubstr("get_item id 1"));
  unsetenv("FIXTURE_PP_ITEMS");
}

// Issue 44: a limit cuts the list before its detail reads; the result still says how long the list
// is and that it was cut.
TEST_F(PrintedCli, ALimitedFanOutReportsTheListSizeAndIsTruncated) {
  auto road = Road();
  auto r = road->RunConnectorCommand(Named("item_ids", json::object(), SourceMode::kLive, 5));
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->status, "ok");
  EXPECT_EQ(r->returned_rows, 5);
  EXPECT_EQ(r->total_rows, 30);
  EXPECT_TRUE(r->truncated);
  EXPECT_EQ(r->truncated_reason, "limit");
  json j = ToJson(*r);
  EXPECT_EQ(j["total_rows"], 30);
  EXPECT_EQ(j["truncated"], true);
  EXPECT_EQ(j["truncated_reason"], "limit");
  EXPECT_EQ(j["operation_ledger"][1]["fan_out"]["listed"], 30);
  EXPECT_EQ(j["operation_ledger"][1]["fan_out"]["requested"], 5);
}

TEST_F(PrintedCli, ExitCodesBecomeTypedErrors) {
  auto road = Road();
  struct Case {
    int exit;
    const char* code;
  };
  for (const auto& c : std::vector<Case>{{2, "connect.cli_usage"},
                                         {3, "connect.not_found"},
                                         {4, "connect.auth"},
                                         {5, "connect.api"},
                                         {7, "connect.rate_limited"},
                                         {10, "connect.config"},
                                         {1, "connect.cli_failed"},
                                         {9, "connect.cli_failed"}}) {
    auto r = road->RunConnectorCommand(Named("fail", {{"code", c.exit}}, SourceMode::kLive));
    ASSERT_FALSE(r.ok()) << c.exit;
    EXPECT_EQ(r.error().code, c.code) << c.exit;
    EXPECT_NE(r.error().message.find("simulated"), std::string::npos) << r.error().message;
  }
  auto missing = road->RunConnectorCommand(Named("get_item", {{"id", "999"}}, SourceMode::kLive));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, "connect.not_found");
  EXPECT_EQ(missing.error().message, "the connector found no such object: item 999 not found");
}

TEST_F(PrintedCli, TimeoutsGarbageAndPartialFailuresAreReportedTruthfully) {
  auto road = Road([](json& j) { j["source"]["timeout_ms"] = 300; });
  auto t0 = std::chrono::steady_clock::now();
  auto slow = road->RunConnectorCommand(Named("nap", {{"ms", 5000}}, SourceMode::kLive));
  auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(slow.error().code, "connect.cli_timeout");
  EXPECT_LT(took, std::chrono::seconds(3));
  auto garbage = road->RunConnectorCommand(Named("garbage", json::object(), SourceMode::kLive));
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.error().code, "connect.cli_bad_output");
  auto partial = road->RunConnectorCommand(Named("partial", json::object(), SourceMode::kLive));
  ASSERT_TRUE(partial.ok()) << partial.error().ToString();
  EXPECT_EQ(partial->status, "partial");
  EXPECT_EQ(partial->rows.size(), 1u);
}

// Issue 24: a connector's output is untrusted. A million levels would overflow the stack of the
// JSON parser and of every walker of the rows; it is refused from the text, typed, and the road
// stays usable. Output at the limit is read; a failed run with deep output reports its stderr.
TEST_F(PrintedCli, OutputNestedTooDeepIsRefusedBeforeItIsParsed) {
  auto road = Road();
  auto deep = road->RunConnectorCommand(
      Named("nested", {{"levels", 1000000}, {"code", 0}}, SourceMode::kLive));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.error().code, "connect.too_deep");
  EXPECT_EQ(deep.error().message,
            "the connector CLI's output nests deeper than 128 levels of arrays and objects");
  auto failed = road->RunConnectorCommand(
      Named("nested", {{"levels", 1000000}, {"code", 5}}, SourceMode::kLive));
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, "connect.api");
  EXPECT_EQ(failed.error().message, "the connector's API returned an error: nested output");
  // {"results": [{"deep": ...}]}: three levels around the field, 128 in all.
  auto at =
      road->RunConnectorCommand(Named("nested", {{"levels", 125}, {"code", 0}}, SourceMode::kLive));
  ASSERT_TRUE(at.ok()) << at.error().ToString();
  ASSERT_EQ(at->rows.size(), 1u);
  auto next = road->RunConnectorCommand(Named("list_items", json::object(), SourceMode::kLive));
  EXPECT_TRUE(next.ok()) << next.error().ToString();
}

TEST_F(PrintedCli, RejectedCredentialsShowInTheSnapshot) {
  auto road = Road();
  setenv("FIXTURE_PP_AUTH_FAIL", "1", 1);
  auto r = road->RunConnectorCommand(Named("list_items", json::object(), SourceMode::kLive));
  unsetenv("FIXTURE_PP_AUTH_FAIL");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "connect.auth");
  EXPECT_EQ(r.error().message,
            "the connector's credentials were rejected or are missing: token rejected");
  EXPECT_EQ(road->Snapshot("fixture")->credential_state, "rejected");
}

TEST_F(PrintedCli, SqlIsGuardedBeforeTheCliSeesItThenRunByItsSqlVerb) {
  auto road = Road();
  ASSERT_TRUE(road->Sync("fixture").ok());
  auto denied = road->RunConnectorCommand(Named("sql", {{"query", "DELETE FROM items"}}));
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.error().code, "connect.sql_denied");
  auto count = road->RunConnectorCommand(
      Named("sql", {{"query", "SELECT count(*) AS n FROM items WHERE status = 'open'"}}));
  ASSERT_TRUE(count.ok()) << count.error().ToString();
  EXPECT_EQ(count->rows.at(0)["n"], 20);
  auto direct = road->Sql("fixture", "SELECT count(*) AS n FROM items");
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(direct->rows.at(0)["n"], 30);
}

TEST_F(PrintedCli, AutoModeReadsTheCliMirrorAtOnceWhileItsSyncRuns) {
  auto road = Road();
  ASSERT_TRUE(road->Sync("fixture").ok());
  setenv("FIXTURE_PP_SYNC_SLEEP_MS", "1500", 1);
  ASSERT_TRUE(*road->StartSync("fixture"));
  auto t0 = std::chrono::steady_clock::now();
  auto r = road->RunConnectorCommand(Named("list_items"));
  auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_LT(took, std::chrono::milliseconds(1200));
  EXPECT_EQ(r->mirror_snapshot.serving_decision, "mirror_first_while_syncing");
  EXPECT_EQ(r->mirror_snapshot.freshness.state, "syncing");
  EXPECT_EQ(r->operation_ledger.at(0).source, "mirror");
  road->WaitForSyncs();
  unsetenv("FIXTURE_PP_SYNC_SLEEP_MS");
}

TEST_F(PrintedCli, AMissingCliIsAClearError) {
  auto road = Road([](json& j) { j["source"]["command"] = "/nonexistent/x-pp-cli"; });
  auto r = road->RunConnectorCommand(Named("list_items", json::object(), SourceMode::kLive));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "connect.cli_not_found");
  EXPECT_NE(r.error().detail.find("/nonexistent/x-pp-cli"), std::string::npos);
}

TEST(Process, ArgumentsReachTheChildVerbatimWithoutAShell) {
  auto r = RunProcess({"/bin/echo", "a b", "$(rm -rf /)", "';"}, 2000);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(r->out, "a b $(rm -rf /) ';\n");
  auto big = RunProcess({"/bin/sh", "-c", "yes | head -c 3000000"}, 5000, 1000000);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().code, "connect.cli_output_too_large");
}

}  // namespace
}  // namespace affordance::connect
