// The calendar connector: .ics files through libical into the events table of a WAL mirror;
// recurrence expansion, crash safety, mirror-first answers during a sync, conflicts by SQL.
#include "connect/calendar.h"
#include "connect/mirror.h"
#include "connect/road.h"
#include "connect/sql_guard.h"
#include "support.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <condition_variable>
#include <csignal>
#include <filesystem>
#include <mutex>

namespace affordance::connect {
namespace {

using nlohmann::json;
using testing::CalendarManifest;
using testing::kNow;
using testing::ScriptedChooser;
using testing::Source;
using testing::TempDir;
using testing::TestOptions;

json Rows(const std::string& mirror, const std::string& sql) {
  auto guard = SqlGuard::Open(mirror);
  EXPECT_TRUE(guard.ok()) << (guard.ok() ? "" : guard.error().ToString());
  auto rows = (*guard)->Run(sql);
  EXPECT_TRUE(rows.ok()) << (rows.ok() ? "" : rows.error().ToString());
  return rows.ok() ? json(rows->rows) : json();
}

TEST(CalendarSync, ExpandsRecurrenceHonouringExdateOverridesAndTimeZones) {
  TempDir dir;
  std::string mirror = dir / "mirror.db";
  auto rows = SyncCalendar(CalendarManifest(), mirror, kNow, {});
  ASSERT_TRUE(rows.ok()) << rows.error().ToString();
  json week = Rows(mirror,
                   "SELECT id, summary, start, end, all_day FROM events WHERE start_ts >= "
                   "unixepoch('2026-11-30') AND start_ts < unixepoch('2026-12-07') ORDER BY "
                   "start_ts, id");
  json expected = json::parse(R"J([
    {"id":"standup@team/2026-11-30T09:00:00Z","summary":"Team standup","start":"2026-11-30T09:00:00Z","end":"2026-11-30T09:30:00Z","all_day":0},
    {"id":"design-review@team","summary":"Design review","start":"2026-12-01T14:00:00Z","end":"2026-12-01T15:00:00Z","all_day":0},
    {"id":"dentist@me","summary":"Dentist","start":"2026-12-01T14:30:00Z","end":"2026-12-01T15:15:00Z","all_day":0},
    {"id":"berlin-sync@team","summary":"Berlin sync","start":"2026-12-02T09:00:00Z","end":"2026-12-02T10:00:00Z","all_day":0},
    {"id":"offsite@team","summary":"Offsite","start":"2026-12-03","end":"2026-12-04","all_day":1},
    {"id":"standup@team/2026-12-04T10:00:00Z","summary":"Team standup (moved)","start":"2026-12-04T10:00:00Z","end":"2026-12-04T10:30:00Z","all_day":0},
    {"id":"lunch-ana@me","summary":"Lunch with Ana","start":"2026-12-04T10:15:00Z","end":"2026-12-04T11:00:00Z","all_day":0}
  ])J");
  EXPECT_EQ(week, expected) << week.dump(1);
  // Outside the window: not mirrored. Text values are unescaped and keep their UTF-8.
  EXPECT_EQ(Rows(mirror, "SELECT count(*) AS n FROM events WHERE uid = 'old@team'")[0]["n"], 0);
  json lunch = Rows(mirror, "SELECT location FROM events WHERE uid = 'lunch-ana@me'");
  EXPECT_EQ(lunch[0]["location"], "Café Süd");
  json review = Rows(mirror, "SELECT description FROM events WHERE uid = 'design-review@team'");
  EXPECT_EQ(review[0]["description"], "Review the connector road, mirrors and the SQL guard");
  SyncRecord record = ReadSyncRecord(mirror);
  EXPECT_TRUE(record.synced);
  EXPECT_EQ(record.synced_at, kNow);
  EXPECT_EQ(record.rows, *rows);
  EXPECT_EQ(record.source, "ics");
  // WAL mode, as promised: header bytes 18 and 19 (read/write format versions) are 2.
  std::string header = testing::ReadText(mirror).substr(0, 20);
  EXPECT_EQ(header[18], 2);
  EXPECT_EQ(header[19], 2);
}

// Exporters (Google, Outlook) write an override's RECURRENCE-ID in the series' TZID: the override
// replaces the instance it names, whose UTC time is not that wall time.
TEST(CalendarSync, AnOverrideWhoseRecurrenceIdHasATzidReplacesItsInstance) {
  TempDir dir;
  std::string mirror = dir / "mirror.db";
  auto exported = CalendarManifest(Source("tests/fixtures/connect/exported_calendar.ics"));
  ASSERT_TRUE(SyncCalendar(exported, mirror, kNow, {}).ok());
  json days =
      Rows(mirror,
           "SELECT summary, start FROM events WHERE uid = "
           "'5f2c9a1e8b7d4c3aa1b2c3d4e5f60718@google.com' AND start_ts >= "
           "unixepoch('2026-11-26') AND start_ts < unixepoch('2026-11-28') ORDER BY start_ts");
  EXPECT_EQ(days, json::parse(R"J([
    {"summary":"Daily standup ☕","start":"2026-11-26T08:30:00Z"},
    {"summary":"Daily standup ☕ (moved)","start":"2026-11-27T10:00:00Z"}
  ])J"))
      << days.dump(1);
}

TEST(CalendarSync, BadSourcesFailAndLeaveThePreviousMirror) {
  TempDir dir;
  std::string mirror = dir / "mirror.db";
  ASSERT_TRUE(SyncCalendar(CalendarManifest(), mirror, kNow, {}).ok());
  int64_t before = ReadSyncRecord(mirror).rows;
  testing::WriteText(dir / "junk.ics", "this is not a calendar\n");
  auto junk = SyncCalendar(CalendarManifest(dir / "junk.ics"), mirror, kNow + 60, {});
  ASSERT_FALSE(junk.ok());
  EXPECT_EQ(junk.error().code, "connect.ics_invalid");
  EXPECT_EQ(junk.error().detail, dir / "junk.ics");
  auto missing = SyncCalendar(CalendarManifest(dir / "gone.ics"), mirror, kNow + 60, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, "connect.source_missing");
  EXPECT_EQ(ReadSyncRecord(mirror).rows, before);
  EXPECT_EQ(ReadSyncRecord(mirror).synced_at, kNow);
}

TEST(CalendarSync, ProcessKilledMidSyncLeavesPreviousMirrorReadableAndConsistent) {
  TempDir dir;
  std::string mirror = dir / "mirror.db";
  ASSERT_TRUE(SyncCalendar(CalendarManifest(), mirror, kNow, {}).ok());
  SyncRecord before = ReadSyncRecord(mirror);
  json before_rows = Rows(mirror, "SELECT id FROM events ORDER BY id");

  std::string big = dir / "big.ics";
  testing::GenerateIcs(big, 8000, kNow - 86400);
  ConnectorManifest big_calendar = CalendarManifest(big);
  big_calendar.sync.future_days = 400;  // all 8000 events fall inside the window
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // Child: sync the big calendar and die by SIGKILL halfway through writing it.
    auto progress = [](const SyncProgress& p) {
      if (p.phase == "write" && p.done >= 4000) raise(SIGKILL);
    };
    (void)SyncCalendar(big_calendar, mirror, kNow + 3600, progress);
    _exit(3);  // reaching here means the kill did not happen
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited " << WEXITSTATUS(status);
  ASSERT_EQ(WTERMSIG(status), SIGKILL);

  SyncRecord after = ReadSyncRecord(mirror);
  EXPECT_EQ(after.synced_at, before.synced_at);
  EXPECT_EQ(after.rows, before.rows);
  EXPECT_EQ(Rows(mirror, "SELECT id FROM events ORDER BY id"), before_rows);
  EXPECT_EQ(Rows(mirror, "PRAGMA table_info(events)").size(), 14u);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(mirror.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, nullptr);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "ok");
  sqlite3_finalize(st);
  sqlite3_close(db);

