// Manifests: the examples load; every malformed manifest is refused with a message that names
// the JSON pointer of the problem.
#include "connect/manifest.h"
#include "base/json_limits.h"
#include "connect/schema.h"
#include "support.h"

#include <gtest/gtest.h>

namespace affordance::connect {
namespace {

using nlohmann::json;
using testing::Source;
using testing::TempDir;
using testing::WriteText;

json Minimal() {
  return json::parse(R"({
    "slug": "notes", "title": "Notes",
    "source": {"kind": "sqlite", "path": "notes.db"},
    "modes": ["local"],
    "operations": [{"name": "all", "kind": "list", "query": "SELECT * FROM notes"}]
  })");
}

TEST(ConnectorManifest, ExamplesLoadWithResolvedPaths) {
  auto all = LoadManifests(Source("examples/connectors"));
  ASSERT_TRUE(all.ok()) << all.error().ToString();
  ASSERT_EQ(all->size(), 2u);
  const ConnectorManifest& cal = (*all)[0];
  EXPECT_EQ(cal.slug, "calendar");
  EXPECT_EQ(cal.source.kind, SourceKind::kIcs);
  EXPECT_EQ(cal.source.paths.at(0), Source("examples/connectors/calendar.ics"));
  EXPECT_TRUE(cal.Supports(SourceMode::kAuto));
  EXPECT_EQ(cal.FindOperation("list_events")->handle, "calendar_list_events");
  EXPECT_EQ(cal.FindOperation("event_ids")->detail_operation, "event_detail");
  EXPECT_EQ(cal.FindOperation("create_event")->risk, Risk::kWrite);
  EXPECT_EQ(cal.mirror_tables.at(0).name, "events");
  const ConnectorManifest& cli = (*all)[1];
  EXPECT_EQ(cli.source.kind, SourceKind::kPrintedCli);
  EXPECT_EQ(cli.source.command, "fixture-pp-cli");  // no '/': looked up on PATH
  EXPECT_TRUE(cli.HasVerb("which"));
  EXPECT_EQ(cli.FindOperation("get_item")->positional, std::vector<std::string>{"id"});
}

TEST(ConnectorManifest, MinimalSqliteManifestResolvesItsPathAgainstItsFolder) {
  auto m = ParseManifest(Minimal().dump(), "/etc/affordance/connectors/notes.json");
  ASSERT_TRUE(m.ok()) << m.error().ToString();
  EXPECT_EQ(m->source.path, "/etc/affordance/connectors/notes.db");
  EXPECT_EQ(m->operations[0].risk, Risk::kRead);
  EXPECT_EQ(m->operations[0].args_schema["type"], "object");
}

struct BadCase {
  const char* name;
  std::function<void(json&)> edit;
  const char* message;  // substring of the error message
};

TEST(ConnectorManifest, MalformedManifestsAreRefusedWithThePointerOfTheProblem) {
  std::vector<BadCase> cases = {
      {"missing slug", [](json& j) { j.erase("slug"); }, "/slug: is required"},
      {"bad slug", [](json& j) { j["slug"] = "Notes!"; }, "/slug: must match"},
      {"slug type", [](json& j) { j["slug"] = 7; }, "/slug: must be a string"},
      {"empty title", [](json& j) { j["title"] = ""; }, "/title: is empty"},
      {"unknown key", [](json& j) { j["colour"] = "red"; }, "/colour: unknown key"},
      {"no source", [](json& j) { j.erase("source"); }, "/source: is required"},
      {"source kind", [](json& j) { j["source"]["kind"] = "ftp"; },
       "/source/kind: \"ftp\" is not one of sqlite, printed_cli, ics"},
      {"sqlite without path", [](json& j) { j["source"].erase("path"); },
       "/source/path: is required"},
      {"sqlite extra key", [](json& j) { j["source"]["command"] = "x"; },
       "/source/command: unknown"},
      {"ics without paths",
       [](json& j) {
         j["source"] = {{"kind", "ics"}};
       },
       "/source/paths: needs at least one"},
      {"cli without command",
       [](json& j) {
         j["source"] = {{"kind", "printed_cli"}};
       },
       "/source/command: is required"},
      {"cli bad verb",
       [](json& j) {
         j["source"] = {{"kind", "printed_cli"}, {"command", "x"}, {"verbs", {"rm"}}};
       },
       "/source/verbs: \"rm\" is not one of which, sql, sync, lookup"},
      {"cli timeout",
       [](json& j) {
         j["source"] = {{"kind", "printed_cli"}, {"command", "x"}, {"timeout_ms", 0}};
       },
       "/source/timeout_ms: must be between 1 and 3600000"},
      {"no modes", [](json& j) { j["modes"] = json::array(); }, "/modes: must list at least one"},
      {"bad mode", [](json& j) { j["modes"] = {"remote"}; },
       "source mode must be live, local or auto"},
      {"duplicate mode",
       [](json& j) {
         j["modes"] = {"local", "local"};
       },
       "listed twice"},
      {"sqlite live", [](json& j) { j["modes"] = {"live"}; }, "only the \"local\" mode"},
      {"no operations", [](json& j) { j["operations"] = json::array(); },
       "/operations: must be a non-empty array"},
      {"operation not object", [](json& j) { j["operations"][0] = "all"; },
       "/operations/0: must be an object"},
      {"operation bad name", [](json& j) { j["operations"][0]["name"] = "All Notes"; },
       "/operations/0/name: must match"},
      {"operation bad kind", [](json& j) { j["operations"][0]["kind"] = "delete"; },
       "/operations/0/kind: \"delete\" is not one of list, detail, search, sql, mutation"},
      {"duplicate operation", [](json& j) { j["operations"][1] = j["operations"][0]; },
       "/operations/1/name: \"all\" is listed twice"},
      {"read without query", [](json& j) { j["operations"][0].erase("query"); },
       "/operations/0/query: a read operation over a mirror needs its SELECT"},
      {"argv on sqlite", [](json& j) { j["operations"][0]["argv"] = {"x"}; },
       "/operations/0/argv: only printed CLI operations have argv"},
      {"read with write risk", [](json& j) { j["operations"][0]["risk"] = "write"; },
       "only a mutation may have risk"},
      {"sqlite mutation without statement",
       [](json& j) {
         j["operations"][1] = {{"name", "add"}, {"kind", "mutation"}};
       },
       "/operations/1/statement: a SQLite mutation needs its write statement"},
      {"mutation keys on a read",
       [](json& j) { j["operations"][0]["statement"] = "DELETE FROM t"; },
       "/operations/0: statement, effect, idempotency_flag, verify, summary and before belong to "
       "mutations"},
      {"verify names no readable operation",
       [](json& j) {
         j["operations"][1] = {{"name", "add"},
                               {"kind", "mutation"},
                               {"statement", "DELETE FROM t"},
                               {"verify", {{"operation", "nope"}}}};
       },
       "/operations/1/verify/operation: \"nope\" is not a readable operation of this connector"},
      {"verify unknown key",
       [](json& j) {
         j["operations"][1] = {{"name", "add"},
                               {"kind", "mutation"},
                               {"statement", "DELETE FROM t"},
                               {"verify", {{"operation", "all"}, {"when", 1}}}};
       },
       "/operations/1/verify/when: unknown key"},
      {"calendar mutation without effect",
       [](json& j) {
         j["source"] = {{"kind", "ics"}, {"paths", {"cal.ics"}}};
         j["operations"][1] = {{"name", "add"}, {"kind", "mutation"}};
       },
       "/operations/1/effect: a calendar mutation needs effect create, update or delete"},
      {"mutation read risk",
       [](json& j) {
         j["operations"][1] = {{"name", "add"}, {"kind", "mutation"}, {"risk", "read"}};
       },
       "a mutation cannot have risk \"read\""},
      {"bad risk", [](json& j) { j["operations"][0]["risk"] = "scary"; }, "is not one of read"},
      {"args not object schema",
       [](json& j) {
         j["operations"][0]["args"] = {{"type", "string"}};
       },
       "/operations/0/args: must be a JSON Schema with \"type\": \"object\""},
      {"unsupported schema keyword",
       [](json& j) {
         j["operations"][0]["args"] = {{"type", "object"},
                                       {"properties", {{"q", {{"pattern", "^a"}}}}}};
       },
       "/operations/0/args/properties/q/pattern: unsupported JSON Schema keyword \"pattern\""},
      {"bad schema type",
       [](json& j) {
         j["operations"][0]["args"] = {{"type", "thing"}};
       },
       "type must name object"},
      {"required not array",
       [](json& j) {
         j["operations"][0]["args"] = {{"type", "object"}, {"required", "q"}};
       },
       "/operations/0/args/required: must be an array of property names"},
      {"sql without query arg",
       [](json& j) {
         j["operations"][0] = {{"name", "sql"}, {"kind", "sql"}};
       },
       "a sql operation takes a \"query\" argument"},
      {"detail_operation missing", [](json& j) { j["operations"][0]["detail_operation"] = "one"; },
       "\"one\" is not a detail operation of this connector"},
      {"detail_operation on detail",
       [](json& j) {
         j["operations"][0]["kind"] = "detail";
         j["operations"][0]["detail_operation"] = "all";
       },
       "only a list operation fans out"},
      {"positional undeclared", [](json& j) { j["operations"][0]["positional"] = {"id"}; },
       "\"id\" is not a declared argument"},
      {"served_fields type", [](json& j) { j["operations"][0]["served_fields"] = {1}; },
       "/operations/0/served_fields/0: must be a non-empty string"},
      {"sync negative",
       [](json& j) {
         j["sync"] = {{"max_age_s", -1}};
       },
       "/sync/max_age_s: must be between"},
      {"sync unknown",
       [](json& j) {
         j["sync"] = {{"every", 5}};
       },
       "/sync/every: unknown key"},
      {"mirror columns",
       [](json& j) {
         j["mirror"] = {{"tables", {{{"name", "t"}}}}};
       },
       "/mirror/tables/0/columns: must be a non-empty array"},
      {"credentials",
       [](json& j) {
         j["credentials"] = {{"env", "TOKEN"}};
       },
       "/credentials/env: must be an array of strings"},
      {"cli op without argv",
       [](json& j) {
         j["source"] = {{"kind", "printed_cli"}, {"command", "x"}};
         j["modes"] = {"live"};
         j["operations"][0].erase("query");
       },
       "/operations/0/argv: a printed CLI operation needs its verb words"},
      {"cli sql without verb",
       [](json& j) {
         j["source"] = {{"kind", "printed_cli"}, {"command", "x"}};
         j["modes"] = {"live"};
         j["operations"][0] = {
             {"name", "sql"},
             {"kind", "sql"},
             {"args", {{"type", "object"}, {"properties", {{"query", json::object()}}}}}};
       },
       "needs the \"sql\" verb"},
  };
  for (const auto& c : cases) {
    json j = Minimal();
    j["operations"].push_back({{"name", "other"}, {"kind", "list"}, {"query", "SELECT 1"}});
    c.edit(j);
    auto m = ParseManifest(j.dump(), "notes.json");
    ASSERT_FALSE(m.ok()) << c.name;
    EXPECT_EQ(m.error().code, "connect.manifest_invalid") << c.name;
    EXPECT_NE(m.error().message.find(c.message), std::string::npos)
        << c.name << ": got \"" << m.error().message << "\"";
    EXPECT_EQ(m.error().detail, "notes.json") << c.name;
  }
}

TEST(ConnectorManifest, NotJsonAndNotAnObjectAreRefused) {
  for (const char* text : {"", "{", "[1,2]", "\"x\"", "{\"slug\": }"}) {
    auto m = ParseManifest(text, "x.json");
    ASSERT_FALSE(m.ok()) << text;
    EXPECT_EQ(m.error().code, "connect.manifest_invalid");
  }
}

// Issue 24: a manifest is a file from outside the process, and its schemas are checked by
// recursion; a million levels are refused from the text, naming the file.
TEST(ConnectorManifest, AManifestNestedTooDeepIsRefusedBeforeItIsParsed) {
  json j = Minimal();
  const std::string text = j.dump().substr(0, j.dump().size() - 1) +
                           ", \"x\": " + std::string(1000000, '[') + std::string(1000000, ']') +
                           "}";
  auto m = ParseManifest(text, "deep.json");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, "connect.too_deep");
  EXPECT_EQ(m.error().message, "the manifest nests deeper than 128 levels of arrays and objects");
  EXPECT_EQ(m.error().detail, "deep.json: limit 128");
  // At the limit it loads: a default value nested deep inside an operation's argument schema.
  json at = Minimal();
  at["operations"][0]["args"] = {{"type", "object"},
                                 {"properties", {{"q", {{"default", "DEEP"}}}}}};
  std::string at_text = at.dump();
  at_text.replace(at_text.find("\"DEEP\""), 6, std::string(122, '[') + std::string(122, ']'));
  ASSERT_EQ(JsonTextDepth(at_text), kMaxJsonDepth);
  auto loaded = ParseManifest(at_text, "at.json");
  EXPECT_TRUE(loaded.ok()) << loaded.error().ToString();
}

