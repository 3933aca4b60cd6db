// The calendar write path (src/connect/calendar_write.cpp) on a calendar as exporters write them
// (tests/fixtures/connect/exported_calendar.ics: Google / Apple / Outlook style, CRLF, two
// VTIMEZONEs whose RRULE parts are in a non-canonical order, a recurring event with EXDATEs and a
// RECURRENCE-ID override, an all-day event, folded non-ASCII text, one line folded in the middle
// of a UTF-8 sequence as octet-counting exporters do, a tab continuation, VALARMs, X- properties).
// A write changes only the bytes of the VEVENTs it touches; the read side sees the change.
#include "connect/calendar.h"
#include "connect/mutate.h"
#include "connect/sql_guard.h"
#include "support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace affordance::connect {
namespace {

using nlohmann::json;
using testing::CalendarManifest;
using testing::kNow;
using testing::ReadText;
using testing::Source;
using testing::TempDir;
using testing::WriteText;

constexpr char kStandup[] = "5f2c9a1e8b7d4c3aa1b2c3d4e5f60718@google.com";
constexpr char kOffsite[] = "3b1d0c7e-offsite-2026@example.com";
constexpr char kTokyo[] = "040000008200E00074C5B7101A82E00800000000A0F1C2D3E4F5A6B7@outlook.com";

std::string Fixture() { return ReadText(Source("tests/fixtures/connect/exported_calendar.ics")); }

std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

struct Span {
  size_t begin, end;
};

// The byte spans of the VEVENTs with the line "UID:<uid>", found by plain search rather than by
// the code under test: from the BEGIN:VEVENT line before that line through the END:VEVENT line
// after it.
std::vector<Span> EventSpans(const std::string& text, const std::string& uid,
                             const std::string& eol = "\r\n") {
  std::vector<Span> out;
  const std::string line = eol + "UID:" + uid + eol, end = "END:VEVENT" + eol;
  for (size_t at = text.find(line); at != std::string::npos; at = text.find(line, at + 1)) {
    size_t begin = text.rfind("BEGIN:VEVENT" + eol, at);
    out.push_back({begin, text.find(end, at) + end.size()});
  }
  return out;
}

// `text` with the bytes of `spans` cut out.
std::string Without(const std::string& text, const std::vector<Span>& spans) {
  std::string out;
  size_t at = 0;
  for (const Span& s : spans) {
    out += text.substr(at, s.begin - at);
    at = s.end;
  }
  return out + text.substr(at);
}

std::string Bytes(const std::string& text, const Span& s) {
  return text.substr(s.begin, s.end - s.begin);
}

// The content lines of `text`: each one's bytes (physical lines with their `eol`) and its name.
struct Line {
  std::string bytes, name;
  std::vector<std::string> physical;  // without terminators
};
std::vector<Line> Lines(const std::string& text, const std::string& eol) {
  std::vector<Line> out;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find(eol, at);
    std::string physical = text.substr(at, end - at);
    if (!out.empty() && (physical[0] == ' ' || physical[0] == '\t')) {
      out.back().bytes += physical + eol;
      out.back().physical.push_back(physical);
    } else {
      out.push_back({physical + eol, physical.substr(0, physical.find_first_of(";:")), {physical}});
    }
    at = end + eol.size();
  }
  return out;
}

std::string Unfolded(const Line& line) {
  std::string out = line.physical[0];
  for (size_t i = 1; i < line.physical.size(); ++i) out += line.physical[i].substr(1);
  return out;
}

// The bytes of the lines of `text` whose names are not in `changed`, in order.
std::vector<std::string> KeptLines(const std::string& text, const std::vector<std::string>& changed,
                                   const std::string& eol = "\r\n") {
  std::vector<std::string> out;
  for (const Line& line : Lines(text, eol)) {
    if (std::find(changed.begin(), changed.end(), line.name) == changed.end()) {
      out.push_back(line.bytes);
    }
  }
  return out;
}

bool WholeUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

// Every physical line written for `line`: at most 75 octets, whole UTF-8 sequences.
void ExpectFolded(const Line& line) {
  for (size_t i = 0; i < line.physical.size(); ++i) {
    EXPECT_LE(line.physical[i].size(), 75u) << line.name << " line " << i;
    EXPECT_TRUE(WholeUtf8(line.physical[i])) << line.name << " line " << i << " splits UTF-8";
  }
}