  // The next sync recovers and replaces the content.
  auto again = SyncCalendar(big_calendar, mirror, kNow + 7200, {});
  ASSERT_TRUE(again.ok()) << again.error().ToString();
  EXPECT_EQ(*again, 8000);
  EXPECT_EQ(ReadSyncRecord(mirror).rows, 8000);
}

// Blocks a sync at its first write progress until released.
class Gate {
 public:
  void WaitAtWrite(const SyncProgress& p) {
    if (p.phase != "write") return;
    std::unique_lock<std::mutex> lock(mu_);
    reached_ = true;
    cv_.notify_all();
    cv_.wait(lock, [&] { return open_; });
  }
  void AwaitReached() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return reached_; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool reached_ = false, open_ = false;
};

TEST(CalendarRoad, AnswersFromTheMirrorAtOnceWhileABackgroundSyncRuns) {
  TempDir dir;
  std::string ics = dir / "cal.ics";
  std::filesystem::copy_file(Source("examples/connectors/calendar.ics"), ics);
  int64_t clock = kNow;
  ConnectorRoad road({CalendarManifest(ics)}, TestOptions(dir, &clock));
  ConnectorCommand search{"calendar",
                          {{"operation", "search_events"}, {"args", {{"text", "dentist"}}}},
                          std::nullopt,
                          std::nullopt};
  auto first = road.RunConnectorCommand(search);  // empty mirror: auto syncs first
  ASSERT_TRUE(first.ok()) << first.error().ToString();
  EXPECT_EQ(first->mirror_snapshot.serving_decision, "live");
  EXPECT_EQ(first->operation_ledger.at(0).source, "live");
  ASSERT_EQ(first->rows.size(), 1u);

  // The source changes (the dentist is cancelled) and the mirror goes stale.
  testing::GenerateIcs(ics, 50, kNow);
  clock = kNow + 7200;
  Gate gate;
  auto started = road.StartSync("calendar", [&](const SyncProgress& p) { gate.WaitAtWrite(p); });
  ASSERT_TRUE(started.ok());
  ASSERT_TRUE(*started);
  gate.AwaitReached();                        // the sync holds its write transaction open now
  EXPECT_FALSE(*road.StartSync("calendar"));  // one sync per connector at a time

  auto during = road.RunConnectorCommand(search);
  ASSERT_TRUE(during.ok()) << during.error().ToString();
  EXPECT_EQ(during->mirror_snapshot.serving_decision, "mirror_first_while_syncing");
  EXPECT_EQ(during->mirror_snapshot.freshness.state, "syncing");
  EXPECT_EQ(during->mirror_snapshot.freshness.synced_at, kNow);
  EXPECT_EQ(during->mirror_snapshot.freshness.age_s, 7200);
  EXPECT_EQ(during->operation_ledger.at(0).source, "mirror");
  ASSERT_EQ(during->rows.size(), 1u);
  EXPECT_EQ(during->rows[0]["summary"], "Dentist");

  gate.Open();
  road.WaitForSyncs();
  EXPECT_FALSE(road.LastSyncError("calendar").has_value());
  auto after = road.RunConnectorCommand(search);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->mirror_snapshot.serving_decision, "mirror");
  EXPECT_EQ(after->mirror_snapshot.freshness.state, "mirrored");
  EXPECT_EQ(after->mirror_snapshot.freshness.mirror_rows, 50);
  EXPECT_TRUE(after->rows.empty());
}