TEST(ConnectorManifest, LoadManifestsRejectsDuplicateSlugsAndNamesTheFile) {
  TempDir dir;
  WriteText(dir / "a.json", Minimal().dump());
  WriteText(dir / "b.json", Minimal().dump());
  auto all = LoadManifests(dir.path());
  ASSERT_FALSE(all.ok());
  EXPECT_NE(all.error().message.find("slug \"notes\" is already used by"), std::string::npos);
  EXPECT_EQ(all.error().detail, dir / "b.json");
}

TEST(ConnectorManifest, MissingFolderMeansNoConnectorsAndBadFileIsNamed) {
  auto none = LoadManifests("/nonexistent/affordance/connectors");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  TempDir dir;
  WriteText(dir / "broken.json", "{ not json");
  auto bad = LoadManifests(dir.path());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().detail.rfind(dir / "broken.json:1:4: ", 0), 0u) << bad.error().detail;
}

TEST(ConnectorManifest, DefaultFoldersFollowEnvironmentThenXdg) {
  setenv("AFFORDANCE_CONNECTORS", "/x/connectors", 1);
  EXPECT_EQ(DefaultManifestDir(), "/x/connectors");
  unsetenv("AFFORDANCE_CONNECTORS");
  std::string home = getenv("HOME") ? getenv("HOME") : "";
  setenv("XDG_CONFIG_HOME", "/cfg", 1);
  EXPECT_EQ(DefaultManifestDir(), "/cfg/affordance/connectors");
  unsetenv("XDG_CONFIG_HOME");
  setenv("HOME", "/home/u", 1);
  EXPECT_EQ(DefaultManifestDir(), "/home/u/.config/affordance/connectors");
  unsetenv("AFFORDANCE_DATA");
  setenv("XDG_DATA_HOME", "/data", 1);
  EXPECT_EQ(DefaultDataDir(), "/data/affordance/connectors");
  unsetenv("XDG_DATA_HOME");
  setenv("HOME", home.c_str(), 1);
}