const Line* Find(const std::vector<Line>& lines, const std::string& name) {
  for (const Line& l : lines) {
    if (l.name == name) return &l;
  }
  return nullptr;
}

Operation Op(const std::string& effect) {
  Operation op;
  op.name = effect + "_event";
  op.kind = OperationKind::kMutation;
  op.effect = effect;
  return op;
}

json Rows(const std::string& mirror, const std::string& sql) {
  auto guard = SqlGuard::Open(mirror);
  EXPECT_TRUE(guard.ok()) << (guard.ok() ? "" : guard.error().ToString());
  auto rows = (*guard)->Run(sql);
  EXPECT_TRUE(rows.ok()) << (rows.ok() ? "" : rows.error().ToString());
  return rows.ok() ? json(rows->rows) : json();
}

// A copy of a calendar text in a temporary folder, with its manifest and a mirror to read it.
struct Calendar {
  TempDir dir;
  std::string ics = dir / "calendar.ics";
  std::string mirror = dir / "mirror.db";
  ConnectorManifest manifest;

  explicit Calendar(const std::string& text) : manifest(CalendarManifest(ics)) {
    WriteText(ics, text);
  }
  Result<json> Write(const std::string& effect, const json& args, const std::string& key = "k1") {
    return WriteCalendar(manifest, Op(effect), args, key);
  }
  // Syncs the mirror from the file and runs `sql` over it.
  json Read(const std::string& sql) {
    auto synced = SyncCalendar(manifest, mirror, kNow, {});
    EXPECT_TRUE(synced.ok()) << synced.error().ToString();
    return Rows(mirror, sql);
  }
  std::string Text() const { return ReadText(ics); }
};

std::string UidRows(const std::string& uid, const std::string& columns = "*") {
  return "SELECT " + columns + " FROM events WHERE uid = '" + uid + "' ORDER BY start_ts";
}

TEST(CalendarWrite, TheFixtureReadsAsItsExporterMeantIt) {
  Calendar cal(Fixture());
  json tokyo = cal.Read(UidRows(kTokyo, "summary, location, start, end"));
  ASSERT_EQ(tokyo.size(), 1u);
  EXPECT_EQ(tokyo[0]["summary"], "東京ミーティング");
  EXPECT_EQ(tokyo[0]["start"], "2026-12-04T00:00:00Z");  // 19:00 in New York (EST)
  json offsite = cal.Read(UidRows(kOffsite, "start, end, all_day"));
  EXPECT_EQ(offsite, json::parse(R"([{"start":"2026-12-08","end":"2026-12-10","all_day":1}])"));
}

TEST(CalendarWrite, CreateInsertsOneEventBeforeEndVcalendarAndLeavesEveryOtherByte) {
  const std::string before = Fixture();
  Calendar cal(before);
  size_t rows_before = cal.Read("SELECT id FROM events").size();
  auto created = cal.Write("create", {{"summary", "Budget sync"},
                                      {"start", "2026-12-03T15:00:00Z"},
                                      {"end", "2026-12-03T16:00:00Z"},
                                      {"location", "Café Müller, Raum 2"}});
  ASSERT_TRUE(created.ok()) << created.error().ToString();
  EXPECT_EQ((*created)["uid"], "aff-k1@affordance");
  const std::string after = cal.Text();
  std::vector<Span> spans = EventSpans(after, "aff-k1@affordance");
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].begin, before.rfind("END:VCALENDAR\r\n"));
  EXPECT_EQ(Without(after, spans), before);
  EXPECT_NE(after.find("RRULE:BYDAY=-1SU;FREQ=YEARLY;BYMONTH=10\r\n"), std::string::npos)
      << "the VTIMEZONE's RRULE keeps its part order";

  const std::string event = Bytes(after, spans[0]);
  EXPECT_EQ(Count(event, "\n"), Count(event, "\r\n")) << "the file's CRLF, no bare LF";
  EXPECT_NE(event.find("\r\nSUMMARY:Budget sync\r\n"), std::string::npos) << event;
  EXPECT_NE(event.find("\r\nLOCATION:Café Müller\\, Raum 2\r\n"), std::string::npos) << event;
  EXPECT_NE(event.find("\r\nDTSTART:20261203T150000Z\r\nDTEND:20261203T160000Z\r\n"),
            std::string::npos)
      << event;
  EXPECT_NE(event.find("\r\nDTSTAMP:"), std::string::npos) << event;

  json row = cal.Read(UidRows("aff-k1@affordance", "summary, location, start, end"));
  EXPECT_EQ(row, json::parse(R"([{"summary":"Budget sync","location":"Café Müller, Raum 2",
                                  "start":"2026-12-03T15:00:00Z","end":"2026-12-03T16:00:00Z"}])"));
  EXPECT_EQ(cal.Read("SELECT id FROM events").size(), rows_before + 1);

  // The same key again: the calendar records it; nothing changes.
  auto again = cal.Write("create", {{"summary", "Budget sync"},
                                    {"start", "2026-12-03T15:00:00Z"},
                                    {"end", "2026-12-03T16:00:00Z"}});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)["already_applied"], true);
  EXPECT_EQ(cal.Text(), after);
}

