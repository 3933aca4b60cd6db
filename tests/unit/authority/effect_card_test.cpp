// The effect card: what a person reads before deciding a staged write. It is computed from the
// mutation contract and the exact arguments when the write is staged, with the current values of
// an update or delete from a fresh read of the source, and stored with the approval and the
// digest of its request. What the person approved is exactly what runs.
#include "connect/effect.h"
#include "support.h"

#include <gmock/gmock.h>

#include <cstdlib>
#include <ctime>

namespace affordance::authority::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

// Runs the test's formatting in a named zone and restores the process's zone after it.
class InZone {
 public:
  explicit InZone(const char* tz) {
    const char* old = std::getenv("TZ");
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv("TZ", tz, 1);
    tzset();
  }
  ~InZone() {
    if (had_) {
      setenv("TZ", old_.c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }

 private:
  bool had_ = false;
  std::string old_;
};

const json* FieldOf(const json& effect, const std::string& name) {
  for (const auto& f : effect["fields"]) {
    if (f["name"] == name) return &f;
  }
  return nullptr;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

TEST(EffectCard, ACreateNamesWhatWhereAndEachFieldInThePersonsZone) {
  World w;
  w.GrantWrite("calendar");
  auto staged = w.authority->Stage({"calendar",
                                    "create_event",
                                    {{"summary", "Budget sync"},
                                     {"start", "2026-12-03T15:00:00Z"},
                                     {"end", "2026-12-03T16:00:00Z"},
                                     {"location", "Room 9"}}},
                                   Actor::Model());
  ASSERT_TRUE(staged.ok()) << staged.error().ToString();
  const json& e = staged->effect;
  EXPECT_EQ(e["verb"], "create");
  EXPECT_EQ(e["summary"], "Create event “Budget sync”");
  EXPECT_EQ(e["target"], "Team calendar (calendar.ics)");
  ASSERT_NE(FieldOf(e, "start"), nullptr);
  EXPECT_EQ((*FieldOf(e, "start"))["kind"], "datetime");
  EXPECT_EQ((*FieldOf(e, "start"))["after"], "2026-12-03T15:00:00Z");
  EXPECT_FALSE(e.contains("before"));  // a create reads nothing
  EXPECT_EQ(staged->digest, RequestDigest(staged->request));
  EXPECT_EQ(staged->digest.size(), 64u);
  EXPECT_EQ(staged->expires_ms, w.now_ms + 7LL * 24 * 3600 * 1000);

  // Stored with the approval: every door reads the same card.
  auto loaded = w.store->GetApproval(staged->id);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->effect, e);
  auto report = w.authority->Report(staged->id);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->ToJson()["effect"], e);
  EXPECT_EQ(report->ToJson()["digest"], staged->digest);

  InZone berlin("Europe/Berlin");
  std::string text = Joined(connect::EffectLines(e, staged->expires_ms, w.now_ms));
  EXPECT_THAT(text, HasSubstr("Create event “Budget sync”"));
  EXPECT_THAT(text, HasSubstr("in Team calendar (calendar.ics)"));
  EXPECT_THAT(text, HasSubstr("Thu 3 Dec 2026, 16:00 CET"));  // 15:00 UTC in Berlin
  EXPECT_THAT(text, HasSubstr("Room 9"));
  EXPECT_THAT(text, HasSubstr("expires"));
  EXPECT_THAT(text, HasSubstr("(in 7 days)"));
}

// Issue 42: one rounding rule for the time left, the web's too
// (tests/unit/server/web_until.test.mjs checks this same table against web/src/until.ts). A card
// read a few seconds after staging says
// "(in 7 days)" at every door, not "(in 6 days)" here and "(in 7 days)" there.
TEST(EffectCard, OneRoundingRuleForTheTimeLeft) {
  constexpr int64_t H = 3600 * 1000, D = 24 * H;
  const json effect = {{"summary", "Create event"}, {"target", "Team calendar"}};
  const std::vector<std::pair<int64_t, std::string>> table = {{5000, "5 s"},
                                                              {89999, "89 s"},
                                                              {90000, "2 min"},
                                                              {29 * 60000 + 29999, "29 min"},
                                                              {29 * 60000 + 30000, "30 min"},
                                                              {90 * 60000, "2 h"},
                                                              {5 * H + 29 * 60000, "5 h"},
                                                              {5 * H + 30 * 60000, "6 h"},
                                                              {36 * H - 1000, "36 h"},
                                                              {36 * H, "2 days"},
                                                              {7 * D - 5000, "7 days"},
                                                              {7 * D - 13 * H, "6 days"},
                                                              {6 * D + 12 * H, "7 days"}};
  const int64_t now = 1795780800000;
  for (const auto& [left, words] : table) {
    std::string text = Joined(connect::EffectLines(effect, now + left, now));
    EXPECT_THAT(text, HasSubstr("(in " + words + ")")) << left;
  }
}

TEST(EffectCard, ADeleteShowsTheEventAsAFreshReadFindsItNow) {
  World w;
  w.GrantWrite("calendar");
  auto staged = w.authority->Stage({"calendar", "delete_event", {{"uid", "design-review@team"}}},
                                   Actor::Model());
  ASSERT_TRUE(staged.ok()) << staged.error().ToString();
  const json& e = staged->effect;
  EXPECT_EQ(e["summary"], "Delete event “Design review”");
  EXPECT_EQ(e["before"]["found"], true);
  EXPECT_EQ(e["before"]["read"], "the calendar file");
  ASSERT_NE(FieldOf(e, "start"), nullptr);
  EXPECT_EQ((*FieldOf(e, "start"))["before"], "2026-12-01T14:00:00Z");
  EXPECT_FALSE(FieldOf(e, "start")->contains("after"));
  InZone ny("America/New_York");
  std::string text = Joined(connect::EffectLines(e, staged->expires_ms, w.now_ms));
  EXPECT_THAT(text, HasSubstr("Tue 1 Dec 2026, 09:00 EST  (removed)"));
  EXPECT_THAT(text, HasSubstr("Room 2  (removed)"));

  // A recurring event goes with every occurrence, and the card says so.
  auto series =
      w.authority->Stage({"calendar", "delete_event", {{"uid", "standup@team"}}}, Actor::Model());
  ASSERT_TRUE(series.ok());
  EXPECT_EQ(series->effect["summary"], "Delete event “Team standup”, every occurrence");

  // Nothing to delete: staged, and the card says the fresh read found nothing.
  auto none = w.authority->Stage({"calendar", "delete_event", {{"uid", "nope@x"}}}, Actor::Model());
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->effect["before"]["found"], false);
  EXPECT_THAT(Joined(connect::EffectLines(none->effect, 0, w.now_ms)),
              HasSubstr("a fresh read found nothing to change"));
}