TEST(ArgsSchema, ViolationsNameThePointer) {
  json schema = json::parse(R"({"type": "object", "additionalProperties": false,
    "required": ["id"], "properties": {
      "id": {"type": "string", "minLength": 1, "maxLength": 3},
      "n": {"type": "integer", "minimum": 1, "maximum": 10},
      "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 2}}})");
  ASSERT_TRUE(CheckSchema(schema, "/args").ok());
  EXPECT_TRUE(ValidateArgs(schema, {{"id", "x"}, {"n", 3}, {"tags", {"a"}}}).ok());
  EXPECT_TRUE(ValidateArgs(schema, {{"id", "é"}, {"n", 2.0}}).ok());
  struct Bad {
    json value;
    const char* message;
  };
  for (const auto& b : std::vector<Bad>{
           {json::object(), "/: missing required property \"id\""},
           {{{"id", 5}}, "/id: must be string"},
           {{{"id", ""}}, "/id: must have at least 1 characters"},
           {{{"id", "abcd"}}, "/id: must have at most 3 characters"},
           {{{"id", "a"}, {"n", 0}}, "/n: must be >= 1"},
           {{{"id", "a"}, {"n", 1.5}}, "/n: must be integer"},
           {{{"id", "a"}, {"tags", {"c"}}}, "/tags/0: must be one of"},
           {{{"id", "a"}, {"tags", {"a", "b", "a"}}}, "/tags: must have at most 2 items"},
           {{{"id", "a"}, {"x", 1}}, "/x: is not an allowed property"},
           {json::array(), "/: must be object"}}) {
    auto s = ValidateArgs(schema, b.value);
    ASSERT_FALSE(s.ok()) << b.value.dump();
    EXPECT_EQ(s.error().code, "connect.bad_args");
    EXPECT_EQ(s.error().message.rfind(b.message, 0), 0u) << s.error().message;
  }
}

}  // namespace
}  // namespace affordance::connect