TEST(CalendarWrite, UpdateRewritesOnlyTheChangedPropertiesOfThatEvent) {
  const std::string before = Fixture();
  Calendar cal(before);
  const std::string summary =
      "東京ミーティング（延期）🗓️ with the Tokyo team, guests from Berlin; and "
      "New "
      "York";
  auto updated = cal.Write(
      "update", {{"uid", kTokyo},
                 {"summary", summary},
                 {"location", "東京都千代田区丸の内1-9-1 グラントウキョウノースタワー 23階"},
                 {"start", "2026-12-10T01:00:00Z"},
                 {"end", "2026-12-10T02:00:00Z"}});
  ASSERT_TRUE(updated.ok()) << updated.error().ToString();
  const std::string after = cal.Text();
  std::vector<Span> old_span = EventSpans(before, kTokyo), new_span = EventSpans(after, kTokyo);
  ASSERT_EQ(old_span.size(), 1u);
  ASSERT_EQ(new_span.size(), 1u);
  EXPECT_EQ(Without(after, new_span), Without(before, old_span));

  // Inside the event: the unchanged location and every other line keep their bytes and places.
  const std::string old_event = Bytes(before, old_span[0]), new_event = Bytes(after, new_span[0]);
  EXPECT_EQ(KeptLines(new_event, {"SUMMARY", "DTSTART", "DTEND"}),
            KeptLines(old_event, {"SUMMARY", "DTSTART", "DTEND"}));
  std::vector<Line> lines = Lines(new_event, "\r\n");
  const Line* s = Find(lines, "SUMMARY");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(
      Unfolded(*s),
      "SUMMARY;LANGUAGE=ja:東京ミーティング（延期）🗓️ with the Tokyo team\\, "
      "guests from Berlin\\; and New York")
      << "the value changes; the line keeps its parameters";
  EXPECT_GT(s->physical.size(), 1u);
  ExpectFolded(*s);
  EXPECT_EQ(Unfolded(*Find(lines, "DTSTART")), "DTSTART:20261210T010000Z");
  EXPECT_EQ(Unfolded(*Find(lines, "DTEND")), "DTEND:20261210T020000Z");

  json row = cal.Read(UidRows(kTokyo, "summary, location, start, end"));
  EXPECT_EQ(row, (json{{{"summary", summary},
                        {"location", "東京都千代田区丸の内1-9-1 グラントウキョウノースタワー 23階"},
                        {"start", "2026-12-10T01:00:00Z"},
                        {"end", "2026-12-10T02:00:00Z"}}}));
}