TEST(EffectCard, AnUpdateShowsBeforeAndAfterOfEachChangedField) {
  World w;
  w.GrantWrite("calendar");
  auto staged = w.authority->Stage(
      {"calendar",
       "update_event",
       {{"uid", "design-review@team"}, {"start", "2026-12-01T15:00:00Z"}, {"location", "Room 2"}}},
      Actor::Model());
  ASSERT_TRUE(staged.ok()) << staged.error().ToString();
  const json& e = staged->effect;
  EXPECT_EQ(e["summary"], "Change event “Design review”");
  EXPECT_EQ((*FieldOf(e, "start"))["before"], "2026-12-01T14:00:00Z");
  EXPECT_EQ((*FieldOf(e, "start"))["after"], "2026-12-01T15:00:00Z");
  EXPECT_EQ((*FieldOf(e, "start"))["changed"], true);
  EXPECT_EQ((*FieldOf(e, "location"))["changed"], false);
  InZone utc("UTC");
  std::string text = Joined(connect::EffectLines(e, 0, w.now_ms));
  EXPECT_THAT(text, HasSubstr("Tue 1 Dec 2026, 14:00 UTC → Tue 1 Dec 2026, 15:00 UTC"));
  EXPECT_THAT(text, HasSubstr("Room 2  (unchanged)"));
}

