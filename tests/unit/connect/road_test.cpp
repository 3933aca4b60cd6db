// RunConnectorCommand over a local SQLite database: resolution (named operation, chooser,
// unresolved), never substituting, result bounds and the result's shape.
#include "connect/road.h"
#include "support.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

namespace affordance::connect {
namespace {

using nlohmann::json;
using testing::ReadText;
using testing::ScriptedChooser;
using testing::TempDir;
using testing::TestOptions;

// notes.db with `n` notes whose bodies are 200 characters; and its manifest.
ConnectorManifest NotesConnector(const TempDir& dir, int n = 300) {
  std::string db_path = dir / "notes.db";
  sqlite3* db = nullptr;
  sqlite3_open(db_path.c_str(), &db);
  std::string sql =
      "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT, body TEXT, secret TEXT);"
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < " +
      std::to_string(n) +
      ") INSERT INTO notes SELECT x, 'Note ' || x, printf('%.200c', 'b'), 'hidden' FROM c;";
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  json manifest = {
      {"slug", "notes"},
      {"title", "Notes"},
      {"source", {{"kind", "sqlite"}, {"path", "notes.db"}}},
      {"modes", {"local"}},
      {"mirror",
       {{"tables", {{{"name", "notes"}, {"columns", {{{"name", "id"}}, {{"name", "title"}}}}}}}}},
      {"operations",
       {{{"name", "recent"},
         {"kind", "list"},
         {"description", "Most recent notes"},
         {"served_fields", {"id", "title"}},
         {"query", "SELECT * FROM notes ORDER BY id DESC"}},
        {{"name", "note"},
         {"kind", "detail"},
         {"args",
          {{"type", "object"},
           {"properties", {{"id", {{"type", "integer"}, {"minimum", 1}}}}},
           {"required", {"id"}},
           {"additionalProperties", false}}},
         {"query", "SELECT id, title, body FROM notes WHERE id = :id"}},
        {{"name", "sql"},
         {"kind", "sql"},
         {"args",
          {{"type", "object"},
           {"properties", {{"query", {{"type", "string"}}}}},
           {"required", {"query"}}}}},
        {{"name", "delete_note"},
         {"kind", "mutation"},
         {"risk", "destructive"},
         {"statement", "DELETE FROM notes WHERE id = :id"},
         {"args", {{"type", "object"}, {"properties", {{"id", {{"type", "integer"}}}}}}}}}}};
  auto m = ParseManifest(manifest.dump(), dir / "notes.json");
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().ToString());
  return m.value();
}

ConnectorCommand Named(const std::string& op, json args = json::object(),
                       std::optional<int64_t> limit = std::nullopt) {
  return {"notes", {{"operation", op}, {"args", std::move(args)}}, limit, std::nullopt};
}

TEST(ConnectorRoad, LocalSqliteDatabaseAnswersANamedOperationDirectly) {
  TempDir dir;
  ConnectorRoad road({NotesConnector(dir)}, TestOptions(dir));
  std::string before = ReadText(dir / "notes.db");
  auto r = road.RunConnectorCommand(Named("note", {{"id", 7}}));
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->status, "ok");
  ASSERT_EQ(r->rows.size(), 1u);
  EXPECT_EQ(r->rows[0]["title"], "Note 7");
  EXPECT_EQ(r->resolution, json::parse(R"({"by":"operation"})"));
  EXPECT_EQ(r->mirror_snapshot.serving_decision, "local_source");
  EXPECT_EQ(r->mirror_snapshot.freshness.state, "local");
  EXPECT_EQ(r->mirror_snapshot.credential_state, "not_required");
  ASSERT_EQ(r->operation_ledger.size(), 1u);
  EXPECT_EQ(r->operation_ledger[0].command, "note");
  EXPECT_EQ(r->operation_ledger[0].args, json::parse(R"({"id":7})"));
  EXPECT_EQ(r->operation_ledger[0].source, "local");
  EXPECT_EQ(r->operation_ledger[0].served_fields,
            (std::vector<std::string>{"id", "title", "body"}));
  EXPECT_EQ(r->query_contracts.at(0).handle, "notes_note");
  EXPECT_EQ(r->mutation_contracts.at(0).risk, "destructive");
  EXPECT_EQ(ReadText(dir / "notes.db"), before);
  auto sync = road.Sync("notes");
  ASSERT_FALSE(sync.ok());
  EXPECT_EQ(sync.error().code, "connect.nothing_to_sync");
}