TEST(CalendarWrite, UpdateOfARecurringEventChangesEachOfItsVeventsButNotTheirAlarms) {
  const std::string before = Fixture();
  Calendar cal(before);
  const std::string description =
      "New Meet link: https://meet.example.com/xyz-abcd-efg\n(ask Jana)";
  ASSERT_TRUE(cal.Write("update", {{"uid", kStandup}, {"description", description}}).ok());
  const std::string after = cal.Text();
  std::vector<Span> old_spans = EventSpans(before, kStandup),
                    new_spans = EventSpans(after, kStandup);
  ASSERT_EQ(old_spans.size(), 2u);  // the series and its RECURRENCE-ID override
  ASSERT_EQ(new_spans.size(), 2u);
  EXPECT_EQ(Without(after, new_spans), Without(before, old_spans));
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(KeptLines(Bytes(after, new_spans[i]), {"DESCRIPTION"}),
              KeptLines(Bytes(before, old_spans[i]), {"DESCRIPTION"}));
  }
  // The series's VALARM has a DESCRIPTION of its own: it stays.
  EXPECT_NE(Bytes(after, new_spans[0]).find("\r\nDESCRIPTION:This is an event reminder\r\n"),
            std::string::npos);
  std::vector<Line> series = Lines(Bytes(after, new_spans[0]), "\r\n");
  const Line* d = Find(series, "DESCRIPTION");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(Unfolded(*d),
            "DESCRIPTION:New Meet link: https://meet.example.com/xyz-abcd-efg\\n(ask Jana)");
  ExpectFolded(*d);
  json rows = cal.Read(UidRows(kStandup, "DISTINCT description, summary"));
  EXPECT_EQ(rows, (json{{{"description", description}, {"summary", "Daily standup ☕"}},
                        {{"description", description}, {"summary", "Daily standup ☕ (moved)"}}}))
      << rows.dump(1);
}

TEST(CalendarWrite, UpdateAddsAMissingPropertyBeforeTheEventsAlarm) {
  Calendar cal(Fixture());
  ASSERT_TRUE(cal.Write("update", {{"uid", kOffsite}, {"location", "Feldberg"}}).ok());
  ASSERT_TRUE(cal.Write("update", {{"uid", "nyc-monthly-review@example.com"},
                                   {"description", "Monthly numbers review"},
                                   {"summary", "NYC monthly review"},
                                   {"location", "Zoom"}})
                  .ok());
  std::string after = cal.Text();
  std::string review = Bytes(after, EventSpans(after, "nyc-monthly-review@example.com")[0]);
  EXPECT_NE(review.find("X-APPLE-TRAVEL-ADVISORY-BEHAVIOR:AUTOMATIC\r\nBEGIN:VALARM\r\n"),
            std::string::npos)
      << "nothing added after the properties: every setting replaced an existing line";
  EXPECT_NE(review.find("\r\nLOCATION:Zoom\r\n"), std::string::npos);
  EXPECT_EQ(cal.Read(UidRows(kOffsite, "location"))[0]["location"], "Feldberg");

  // An event without the property gets it after its last property, before its VALARM.
  std::string text =
      Replaced(Fixture(), "LOCATION:WeWork\\, 115 W 18th St\\, New York\\, NY 10011\r\n", "");
  Calendar bare(text);
  ASSERT_TRUE(
      bare.Write("update", {{"uid", "nyc-monthly-review@example.com"}, {"location", "Zoom"}}).ok());
  std::string added = bare.Text();
  EXPECT_NE(
      added.find("X-APPLE-TRAVEL-ADVISORY-BEHAVIOR:AUTOMATIC\r\nLOCATION:Zoom\r\nBEGIN:VALARM"),
      std::string::npos)
      << added;
  EXPECT_EQ(Without(added, EventSpans(added, "nyc-monthly-review@example.com")),
            Without(text, EventSpans(text, "nyc-monthly-review@example.com")));
}

TEST(CalendarWrite, AnEndReplacesADurationInItsPlace) {
  Calendar cal(
      "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:d@x\r\n"
      "DTSTART:20261201T100000Z\r\nDURATION:PT30M\r\nSUMMARY:Short\r\nEND:VEVENT\r\n"
      "END:VCALENDAR\r\n");
  ASSERT_TRUE(cal.Write("update", {{"uid", "d@x"}, {"end", "2026-12-01T11:00:00Z"}}).ok());
  EXPECT_EQ(cal.Text(),
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:d@x\r\n"
            "DTSTART:20261201T100000Z\r\nDTEND:20261201T110000Z\r\nSUMMARY:Short\r\nEND:VEVENT\r\n"
            "END:VCALENDAR\r\n");
  EXPECT_EQ(cal.Read(UidRows("d@x", "end"))[0]["end"], "2026-12-01T11:00:00Z");
}