// Issue 43 item 4: an out-of-range time was normalised (T99 became 03:00 four days later) so the
// card and the write named different instants. Now nothing that is no real instant is staged.
TEST(EffectCard, ATimeThatIsNoRealInstantIsRefusedAtStagingAndTheFileIsUntouched) {
  World w;
  w.GrantWrite("calendar");
  const std::string ics = w.dir / "connectors/calendar.ics";
  const std::string before = ReadText(ics);
  const char* bad[] = {"2026-12-03T99:00:00Z",  "2026-12-03T25:00:00Z", "2026-12-32T15:00:00Z",
                       "2026-13-03T15:00:00Z",  "2026-00-03T15:00:00Z", "2026-12-03T-1:00:00Z",
                       "2026--1-03T15:00:00Z",  "2026-02-30T15:00:00Z", "2026-12-31T23:59:60Z",
                       "2026-12-03T15:60:00Z",  "2026-12-03T15:00:00",  "2026-12-03T16:00:00+01:00",
                       "2026-12-03T15:00:00.5Z"};
  for (const char* t : bad) {
    for (const char* op : {"create_event", "update_event"}) {
      json args = {{"summary", "Budget sync"}, {"start", t}, {"end", "2026-12-09T16:00:00Z"}};
      if (std::string(op) == "update_event") args = {{"uid", "design-review@team"}, {"start", t}};
      auto staged = w.authority->Stage({"calendar", op, args}, Actor::Model());
      ASSERT_FALSE(staged.ok()) << op << " " << t;
      EXPECT_EQ(staged.error().code, "authority.bad_args") << t;
      EXPECT_EQ(staged.error().kind, ErrorKind::kInvalid) << t;
      EXPECT_THAT(staged.error().message, HasSubstr(std::string("\"") + t + "\"")) << t;
      EXPECT_THAT(staged.error().message, HasSubstr("not an ISO 8601 UTC time")) << t;
    }
  }
  // The reason names the field that is out of range.
  auto t99 =
      w.authority->Stage({"calendar",
                          "update_event",
                          {{"uid", "design-review@team"}, {"start", "2026-12-03T99:00:00Z"}}},
                         Actor::Model());
  ASSERT_FALSE(t99.ok());
  EXPECT_THAT(t99.error().message, HasSubstr("/start"));
  EXPECT_THAT(t99.error().message, HasSubstr("hour 99 is out of range"));
  auto feb = w.authority->Stage({"calendar",
                                 "update_event",
                                 {{"uid", "design-review@team"}, {"end", "2026-02-30T10:00:00Z"}}},
                                Actor::Model());
  ASSERT_FALSE(feb.ok());
  EXPECT_THAT(feb.error().message, HasSubstr("30 February 2026 does not exist"));
  // An end before its start is refused too.
  auto backwards = w.authority->Stage({"calendar",
                                       "create_event",
                                       {{"summary", "Backwards"},
                                        {"start", "2026-12-03T16:00:00Z"},
                                        {"end", "2026-12-03T15:00:00Z"}}},
                                      Actor::Model());
  ASSERT_FALSE(backwards.ok());
  EXPECT_THAT(backwards.error().message, HasSubstr("is not after /start"));

  // Nothing was staged and the file did not change.
  auto pending = w.store->ListApprovals("pending", "");
  ASSERT_TRUE(pending.ok());
  EXPECT_TRUE(pending->empty());
  EXPECT_EQ(ReadText(ics), before);

  // A real instant on 29 February of a leap year is staged, shown and written as that instant.
  auto leap = w.authority->Stage(
      {"calendar",
       "create_event",
       {{"summary", "Leap"}, {"start", "2028-02-29T23:00:00Z"}, {"end", "2028-02-29T23:30:00Z"}}},
      Actor::Model());
  ASSERT_TRUE(leap.ok()) << leap.error().ToString();
  {
    InZone utc("UTC");
    EXPECT_THAT(Joined(connect::EffectLines(leap->effect, 0, w.now_ms)),
                HasSubstr("Tue 29 Feb 2028, 23:00 UTC"));
  }
  ASSERT_TRUE(w.authority->Approve(leap->id, w.person).ok());
  auto ran = w.authority->Execute(leap->id);
  ASSERT_TRUE(ran.ok()) << ran.error().ToString();
  EXPECT_THAT(ReadText(ics), HasSubstr("DTSTART:20280229T230000Z"));
}