TEST(ConnectorRoad, DeclaredServedFieldsAreTheOnlyFieldsServed) {
  TempDir dir;
  ConnectorRoad road({NotesConnector(dir)}, TestOptions(dir));
  auto r = road.RunConnectorCommand(Named("recent", json::object(), 2));
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(json(r->rows),
            json::parse(R"([{"id":300,"title":"Note 300"},{"id":299,"title":"Note 299"}])"));
  EXPECT_EQ(r->query_contracts.at(0).served_fields, (std::vector<std::string>{"id", "title"}));
}

TEST(ConnectorRoad, NeverSubstitutesAnotherConnectorOrOperation) {
  TempDir dir;
  ConnectorRoad road({NotesConnector(dir)}, TestOptions(dir));
  auto other = road.RunConnectorCommand({"calendar", "anything", std::nullopt, std::nullopt});
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().code, "connect.unknown_connector");
  EXPECT_EQ(other.error().message, "no connector \"calendar\" (ready: notes)");
  auto op = road.RunConnectorCommand(Named("search"));
  ASSERT_FALSE(op.ok());
  EXPECT_EQ(op.error().code, "connect.unknown_operation");
  EXPECT_EQ(op.error().message,
            "connector \"notes\" has no operation \"search\" (operations: recent, note, sql)");
  auto args = road.RunConnectorCommand(Named("note", {{"id", "seven"}}));
  ASSERT_FALSE(args.ok());
  EXPECT_EQ(args.error().code, "connect.bad_args");
  EXPECT_EQ(args.error().message, "note args /id: must be integer");
  auto mutation = road.RunConnectorCommand(Named("delete_note", {{"id", 1}}));
  ASSERT_FALSE(mutation.ok());
  EXPECT_EQ(mutation.error().code, "connect.mutation_not_readable");
  auto live = road.RunConnectorCommand(
      {"notes", Named("note", {{"id", 1}}).request, std::nullopt, SourceMode::kLive});
  ASSERT_FALSE(live.ok());
  EXPECT_EQ(live.error().code, "connect.mode_unsupported");
}

TEST(ConnectorRoad, WordsWithoutAChooserAreUnresolvedWithCandidates) {
  TempDir dir;
  ConnectorRoad road({NotesConnector(dir)}, TestOptions(dir));
  auto r = road.RunConnectorCommand({"notes", "show me note seven", std::nullopt, std::nullopt});
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->status, "unresolved");
  EXPECT_TRUE(r->rows.empty());
  EXPECT_TRUE(r->operation_ledger.empty());
  EXPECT_EQ(r->unresolved_reason, "the request names no operation and no chooser is available");
  std::vector<std::string> names;
  for (const auto& c : r->candidates) names.push_back(c.operation);
  EXPECT_EQ(names, (std::vector<std::string>{"recent", "note", "sql"}));
  json j = ToJson(*r);
  EXPECT_EQ(j["candidates"].size(), 3u);
  EXPECT_EQ(j["resolution"]["by"], "none");
}

TEST(ConnectorRoad, ChooserCorrectsItselfWithinBoundedSteps) {
  TempDir dir;
  ConnectorRoad road({NotesConnector(dir)}, TestOptions(dir));
  ScriptedChooser chooser({Choice{"list_events", {}, ""},
                           Choice{"sql", {{"query", "SELEC id FROM notes"}}, ""},
                           Choice{"note", {{"id", 7}}, ""}});
  auto r = road.RunConnectorCommand({"notes", "show me note seven", std::nullopt, std::nullopt},
                                    &chooser);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->status, "ok");
  EXPECT_EQ(r->rows.at(0)["title"], "Note 7");
  EXPECT_EQ(r->resolution, json::parse(R"({"by":"chooser","steps":3})"));
  ASSERT_EQ(chooser.asked.size(), 3u);
  EXPECT_FALSE(chooser.asked[0].previous_error.has_value());
  EXPECT_EQ(chooser.asked[1].previous_error->code, "connect.unknown_operation");
  EXPECT_EQ(chooser.asked[1].previous_choice["operation"], "list_events");
  EXPECT_EQ(chooser.asked[2].previous_error->code, "connect.sql_error");
  EXPECT_EQ(chooser.asked[2].step, 3);
  EXPECT_EQ(chooser.asked[2].max_steps, 3);
}