TEST(CalendarWrite, UpdateToTheValuesTheEventHasWritesNothing) {
  const std::string before = Fixture();
  Calendar cal(before);
  auto same = cal.Write(
      "update", {{"uid", kOffsite},
                 {"summary", "Team offsite 🏔️ Schwarzwald"},
                 {"location", "Hütte am Feldberg, 79868 Feldberg (Schwarzwald), Deutschland"}});
  ASSERT_TRUE(same.ok()) << same.error().ToString();
  EXPECT_EQ(cal.Text(), before);
}

TEST(CalendarWrite, DeleteRemovesExactlyTheSpansOfThatUid) {
  const std::string before = Fixture();
  Calendar cal(before);
  auto removed = cal.Write("delete", {{"uid", kStandup}});
  ASSERT_TRUE(removed.ok()) << removed.error().ToString();
  EXPECT_EQ((*removed)["removed"], 2);
  const std::string after = cal.Text();
  EXPECT_EQ(after, Without(before, EventSpans(before, kStandup)));
  EXPECT_TRUE(cal.Read(UidRows(kStandup)).empty());
  EXPECT_EQ(cal.Read(UidRows(kTokyo, "summary"))[0]["summary"], "東京ミーティング");

  ASSERT_TRUE(cal.Write("delete", {{"uid", kOffsite}}).ok());
  EXPECT_EQ(cal.Text(), Without(after, EventSpans(after, kOffsite)));
  EXPECT_TRUE(cal.Read(UidRows(kOffsite)).empty());
}

TEST(CalendarWrite, AnLfOnlyFileStaysLfOnly) {
  const std::string before = Replaced(Fixture(), "\r\n", "\n");
  Calendar cal(before);
  ASSERT_TRUE(cal.Write("create", {{"summary", std::string(100, 'x') + " long, so it folds"},
                                   {"start", "2026-12-03T15:00:00Z"},
                                   {"end", "2026-12-03T16:00:00Z"}})
                  .ok());
  ASSERT_TRUE(
      cal.Write("update", {{"uid", kTokyo}, {"summary", "Tokyo meeting, rescheduled"}}).ok());
  const std::string after = cal.Text();
  EXPECT_EQ(after.find('\r'), std::string::npos);
  std::vector<Span> created = EventSpans(after, "aff-k1@affordance", "\n");
  ASSERT_EQ(created.size(), 1u);
  EXPECT_NE(Bytes(after, created[0]).find("\n x"), std::string::npos) << "folded with LF too";
  std::vector<Span> touched = EventSpans(after, kTokyo, "\n");
  touched.push_back(created[0]);
  EXPECT_EQ(Without(after, touched), Without(before, EventSpans(before, kTokyo, "\n")));
  EXPECT_EQ(cal.Read(UidRows(kTokyo, "summary"))[0]["summary"], "Tokyo meeting, rescheduled");
}

TEST(CalendarWrite, AByteOrderMarkAndAMissingFinalNewlineStay) {
  std::string before = "\xEF\xBB\xBF" + Fixture();
  before.resize(before.size() - 2);  // no CRLF after END:VCALENDAR
  Calendar cal(before);
  ASSERT_TRUE(cal.Write("create", {{"summary", "Budget sync"},
                                   {"start", "2026-12-03T15:00:00Z"},
                                   {"end", "2026-12-03T16:00:00Z"}})
                  .ok());
  const std::string after = cal.Text();
  EXPECT_EQ(after.substr(0, 3), "\xEF\xBB\xBF");
  EXPECT_EQ(after.substr(after.size() - 15), "\r\nEND:VCALENDAR");
  EXPECT_EQ(Without(after, EventSpans(after, "aff-k1@affordance")), before);
  EXPECT_EQ(cal.Read(UidRows("aff-k1@affordance", "summary"))[0]["summary"], "Budget sync");
}