TEST(EffectCard, AnApprovalRowWithAnOutOfRangeTimeIsRefusedBeforeItRuns) {
  // A row staged before this check existed (or edited in the store) runs nothing: execution
  // checks again, and the card's formatter shows the text as written, not a normalised time.
  World w;
  w.GrantWrite("calendar");
  const std::string ics = w.dir / "connectors/calendar.ics";
  const std::string before = ReadText(ics);
  auto staged =
      w.authority->Stage({"calendar",
                          "update_event",
                          {{"uid", "design-review@team"}, {"start", "2026-12-03T15:00:00Z"}}},
                         Actor::Model());
  ASSERT_TRUE(staged.ok()) << staged.error().ToString();
  store::ApprovalRecord edited = *staged;
  edited.args["start"] = "2026-12-03T99:00:00Z";
  edited.request = RequestText("calendar", "update_event", edited.args);
  edited.digest = RequestDigest(edited.request);
  ASSERT_TRUE(w.store->UpdateApproval(edited, "pending").ok());
  ASSERT_TRUE(w.authority->Approve(staged->id, w.person).ok());
  auto ran = w.authority->Execute(staged->id);
  ASSERT_FALSE(ran.ok());
  EXPECT_EQ(ran.error().code, "authority.bad_args");
  EXPECT_THAT(ran.error().message, HasSubstr("hour 99 is out of range"));
  EXPECT_EQ(ReadText(ics), before);
  InZone utc("UTC");
  EXPECT_EQ(connect::LocalTime("2026-12-03T99:00:00Z"), "2026-12-03T99:00:00Z");
  EXPECT_EQ(connect::LocalTime("2026-02-30"), "2026-02-30");
}

// Issue 43 item 3: an update of a recurring event showed "Change event" with the series' first
// start, moved the whole series (and its RECURRENCE-ID override) and reported only `executed`.
// Now the card names the scope, the write does exactly that, and a fresh read verifies it.
TEST(EffectCard, ASeriesUpdateSaysItMovesEveryOccurrenceAndTheWriteDoesExactlyThat) {
  World w;
  w.GrantWrite("calendar");
  const std::string ics = w.dir / "connectors/calendar.ics";
  const std::string before = ReadText(ics);
  auto staged = w.authority->Stage({"calendar",
                                    "update_event",
                                    {{"uid", "standup@team"},
                                     {"start", "2026-12-07T14:00:00Z"},
                                     {"end", "2026-12-07T14:30:00Z"}}},
                                   Actor::Model());
  ASSERT_TRUE(staged.ok()) << staged.error().ToString();
  const json& e = staged->effect;
  EXPECT_EQ(e["summary"],
            "Change every occurrence of “Team standup” (the whole series); its 1 separately "
            "changed occurrence returns to the series");
  EXPECT_EQ(e["scope"]["kind"], "series");
  // 62 occurrences in the calendar's window now (from Mon 2 Nov); 48 after (from Mon 7 Dec).
  ASSERT_NE(FieldOf(e, "occurrences"), nullptr);
  EXPECT_EQ((*FieldOf(e, "occurrences"))["before"], 62);
  EXPECT_EQ((*FieldOf(e, "occurrences"))["after"], 48);
  EXPECT_EQ((*FieldOf(e, "overrides"))["before"], 1);
  EXPECT_EQ((*FieldOf(e, "overrides"))["after"], 0);
  InZone utc("UTC");
  std::string text = Joined(connect::EffectLines(e, 0, w.now_ms));
  EXPECT_THAT(text, HasSubstr("Change every occurrence of “Team standup”"));
  EXPECT_THAT(text, HasSubstr("Occurrences in the window  62 → 48"));
  EXPECT_THAT(text, HasSubstr("Separately changed         1 → 0"));
  EXPECT_THAT(text, HasSubstr("Mon 2 Nov 2026, 09:00 UTC → Mon 7 Dec 2026, 14:00 UTC"));
  EXPECT_EQ(ReadText(ics), before);  // staging writes nothing

  ASSERT_TRUE(w.authority->Approve(staged->id, w.person).ok());
  auto ran = w.authority->Execute(staged->id);
  ASSERT_TRUE(ran.ok()) << ran.error().ToString();
  EXPECT_EQ(ran->state, "verified") << ran->ToJson().dump(1);
  EXPECT_EQ(ran->receipt->evidence["verify"]["scope"], "series");
  const std::string after = ReadText(ics);
  EXPECT_THAT(after,
              HasSubstr("UID:standup@team\r\nSUMMARY:Team standup\r\nDTSTART:20261207T140000Z\r\n"
                        "DTEND:20261207T143000Z\r\nRRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR\r\n"));
  EXPECT_THAT(after, Not(HasSubstr("RECURRENCE-ID")));  // as the card said
  EXPECT_THAT(after, Not(HasSubstr("Team standup (moved)")));
  EXPECT_THAT(after, HasSubstr("UID:design-review@team\r\nSUMMARY:Design review\r\n"));
}

