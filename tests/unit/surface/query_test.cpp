// Two-time grounding and live apps over real parts: the example calendar connector (an .ics file
// and its SQLite mirror), a real SQLite store, authority's read grants.
#include "surface/query.h"
#include "surface/live.h"

#include "../connect/support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace affordance::surface {
namespace {

using connect::testing::CalendarManifest;
using connect::testing::ReadText;
using connect::testing::Source;
using connect::testing::TempDir;
using connect::testing::TestOptions;
using connect::testing::WriteText;
using nlohmann::json;
using ::testing::HasSubstr;

const char* kWeekProgram =
    "root = Stack([CardHeader(\"Next week\"), tbl])\n"
    "events = Query(\"calendar_list_events\", {from: \"2026-11-30T00:00:00Z\", to: "
    "\"2026-12-07T00:00:00Z\"}, {rows: []})\n"
    "tbl = Table([Col(\"Event\", events.rows.summary), Col(\"Start\", events.rows.start)])\n";

class Grounding : public ::testing::Test {
 protected:
  void SetUp() override {
    ics_ = dir_ / "calendar.ics";
    WriteText(ics_, ReadText(Source("examples/connectors/calendar.ics")));
    road_ = std::make_unique<connect::ConnectorRoad>(
        std::vector<connect::ConnectorManifest>{CalendarManifest(ics_)},
        TestOptions(dir_, &clock_));
    auto s = store::OpenSqlite(dir_ / "affordance.db");
    ASSERT_TRUE(s.ok()) << s.error().ToString();
    store_ = std::move(*s);
    ASSERT_TRUE(road_->Sync("calendar").ok());
  }

  Composed Save(const std::string& program, const std::string& kind = "panel",
                const std::string& slug = "") {
    ComposeRequest r;
    r.program = program;
    r.kind = kind;
    r.app_slug = slug;
    r.handles = HandlesOf(road_.get());
    return SaveProgram(*store_, r);
  }

  Result<QueryRun> Run(const std::string& artifact, const std::string& statement,
                       std::optional<json> args = std::nullopt, const std::string& handle = "") {
    QueryRequest q;
    q.artifact = artifact;
    q.statement = statement;
    q.args = std::move(args);
    q.handle = handle;
    return ExecuteQuery(*store_, *road_, nullptr, q, authority::Actor::User("tester"));
  }