TEST(ConnectorRoad, ChooserThatNeverSucceedsEndsUnresolvedAfterTheStepBound) {
  TempDir dir;
  ConnectorRoad road({NotesConnector(dir)}, TestOptions(dir));
  ScriptedChooser chooser({Choice{"note", {{"id", 0}}, ""}, Choice{"note", {{"id", -1}}, ""},
                           Choice{"sql", {{"query", "DELETE FROM notes"}}, ""},
                           Choice{"note", {{"id", 1}}, ""}});
  auto r =
      road.RunConnectorCommand({"notes", "the first one", std::nullopt, std::nullopt}, &chooser);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, "unresolved");
  EXPECT_EQ(chooser.asked.size(), 3u);  // the fourth choice is never asked for
  EXPECT_EQ(r->unresolved_reason,
            "no valid operation after 3 chooser step(s); last error: only SELECT is allowed "
            "against a mirror; refused DELETE from notes");
  EXPECT_EQ(r->candidates.size(), 3u);
}

TEST(ConnectorRoad, ChooserMayGiveUpHonestlyOrFail) {
  TempDir dir;
  ConnectorRoad road({NotesConnector(dir)}, TestOptions(dir));
  ScriptedChooser gives_up({Choice{"", {}, "the notes have no dates to filter by"}});
  auto r =
      road.RunConnectorCommand({"notes", "notes from May", std::nullopt, std::nullopt}, &gives_up);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, "unresolved");
  EXPECT_EQ(r->unresolved_reason, "the notes have no dates to filter by");

  struct Failing : Chooser {
    Result<Choice> Choose(const ChoiceRequest&) override {
      return MakeError("model.unavailable", "the model provider is down");
    }
  } failing;
  auto f = road.RunConnectorCommand({"notes", "anything", std::nullopt, std::nullopt}, &failing);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code, "model.unavailable");
}

TEST(ConnectorRoad, RowsAreBoundedByLimitAndByTheCharacterCap) {
  TempDir dir;
  ConnectorRoad road({NotesConnector(dir)}, TestOptions(dir));
  auto limited = road.RunConnectorCommand(Named("sql", {{"query", "SELECT * FROM notes"}}, 10));
  ASSERT_TRUE(limited.ok());
  EXPECT_TRUE(limited->truncated);
  EXPECT_EQ(limited->truncated_reason, "limit");
  EXPECT_EQ(limited->returned_rows, 10);
  EXPECT_EQ(limited->total_rows, 300);
  EXPECT_TRUE(limited->total_rows_exact);

  auto capped = road.RunConnectorCommand(Named("sql", {{"query", "SELECT * FROM notes"}}, 500));
  ASSERT_TRUE(capped.ok());
  std::string text = ToJson(*capped).dump();
  EXPECT_LE(CodePointCount(text), kResultCharCap);
  EXPECT_GT(CodePointCount(text), kResultCharCap - 400);  // filled, not emptied
  EXPECT_TRUE(capped->truncated);
  EXPECT_EQ(capped->truncated_reason, "char_cap");
  EXPECT_EQ(capped->returned_rows, static_cast<int64_t>(capped->rows.size()));
  EXPECT_LT(capped->returned_rows, 300);
  EXPECT_EQ(capped->total_rows, 300);
  json j = json::parse(text);
  EXPECT_EQ(j["truncated_reason"], "char_cap");
  EXPECT_EQ(j["rows"].size(), static_cast<size_t>(capped->returned_rows));
}