TEST(EffectCard, AnOccurrenceUpdateChangesOnlyThatOccurrenceAndSaysSo) {
  World w;
  w.GrantWrite("calendar");
  const std::string ics = w.dir / "connectors/calendar.ics";
  const std::string before = ReadText(ics);
  auto staged = w.authority->Stage({"calendar",
                                    "update_event",
                                    {{"uid", "standup@team"},
                                     {"occurrence", "2026-12-07T09:00:00Z"},
                                     {"start", "2026-12-07T14:00:00Z"},
                                     {"end", "2026-12-07T14:30:00Z"}}},
                                   Actor::Model());
  ASSERT_TRUE(staged.ok()) << staged.error().ToString();
  const json& e = staged->effect;
  EXPECT_EQ(e["summary"],
            "Change one occurrence of “Team standup”; the rest of the series stays as it is");
  EXPECT_EQ(e["scope"]["kind"], "occurrence");
  EXPECT_EQ(e["scope"]["occurrence"], "2026-12-07T09:00:00Z");
  // The before values are that occurrence's, not the series' first one's.
  EXPECT_EQ((*FieldOf(e, "start"))["before"], "2026-12-07T09:00:00Z");
  EXPECT_EQ((*FieldOf(e, "end"))["before"], "2026-12-07T09:30:00Z");
  InZone utc("UTC");
  std::string text = Joined(connect::EffectLines(e, 0, w.now_ms));
  EXPECT_THAT(text, HasSubstr("Mon 7 Dec 2026, 09:00 UTC → Mon 7 Dec 2026, 14:00 UTC"));
  EXPECT_THAT(text, HasSubstr("Occurrence  Mon 7 Dec 2026, 09:00 UTC"));

  ASSERT_TRUE(w.authority->Approve(staged->id, w.person).ok());
  auto ran = w.authority->Execute(staged->id);
  ASSERT_TRUE(ran.ok()) << ran.error().ToString();
  EXPECT_EQ(ran->state, "verified") << ran->ToJson().dump(1);
  const std::string after = ReadText(ics);
  // The series and its existing override are byte for byte as they were; one VEVENT is added
  // right after the series for the one occurrence.
  const std::string series_end = "LOCATION:Room 4\r\nEND:VEVENT\r\n";
  const size_t at = before.find(series_end) + series_end.size();
  const std::string added =
      "BEGIN:VEVENT\r\nRECURRENCE-ID:20261207T090000Z\r\nDTSTART:20261207T140000Z\r\n"
      "DTEND:20261207T143000Z\r\nUID:standup@team\r\nSUMMARY:Team standup\r\nLOCATION:Room 4\r\n"
      "END:VEVENT\r\n";
  EXPECT_EQ(after, before.substr(0, at) + added + before.substr(at));

  // An occurrence changed before is named by where it is now; only its VEVENT changes.
  auto moved = w.authority->Stage({"calendar",
                                   "update_event",
                                   {{"uid", "standup@team"},
                                    {"occurrence", "2026-12-04T10:00:00Z"},
                                    {"summary", "Standup (Friday)"}}},
                                  Actor::Model());
  ASSERT_TRUE(moved.ok()) << moved.error().ToString();
  EXPECT_EQ(moved->effect["scope"]["occurrence"], "2026-12-04T09:00:00Z");
  EXPECT_EQ((*FieldOf(moved->effect, "summary"))["before"], "Team standup (moved)");
  ASSERT_TRUE(w.authority->Approve(moved->id, w.person).ok());
  auto ran2 = w.authority->Execute(moved->id);
  ASSERT_TRUE(ran2.ok()) << ran2.error().ToString();
  EXPECT_EQ(ran2->state, "verified");
  std::string expected = after;
  expected.replace(expected.find("SUMMARY:Team standup (moved)"),
                   std::string("SUMMARY:Team standup (moved)").size(), "SUMMARY:Standup (Friday)");
  EXPECT_EQ(ReadText(ics), expected);
}