  int64_t clock_ = connect::testing::kNow;
  TempDir dir_;
  std::string ics_;
  std::unique_ptr<connect::ConnectorRoad> road_;
  std::unique_ptr<store::Store> store_;
};

TEST_F(Grounding, ReExecutionReturnsRowsWithAMatchingReceipt) {
  Composed c = Save(kWeekProgram);
  ASSERT_TRUE(c.ok()) << c.error->ToString();
  auto run = Run(c.artifact.id, "events");
  ASSERT_TRUE(run.ok()) << run.error().ToString();
  EXPECT_FALSE(run->mismatch.has_value());
  const SourceReceipt& r = run->receipt;
  EXPECT_TRUE(r.match());
  EXPECT_EQ(r.live.handle, "calendar_list_events");
  EXPECT_EQ(r.live.operation, "list_events");
  EXPECT_EQ(r.live.source, "calendar:ics");
  EXPECT_EQ(r.live.args, r.preview.args);
  EXPECT_EQ(r.live.served_fields, r.preview.served_fields);
  EXPECT_EQ(r.served_from, "mirror");
  ASSERT_FALSE(run->rows.empty());
  EXPECT_EQ(r.rows, static_cast<int64_t>(run->rows.size()));
  EXPECT_EQ(r.rows_digest.size(), 16u);
  EXPECT_TRUE(run->rows[0].contains("summary"));
  // The same read again proves the same rows.
  auto again = Run(c.artifact.id, "events");
  EXPECT_EQ(again->receipt.rows_digest, r.rows_digest);
}

TEST_F(Grounding, OtherArgsAreAMismatchWithoutRows) {
  Composed c = Save(kWeekProgram);
  ASSERT_TRUE(c.ok());
  auto run = Run(c.artifact.id, "events",
                 json{{"from", "2026-12-07T00:00:00Z"}, {"to", "2026-12-14T00:00:00Z"}});
  ASSERT_TRUE(run.ok()) << run.error().ToString();
  ASSERT_TRUE(run->mismatch.has_value());
  EXPECT_EQ(run->mismatch->code, "surface.binding_mismatch");
  EXPECT_EQ(run->mismatch->message,
            "the live result of \"events\" does not refer to what the surface was composed with "
            "(args differ); its rows are not shown");
  EXPECT_EQ(run->receipt.mismatches, std::vector<std::string>{"args"});
  EXPECT_TRUE(run->rows.empty());
  EXPECT_EQ(run->ToJson()["error"]["code"], "surface.binding_mismatch");
}

TEST_F(Grounding, AnotherHandleIsAMismatchAndNothingIsRead) {
  Composed c = Save(kWeekProgram);
  ASSERT_TRUE(c.ok());
  auto run = Run(c.artifact.id, "events", std::nullopt, "calendar_search_events");
  ASSERT_TRUE(run.ok()) << run.error().ToString();
  ASSERT_TRUE(run->mismatch.has_value());
  EXPECT_THAT(run->receipt.mismatches, ::testing::Contains("handle"));
  EXPECT_TRUE(run->rows.empty());
}

TEST_F(Grounding, AConnectorThatChangedItsServedFieldsIsAMismatch) {
  Composed c = Save(kWeekProgram);
  ASSERT_TRUE(c.ok());
  // The manifest now serves fewer fields than the surface was composed against.
  connect::ConnectorManifest m = CalendarManifest(ics_);
  for (auto& op : m.operations) {
    if (op.name == "list_events") {
      op.served_fields = {"id", "summary", "start"};
      op.query =
          "SELECT id, summary, start FROM events WHERE start_ts < unixepoch(:to) AND "
          "end_ts > unixepoch(:from) ORDER BY start_ts, id";
    }
  }
  road_ = std::make_unique<connect::ConnectorRoad>(std::vector<connect::ConnectorManifest>{m},
                                                   TestOptions(dir_, &clock_));
  auto run = Run(c.artifact.id, "events");
  ASSERT_TRUE(run.ok()) << run.error().ToString();
  ASSERT_TRUE(run->mismatch.has_value());
  EXPECT_EQ(run->receipt.mismatches, std::vector<std::string>{"servedFields"});
  EXPECT_TRUE(run->rows.empty());
}

TEST_F(Grounding, UnknownStatementsAndReadGrants) {
  Composed c = Save(kWeekProgram);
  ASSERT_TRUE(c.ok());
  auto unknown = Run(c.artifact.id, "nope");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, "surface.unknown_statement");
  EXPECT_THAT(unknown.error().message,
              HasSubstr("has no Query statement \"nope\" (queries: events)"));