TEST(ConnectorRoad, SourceRowCapMakesTheTotalALowerBound) {
  TempDir dir;
  RoadOptions options = TestOptions(dir);
  options.guard.max_rows = 100;
  ConnectorRoad road({NotesConnector(dir)}, options);
  auto r = road.RunConnectorCommand(Named("sql", {{"query", "SELECT id FROM notes"}}, 50));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->total_rows, 100);
  EXPECT_FALSE(r->total_rows_exact);
  EXPECT_EQ(r->returned_rows, 50);
}

TEST(ConnectorRoad, ResultJsonHasTheDocumentedShape) {
  TempDir dir;
  ConnectorRoad road({NotesConnector(dir)}, TestOptions(dir));
  auto r = road.RunConnectorCommand(Named("note", {{"id", 1}}));
  ASSERT_TRUE(r.ok());
  json j = ToJson(*r);
  for (const char* key :
       {"connector", "status", "rows", "truncated", "returned_rows", "total_rows",
        "total_rows_exact", "operation_ledger", "registered_query_handles", "query_contracts",
        "mutation_contracts", "mirror_snapshot", "resolution"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["operation_ledger"][0].size(), 5u);  // command, args, served_fields, source, rows
  for (const char* key : {"freshness", "credential_state", "serving_decision"}) {
    EXPECT_TRUE(j["mirror_snapshot"].contains(key)) << key;
  }
  EXPECT_EQ(j["mutation_contracts"][0]["requires_approval"], true);
}

TEST(ConnectorCommandInput, ParsesTheResidentToolInputAndNamesBadMembers) {
  auto ok = ParseConnectorCommand(json::parse(
      R"({"connector":"calendar","request":"what conflicts next week?","limit":20,"mode":"local"})"));
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->connector, "calendar");
  EXPECT_EQ(*ok->limit, 20);
  EXPECT_EQ(*ok->mode, SourceMode::kLocal);
  struct Bad {
    const char* input;
    const char* message;
  };
  for (const auto& b : std::vector<Bad>{
           {R"([])", "the command must be a JSON object"},
           {R"({"request":"x"})", "\"connector\" must be a string naming a connector"},
           {R"({"connector":"c"})", "\"request\" must be the user's words or"},
           {R"({"connector":"c","request":7})", "\"request\" must be the user's words or"},
           {R"({"connector":"c","request":"x","limit":0})", "\"limit\" must be a positive integer"},
           {R"({"connector":"c","request":"x","limit":"5"})", "\"limit\" must be a positive"},
           {R"({"connector":"c","request":"x","mode":"remote"})", "source mode must be live"},
           {R"({"connector":"c","request":"x","sql":"SELECT 1"})", "unknown member \"sql\""}}) {
    auto r = ParseConnectorCommand(json::parse(b.input));
    ASSERT_FALSE(r.ok()) << b.input;
    EXPECT_EQ(r.error().message.rfind(b.message, 0), 0u) << b.input << ": " << r.error().message;
  }
}

TEST(ConnectorRoad, MalformedStructuredRequestsAreRefused) {
  TempDir dir;
  ConnectorRoad road({NotesConnector(dir)}, TestOptions(dir));
  auto no_op = road.RunConnectorCommand({"notes", {{"args", {}}}, std::nullopt, std::nullopt});
  ASSERT_FALSE(no_op.ok());
  EXPECT_EQ(no_op.error().code, "connect.bad_request");
  auto extra = road.RunConnectorCommand(
      {"notes", {{"operation", "recent"}, {"why", "x"}}, std::nullopt, std::nullopt});
  ASSERT_FALSE(extra.ok());
  EXPECT_EQ(extra.error().message, "unknown request member \"why\" (allowed: operation, args)");
  auto args = road.RunConnectorCommand(
      {"notes", {{"operation", "recent"}, {"args", "x"}}, std::nullopt, std::nullopt});
  ASSERT_FALSE(args.ok());
  EXPECT_EQ(args.error().code, "connect.bad_args");
}

}  // namespace
}  // namespace affordance::connect