TEST(EffectCard, ATextOnlySeriesUpdateKeepsChangedOccurrencesTimesAndSaysSo) {
  World w;
  w.GrantWrite("calendar");
  const std::string ics = w.dir / "connectors/calendar.ics";
  auto staged = w.authority->Stage(
      {"calendar", "update_event", {{"uid", "standup@team"}, {"location", "Room 7"}}},
      Actor::Model());
  ASSERT_TRUE(staged.ok()) << staged.error().ToString();
  EXPECT_EQ(staged->effect["summary"],
            "Change every occurrence of “Team standup” (the whole series); its 1 separately "
            "changed occurrence keeps its own time and takes the new text");
  EXPECT_EQ((*FieldOf(staged->effect, "occurrences"))["changed"], false);
  EXPECT_EQ((*FieldOf(staged->effect, "overrides"))["after"], 1);
  ASSERT_TRUE(w.authority->Approve(staged->id, w.person).ok());
  auto ran = w.authority->Execute(staged->id);
  ASSERT_TRUE(ran.ok()) << ran.error().ToString();
  EXPECT_EQ(ran->state, "verified");
  const std::string after = ReadText(ics);
  EXPECT_THAT(after, HasSubstr("RECURRENCE-ID:20261204T090000Z\r\nSUMMARY:Team standup (moved)\r\n"
                               "DTSTART:20261204T100000Z\r\nDTEND:20261204T103000Z\r\n"
                               "LOCATION:Room 7\r\n"));
  EXPECT_THAT(after, Not(HasSubstr("Room 4")));
}

TEST(EffectCard, AnOccurrenceTheSeriesDoesNotHaveIsRefusedAtStaging) {
  World w;
  w.GrantWrite("calendar");
  const std::string ics = w.dir / "connectors/calendar.ics";
  const std::string before = ReadText(ics);
  struct Case {
    const char* uid;
    const char* occurrence;
    const char* why;
  };
  const Case cases[] = {
      {"standup@team", "2026-12-08T09:00:00Z", "has no occurrence starting at"},  // a Tuesday
      {"standup@team", "2026-12-02T09:00:00Z", "has no occurrence starting at"},  // an EXDATE
      {"standup@team", "2026-12-07T09:00:00", "not an ISO 8601 UTC time"},
      {"standup@team", "2026-12-07T33:00:00Z", "hour 33 is out of range"},
      {"design-review@team", "2026-12-01T14:00:00Z", "does not recur"},
  };
  for (const auto& c : cases) {
    auto staged =
        w.authority->Stage({"calendar",
                            "update_event",
                            {{"uid", c.uid}, {"occurrence", c.occurrence}, {"summary", "Moved"}}},
                           Actor::Model());
    ASSERT_FALSE(staged.ok()) << c.occurrence;
    EXPECT_EQ(staged.error().code, "authority.bad_args");
    EXPECT_EQ(staged.error().kind, ErrorKind::kInvalid);
    EXPECT_THAT(staged.error().message, HasSubstr(c.why)) << c.occurrence;
  }
  EXPECT_EQ(ReadText(ics), before);
  auto pending = w.store->ListApprovals("pending", "");
  ASSERT_TRUE(pending.ok());
  EXPECT_TRUE(pending->empty());
}