  authority::Authority auth(*store_, road_.get());
  QueryRequest q{c.artifact.id, 0, "events", "", std::nullopt};
  auto refused = ExecuteQuery(*store_, *road_, &auth, q, authority::Actor::User("tester"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, "authority.no_grant");
  ASSERT_TRUE(auth.Grant("calendar", "", "read", 0, authority::Actor::User("tester")).ok());
  auto allowed = ExecuteQuery(*store_, *road_, &auth, q, authority::Actor::User("tester"));
  ASSERT_TRUE(allowed.ok()) << allowed.error().ToString();
  EXPECT_TRUE(allowed->receipt.match());
}

TEST_F(Grounding, MutationsAreStagedNeverRun) {
  Composed c = Save(
      "create = Mutation(\"calendar_create_event\", {summary: $t, start: $s, end: $e})\n"
      "root = Button(\"Stage\", Action([@Run(create)]))\n");
  ASSERT_TRUE(c.ok()) << c.error->ToString();
  authority::Authority auth(*store_, road_.get());
  ASSERT_TRUE(auth.Grant("calendar", "", "write", 0, authority::Actor::User("tester")).ok());
  const std::string before = ReadText(ics_);
  auto staged = StageMutation(
      *store_, auth, c.artifact.id, 0, "create",
      {{"summary", "Offsite"}, {"start", "2026-12-03T10:00:00Z"}, {"end", "2026-12-03T11:00:00Z"}},
      authority::Actor::User("tester"));
  ASSERT_TRUE(staged.ok()) << staged.error().ToString();
  EXPECT_EQ(staged->status, "pending");
  EXPECT_EQ(staged->operation, "create_event");
  EXPECT_EQ(staged->evidence["artifactId"], c.artifact.id);
  EXPECT_EQ(ReadText(ics_), before);  // nothing ran
}

TEST_F(Grounding, ALiveAppUpdatesAfterAMirrorSync) {
  Composed c = Save(kWeekProgram, "live_app", "week");
  ASSERT_TRUE(c.ok()) << c.error->ToString();
  LiveApps apps(*store_, *road_, nullptr, authority::Actor::User("tester"));
  auto first = apps.Open("week");
  ASSERT_TRUE(first.ok()) << first.error().ToString();
  EXPECT_EQ(first->generation, 1);
  const size_t rows = first->runs.at("events").rows.size();

  // The source changes: a new event next week. Until the mirror syncs, the app shows the mirror.
  std::string text = ReadText(ics_);
  text.insert(text.rfind("END:VCALENDAR"),
              "BEGIN:VEVENT\r\nUID:added@team\r\nSUMMARY:Added after sync\r\n"
              "DTSTART:20261203T150000Z\r\nDTEND:20261203T160000Z\r\nEND:VEVENT\r\n");
  WriteText(ics_, text);
  auto unchanged = apps.Open("week");
  ASSERT_TRUE(unchanged.ok());
  EXPECT_EQ(unchanged->generation, 1);
  EXPECT_EQ(unchanged->runs.at("events").rows.size(), rows);

  clock_ += 60;
  auto refreshed = apps.SyncAndRefresh("calendar");
  ASSERT_TRUE(refreshed.ok()) << refreshed.error().ToString();
  EXPECT_EQ(*refreshed, std::vector<std::string>{c.artifact.id});
  auto after = apps.Open("week");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->generation, 2);
  const auto& run = after->runs.at("events");
  EXPECT_TRUE(run.receipt.match());
  ASSERT_EQ(run.rows.size(), rows + 1);
  bool found = false;
  for (const auto& row : run.rows) found = found || row.value("summary", "") == "Added after sync";
  EXPECT_TRUE(found);

  // A sync by someone else (another road on the same mirror) is seen on the next open.
  connect::ConnectorRoad other({CalendarManifest(ics_)}, TestOptions(dir_, &clock_));
  clock_ += 60;
  ASSERT_TRUE(other.Sync("calendar").ok());
  auto polled = apps.Open("week");
  ASSERT_TRUE(polled.ok());
  EXPECT_EQ(polled->generation, 3);

  // A restart: a new LiveApps (and store handle) reopens the app by slug from the store.
  LiveApps restarted(*store_, *road_, nullptr, authority::Actor::User("tester"));
  auto reopened = restarted.Open("week");
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(reopened->app.artifact.id, c.artifact.id);
  EXPECT_EQ(reopened->runs.at("events").rows.size(), rows + 1);
}

TEST_F(Grounding, OnlyLiveAppsAreLiveApps) {
  Composed c = Save(kWeekProgram, "panel");
  LiveApps apps(*store_, *road_, nullptr, authority::Actor::User("tester"));
  auto opened = apps.Open(c.artifact.id);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().code, "surface.not_a_live_app");
}

}  // namespace
}  // namespace affordance::surface