TEST(CalendarRoad, StaleMirrorInAutoModeStartsABackgroundSync) {
  TempDir dir;
  int64_t clock = kNow;
  ConnectorRoad road({CalendarManifest()}, TestOptions(dir, &clock));
  ASSERT_TRUE(road.Sync("calendar").ok());
  clock = kNow + 3601;
  ConnectorCommand cmd{"calendar",
                       {{"operation", "search_events"}, {"args", {{"text", "offsite"}}}},
                       std::nullopt,
                       std::nullopt};
  auto stale = road.RunConnectorCommand(cmd);
  ASSERT_TRUE(stale.ok());
  EXPECT_EQ(stale->mirror_snapshot.serving_decision, "mirror_first_while_syncing");
  EXPECT_EQ(stale->rows.size(), 1u);
  road.WaitForSyncs();
  EXPECT_EQ(ReadSyncRecord(road.MirrorPath(*road.Find("calendar"))).synced_at, kNow + 3601);
}

TEST(CalendarRoad, LocalModeNeverSyncsAndSaysSoWhenEmpty) {
  TempDir dir;
  ConnectorRoad road({CalendarManifest()}, TestOptions(dir));
  ConnectorCommand cmd{"calendar",
                       {{"operation", "search_events"}, {"args", {{"text", "x"}}}},
                       std::nullopt,
                       SourceMode::kLocal};
  auto empty = road.RunConnectorCommand(cmd);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, "connect.mirror_empty");
  EXPECT_EQ(empty.error().message,
            "the mirror of \"calendar\" has never been synced; run `affordance connector sync "
            "calendar` or use the live mode");
  cmd.mode = SourceMode::kLive;
  auto live = road.RunConnectorCommand(cmd);
  ASSERT_TRUE(live.ok()) << live.error().ToString();
  EXPECT_EQ(live->mirror_snapshot.serving_decision, "live");
  cmd.mode = SourceMode::kLocal;
  auto local = road.RunConnectorCommand(cmd);
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(local->mirror_snapshot.serving_decision, "mirror");
  EXPECT_EQ(local->mirror_snapshot.freshness.state, "mirrored");
}