TEST(EffectCard, AnUpdateOfAnEventThatDoesNotRecurIsVerifiedByAFreshRead) {
  World w;
  w.GrantWrite("calendar");
  auto staged = w.authority->Stage(
      {"calendar", "update_event", {{"uid", "design-review@team"}, {"location", "Room 3"}}},
      Actor::Model());
  ASSERT_TRUE(staged.ok()) << staged.error().ToString();
  EXPECT_EQ(staged->effect["summary"], "Change event “Design review”");
  EXPECT_EQ(staged->effect["scope"]["kind"], "event");
  EXPECT_EQ(FieldOf(staged->effect, "occurrences"), nullptr);
  ASSERT_TRUE(w.authority->Approve(staged->id, w.person).ok());
  auto ran = w.authority->Execute(staged->id);
  ASSERT_TRUE(ran.ok()) << ran.error().ToString();
  EXPECT_EQ(ran->state, "verified");
  EXPECT_EQ(ran->receipt->evidence["verify"]["checked"][0]["found"], "Room 3");
}

TEST(EffectCard, AGenericMutationIsDescribedFromItsSchema) {
  World w;
  w.GrantWrite("notes");
  auto staged = w.authority->Stage({"notes", "add_note", {{"body", "buy milk"}}}, Actor::Model());
  ASSERT_TRUE(staged.ok()) << staged.error().ToString();
  EXPECT_EQ(staged->effect["summary"], "Add note in Notes");
  EXPECT_EQ(staged->effect["target"], "Notes (notes.db)");
  EXPECT_EQ((*FieldOf(staged->effect, "body"))["after"], "buy milk");
}

TEST(EffectCard, AContractSummaryAndBeforeReadAreUsedWhenDeclared) {
  auto manifest = connect::ParseManifest(R"json({
    "slug": "notes", "title": "Notes", "source": {"kind": "sqlite", "path": "notes.db"},
    "modes": ["local"],
    "operations": [
      {"name": "note", "kind": "detail",
       "args": {"type": "object", "properties": {"key": {"type": "string"}}},
       "query": "SELECT key, body FROM notes WHERE key = :key"},
      {"name": "edit", "kind": "mutation", "risk": "write", "effect": "update",
       "summary": "Rewrite note {key}",
       "before": {"operation": "note", "args": {"key": "$key"}},
       "args": {"type": "object", "properties": {
         "key": {"type": "string", "title": "Note"},
         "body": {"type": "string", "title": "Text"},
         "due": {"type": "string", "format": "date", "title": "Due"}}},
       "statement": "UPDATE notes SET body = :body WHERE key = :key"}]})json",
                                         "");
  ASSERT_TRUE(manifest.ok()) << manifest.error().ToString();
  const connect::Operation& op = *manifest->FindOperation("edit");
  auto read = connect::BeforeReadOf(op, {{"key", "k1"}, {"body", "new"}});
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->operation, "note");
  EXPECT_EQ(read->args, (json{{"key", "k1"}}));
  json e = connect::DescribeMutation(*manifest, op,
                                     {{"key", "k1"}, {"body", "new"}, {"due", "2026-12-24"}},
                                     json{{"key", "k1"}, {"body", "old"}});
  EXPECT_EQ(e["summary"], "Rewrite note k1");
  EXPECT_EQ((*FieldOf(e, "body"))["label"], "Text");
  EXPECT_EQ((*FieldOf(e, "body"))["before"], "old");
  EXPECT_EQ((*FieldOf(e, "due"))["kind"], "date");
  std::string text = Joined(connect::EffectLines(e, 0, 0));
  EXPECT_THAT(text, HasSubstr("old → new"));
  EXPECT_THAT(text, HasSubstr("Thu 24 Dec 2026"));  // a date stays a day, in any zone

  // A before read must be a readable operation of the connector.
  auto bad = connect::ParseManifest(R"json({
    "slug": "n", "title": "N", "source": {"kind": "sqlite", "path": "n.db"}, "modes": ["local"],
    "operations": [{"name": "edit", "kind": "mutation", "risk": "write",
       "before": {"operation": "edit"}, "statement": "DELETE FROM t"}]})json",
                                    "");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("before/operation"));
}