TEST(CalendarWrite, NewLongNonAsciiTextIsEscapedAndFoldedAt75OctetsWithoutSplittingUtf8) {
  Calendar cal(Fixture());
  std::string summary;
  for (int i = 0; i < 6; ++i) summary += "Café Müller; 東京ミーティング, 🎉 \\ plan. ";
  summary += "End";  // libical trims trailing spaces of a value it reads
  const std::string description = "Line one,\nline two; ☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕";
  ASSERT_TRUE(cal.Write("create", {{"summary", summary},
                                   {"description", description},
                                   {"location",
                                    "東京都千代田区丸の内1-9-1 グラントウキョウノースタワー 23階"},
                                   {"start", "2026-12-03T15:00:00Z"},
                                   {"end", "2026-12-03T16:00:00Z"}})
                  .ok());
  const std::string after = cal.Text();
  std::vector<Line> lines = Lines(Bytes(after, EventSpans(after, "aff-k1@affordance")[0]), "\r\n");
  for (const Line& line : lines) ExpectFolded(line);
  ASSERT_NE(Find(lines, "SUMMARY"), nullptr);
  EXPECT_GT(Find(lines, "SUMMARY")->physical.size(), 3u);
  EXPECT_EQ(Unfolded(*Find(lines, "DESCRIPTION")),
            "DESCRIPTION:Line one\\,\\nline two\\; ☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕☕");
  json row = cal.Read(UidRows("aff-k1@affordance", "summary, description, location"));
  EXPECT_EQ(row,
            (json{{{"summary", summary},
                   {"description", description},
                   {"location", "東京都千代田区丸の内1-9-1 グラントウキョウノースタワー 23階"}}}));
}

TEST(CalendarWrite, CreateInAFolderStartsAnRfcCalendarFile) {
  TempDir dir;
  ConnectorManifest m = CalendarManifest(dir.path());
  auto created = WriteCalendar(
      m, Op("create"),
      {{"summary", "First"}, {"start", "2026-12-03T15:00:00Z"}, {"end", "2026-12-03T16:00:00Z"}},
      "k1");
  ASSERT_TRUE(created.ok()) << created.error().ToString();
  EXPECT_EQ((*created)["file"], dir / "affordance.ics");
  std::string text = ReadText(dir / "affordance.ics");
  EXPECT_EQ(text.rfind("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:", 0), 0u) << text;
  EXPECT_EQ(text.substr(text.size() - 27), "END:VEVENT\r\nEND:VCALENDAR\r\n");
  auto has = CalendarHasUid(m, "aff-k1@affordance");
  ASSERT_TRUE(has.ok());
  EXPECT_TRUE(*has);
}

TEST(CalendarWrite, ErrorsSayWhatIsWrongAndChangeNothing) {
  const std::string before = Fixture();
  Calendar cal(before);
  auto missing = cal.Write("update", {{"uid", "nope@x"}, {"summary", "x"}});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, "connect.not_found");
  EXPECT_EQ(missing.error().message, "the calendar has no event with UID \"nope@x\"");
  auto bad_time = cal.Write("update", {{"uid", kTokyo}, {"start", "2026-12-10 01:00"}});
  ASSERT_FALSE(bad_time.ok());
  EXPECT_EQ(bad_time.error().code, "connect.bad_args");
  EXPECT_EQ(bad_time.error().message,
            "/start: \"2026-12-10 01:00\" is not an ISO 8601 UTC time like 2026-12-03T15:00:00Z "
            "(it is not written YYYY-MM-DDTHH:MM:SS with Z or an offset)");
  auto no_end = cal.Write("create", {{"summary", "x"}, {"start", "2026-12-10T01:00:00Z"}});
  ASSERT_FALSE(no_end.ok());
  EXPECT_EQ(no_end.error().message, "a new event needs start and end");
  EXPECT_EQ(cal.Text(), before);

  // libical reads a VEVENT closed by END:VALARM; the write refuses to guess where it ends.
  Calendar crossed(
      "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTART:20261201T100000Z\r\n"
      "END:VALARM\r\nEND:VCALENDAR\r\n");
  auto refused = crossed.Write("delete", {{"uid", "x"}});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, "connect.ics_invalid");
  EXPECT_EQ(refused.error().message, "the calendar's VEVENT is closed by END:VALARM");
  EXPECT_EQ(refused.error().detail, crossed.ics);
  Calendar junk("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n");
  auto unreadable = junk.Write("delete", {{"uid", "x"}});
  ASSERT_FALSE(unreadable.ok());
  EXPECT_EQ(unreadable.error().code, "connect.ics_invalid");
  EXPECT_EQ(unreadable.error().message, "the calendar file cannot be parsed");
}

}  // namespace
}  // namespace affordance::connect