// "What conflicts next week?": the road never reads those words. The chooser (the model, here a
// script) writes the SQL; the mirror answers it with a self-join on overlapping intervals.
TEST(CalendarRoad, ConflictsNextWeekAreAnsweredBySqlOverTheMirror) {
  TempDir dir;
  ConnectorRoad road({CalendarManifest()}, TestOptions(dir));
  const std::string conflicts =
      "SELECT a.summary AS first, b.summary AS second, a.start AS first_start, "
      "b.start AS second_start FROM events a JOIN events b ON a.id < b.id "
      "AND a.start_ts < b.end_ts AND b.start_ts < a.end_ts "
      "WHERE a.start_ts < unixepoch('2026-12-07') AND a.end_ts > unixepoch('2026-11-30') "
      "ORDER BY a.start_ts, a.id";
  ScriptedChooser chooser({Choice{"sql", {{"query", conflicts}}, ""}});
  auto result = road.RunConnectorCommand(
      {"calendar", "What conflicts next week?", std::nullopt, std::nullopt}, &chooser);
  ASSERT_TRUE(result.ok()) << result.error().ToString();
  EXPECT_EQ(result->status, "ok");
  json rows = result->rows;
  EXPECT_EQ(rows, json::parse(R"J([
    {"first":"Dentist","second":"Design review","first_start":"2026-12-01T14:30:00Z","second_start":"2026-12-01T14:00:00Z"},
    {"first":"Lunch with Ana","second":"Team standup (moved)","first_start":"2026-12-04T10:15:00Z","second_start":"2026-12-04T10:00:00Z"}
  ])J"))
      << rows.dump(1);
  ASSERT_EQ(chooser.asked.size(), 1u);
  const ChoiceRequest& asked = chooser.asked[0];
  EXPECT_EQ(asked.request, "What conflicts next week?");
  EXPECT_EQ(asked.connector, "calendar");
  EXPECT_EQ(asked.mirror_tables.at(0).name, "events");
  bool offers_sql = false, offers_mutation = false;
  for (const auto& c : asked.candidates) {
    offers_sql = offers_sql || c.operation == "sql";
    offers_mutation = offers_mutation || c.kind == "mutation";
  }
  EXPECT_TRUE(offers_sql);
  EXPECT_FALSE(offers_mutation);
  EXPECT_EQ(result->resolution, json::parse(R"({"by":"chooser","steps":1})"));
  ASSERT_EQ(result->operation_ledger.size(), 1u);
  EXPECT_EQ(result->operation_ledger[0].command, "sql");
  EXPECT_EQ(result->operation_ledger[0].args["query"], conflicts);
  EXPECT_EQ(result->registered_query_handles, std::vector<std::string>{"calendar_sql"});
  EXPECT_EQ(result->query_contracts.at(0).served_fields,
            (std::vector<std::string>{"first", "second", "first_start", "second_start"}));
  ASSERT_EQ(result->mutation_contracts.size(), 3u);
  EXPECT_EQ(result->mutation_contracts[0].operation, "create_event");
  EXPECT_EQ(result->mutation_contracts[1].operation, "update_event");
  EXPECT_EQ(result->mutation_contracts[2].operation, "delete_event");
}

TEST(CalendarRoad, IdOnlyListFansOutToBoundedParallelDetailReads) {
  TempDir dir;
  ConnectorRoad road({CalendarManifest()}, TestOptions(dir));
  ConnectorCommand cmd{
      "calendar",
      {{"operation", "event_ids"}, {"args", {{"from", "2026-11-30"}, {"to", "2026-12-07"}}}},
      5,
      std::nullopt};
  auto result = road.RunConnectorCommand(cmd);
  ASSERT_TRUE(result.ok()) << result.error().ToString();
  ASSERT_EQ(result->rows.size(), 5u);  // 7 IDs listed, bounded by the limit before reading
  EXPECT_EQ(result->rows[1]["description"], "Review the connector road, mirrors and the SQL guard");
  EXPECT_EQ(result->rows[1]["id"], "design-review@team");
  ASSERT_EQ(result->operation_ledger.size(), 2u);
  EXPECT_EQ(result->operation_ledger[0].command, "event_ids");
  EXPECT_EQ(result->operation_ledger[0].rows, 7);
  const LedgerEntry& detail = result->operation_ledger[1];
  EXPECT_EQ(detail.command, "event_detail");
  EXPECT_EQ(detail.args["id"].size(), 5u);
  EXPECT_EQ(detail.fan_out["requested"], 5);
  EXPECT_EQ(detail.fan_out["succeeded"], 5);
  EXPECT_EQ(detail.fan_out["failed"], 0);
  EXPECT_EQ(result->registered_query_handles,
            (std::vector<std::string>{"calendar_event_ids", "calendar_event_detail"}));
}

}  // namespace
}  // namespace affordance::connect