TEST(EffectCard, TheDigestAPersonApprovesMustBeTheRequestAndAnEditedRowRunsNothing) {
  World w;
  w.GrantWrite("notes");
  auto staged = w.authority->Stage({"notes", "add_note", {{"body", "buy milk"}}}, Actor::Model());
  ASSERT_TRUE(staged.ok());
  auto wrong = w.authority->Approve(staged->id, w.person, "deadbeefdeadbeef");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().code, "authority.approval_mismatch");
  auto short_digest = w.authority->Approve(staged->id, w.person, staged->digest.substr(0, 4));
  ASSERT_FALSE(short_digest.ok());
  EXPECT_EQ(short_digest.error().code, "authority.approval_mismatch");
  auto right = w.authority->Approve(staged->id, w.person, staged->digest.substr(0, 12));
  ASSERT_TRUE(right.ok()) << right.error().ToString();

  // A row whose args and request text were both rewritten after the decision still carries the
  // digest of what the person saw: nothing runs.
  store::ApprovalRecord edited = *right;
  edited.args = {{"body", "wire the money"}};
  edited.request = RequestText("notes", "add_note", edited.args);
  edited.decided_request = edited.request;
  ASSERT_TRUE(w.store->UpdateApproval(edited, "approved").ok());
  auto ran = w.authority->Execute(staged->id);
  ASSERT_FALSE(ran.ok());
  EXPECT_EQ(ran.error().code, "authority.approval_mismatch");
  EXPECT_EQ(w.Notes(), 0);
}

TEST(EffectCard, AnApprovalExpiresWithItsTimeOrItsGrantWhicheverIsFirst) {
  World w;
  ASSERT_TRUE(w.authority->Grant("notes", "", "write", w.now_ms + 3600 * 1000, w.person).ok());
  auto staged = w.authority->Stage({"notes", "add_note", {{"body", "later"}}}, Actor::Model());
  ASSERT_TRUE(staged.ok());
  EXPECT_EQ(staged->expires_ms, w.now_ms + 3600 * 1000);  // the grant ends first
  w.now_ms += 3600 * 1000;
  auto late = w.authority->Approve(staged->id, w.person);
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.error().code, "authority.approval_expired");
  EXPECT_THAT(Joined(connect::EffectLines(staged->effect, staged->expires_ms, w.now_ms + 1)),
              HasSubstr("expired"));
  // Expired is settled, like a denial (nothing ran, the model is told): a late deny changes
  // nothing, and the record says why it ended.
  auto denied = w.authority->Deny(staged->id, w.person, "too late");
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.error().code, "authority.already_decided") << denied.error().message;
  auto settled = w.authority->Expire(staged->id);
  ASSERT_TRUE(settled.ok()) << settled.error().ToString();
  EXPECT_EQ(settled->status, "expired");
  EXPECT_THAT(settled->reason, HasSubstr("write grant that allowed it ended"));
  EXPECT_EQ(w.Notes(), 0);
}

TEST(EffectCard, LocalTimeReadsUtcOffsetsAndDatesAndLeavesOtherTextAlone) {
  InZone tokyo("Asia/Tokyo");
  EXPECT_EQ(connect::LocalTime("2026-12-03T15:00:00Z"), "Fri 4 Dec 2026, 00:00 JST");
  EXPECT_EQ(connect::LocalTime("2026-12-03T15:00:00.250Z"), "Fri 4 Dec 2026, 00:00 JST");
  EXPECT_EQ(connect::LocalTime("2026-12-03T16:00:00+01:00"), "Fri 4 Dec 2026, 00:00 JST");
  EXPECT_EQ(connect::LocalTime("2026-12-03"), "Thu 3 Dec 2026");
  EXPECT_EQ(connect::LocalTime("next Tuesday"), "next Tuesday");
  EXPECT_EQ(connect::LocalTime("2026-12-03T15:00:00"), "2026-12-03T15:00:00");  // no zone
  EXPECT_THAT(connect::LocalTime(std::string(100, '9')), Not(HasSubstr("JST")));
}

TEST(EffectCard, AnOldApprovalWithoutAnEffectSaysSoInsteadOfInventingOne) {
  auto lines = connect::EffectLines(json::object(), 0, 0);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], HasSubstr("no effect recorded"));
}

}  // namespace
}  // namespace affordance::authority::testing
