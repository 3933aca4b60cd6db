// The text renderer (src/surface/text_render.h): every component of the default library, an
// unknown one, tables with wide characters, row and column truncation, the width limit, colour
// on and off, and tables whose binding has no rows. The last tests go through a real artifact and
// the example calendar connector (ReadBindings, the road of POST /api/query).
#include "surface/text_render.h"

#include "../connect/support.h"
#include "surface/artifact.h"
#include "surface/library.h"
#include "text/display_width.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>

#include <sstream>

namespace affordance::surface {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// Renders `program` (default library) with `rows` at `width`, colour off unless asked.
std::string Render(const std::string& program, const BoundRows& rows = {}, size_t width = 80,
                   bool color = false, size_t max_rows = 20) {
  ParseResult parsed = Parse(program, Library::Default());
  EXPECT_TRUE(parsed.errors.empty()) << parsed.errors[0].message;
  TextOptions o;
  o.width = width;
  o.color = color;
  o.max_rows = max_rows;
  return RenderText(parsed, rows, o);
}

BindingRows Rows(std::vector<json> rows) {
  BindingRows b;
  b.rows = std::move(rows);
  return b;
}

void ExpectWithin(const std::string& text, size_t width) {
  for (const auto& l : Lines(text)) {
    EXPECT_LE(text::DisplayWidth(l), width) << "[" << l << "]\n" << text;
  }
}

// Dates show in local time, as in the browser: these tests fix it to UTC.
class TextRenderInUtc : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tz = getenv("TZ");
    saved_ = tz ? std::optional<std::string>(tz) : std::nullopt;
    setenv("TZ", "UTC", 1);
    tzset();
  }
  void TearDown() override {
    if (saved_) {
      setenv("TZ", saved_->c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }
  std::optional<std::string> saved_;
};

// ── Layout components ──

TEST(TextRender, StackPutsChildrenBelowEachOtherWithABlankLineBetween) {
  EXPECT_EQ(Render("root = Stack([TextContent(\"one\"), TextContent(\"two\")])"), "one\n\ntwo\n");
  EXPECT_EQ(Render("root = Stack([TextContent(\"one\"), TextContent(\"two\")], \"column\", \"s\")"),
            "one\ntwo\n");
}

TEST(TextRender, ARowStackIsSideBySideWhenItFitsElseBelow) {
  const std::string row =
      "root = Stack([Button(\"Approve\"), Button(\"Deny\", null, \"danger\")], \"row\")";
  EXPECT_EQ(Render(row), "[Approve]  [Deny]\n");
  EXPECT_EQ(Render(row, {}, 12), "[Approve]\n\n[Deny]\n");
}

TEST(TextRender, ACardIsABoxWithItsTitleInTheTopEdge) {
  EXPECT_EQ(Render("root = Card([TextContent(\"Room 4 at nine\")], \"Standup\")"),
            "╭─ Standup ──────╮\n"
            "│ Room 4 at nine │\n"
            "╰────────────────╯\n");
  EXPECT_EQ(Render("root = Card([TextContent(\"hi\")])"),
            "╭────╮\n"
            "│ hi │\n"
            "╰────╯\n");
}

TEST(TextRender, ACardWiderThanTheLineWrapsItsContentInside) {
  std::string out = Render(
      "root = Card([TextContent(\"The design review moved to Thursday afternoon in room two\")], "
      "\"A rather long card title\")",
      {}, 24);
  ExpectWithin(out, 24);
  EXPECT_THAT(out, HasSubstr("│ The design review    │"));
  EXPECT_THAT(out, HasSubstr("╭─ A rather long car… ─╮"));
}

TEST(TextRender, CardHeaderShowsTitleThenSubtitle) {
  EXPECT_EQ(Render("root = CardHeader(\"Next week\", \"From your calendar\")"),
            "Next week\nFrom your calendar\n");
  EXPECT_EQ(Render("root = CardHeader(\"Next week\", \"From your calendar\")", {}, 80, true),
            "\033[1mNext week\033[0m\n\033[2mFrom your calendar\033[0m\n");
}

TEST(TextRender, TextContentWrapsAtWordsAndKeepsItsLines) {
  EXPECT_EQ(Render("root = TextContent(\"one two three four five six\")", {}, 10),
            "one two\nthree four\nfive six\n");
  EXPECT_EQ(Render("root = TextContent(\"first\\nsecond\")"), "first\nsecond\n");
  EXPECT_EQ(Render("root = TextContent(\"big\", \"large\")", {}, 80, true), "\033[1mbig\033[0m\n");
  EXPECT_EQ(Render("root = TextContent(\"fine print\", \"small\")", {}, 80, true),
            "\033[2mfine print\033[0m\n");
}

TEST(TextRender, CalloutMarksItsVariant) {
  EXPECT_EQ(Render("root = Callout(\"info\", \"Tip\", \"Ask about any week.\")"),
            "ℹ Tip\n  Ask about any week.\n");
  EXPECT_EQ(Render("root = Callout(\"success\", \"Saved\")"), "✓ Saved\n");
  EXPECT_EQ(Render("root = Callout(\"warning\", \"Stale\")"), "⚠ Stale\n");
  EXPECT_EQ(Render("root = Callout(\"error\", \"Failed\")", {}, 80, true),
            "\033[1;31m✗ Failed\033[0m\n");
}

TEST(TextRender, ButtonsAreShortLabelLines) {
  EXPECT_EQ(Render("root = Button(\"Create event\")"), "[Create event]\n");
  EXPECT_EQ(Render("root = Button(\"Go\", null, \"primary\")", {}, 80, true),
            "\033[1m[Go]\033[0m\n");
}

// ── Forms ──

TEST(TextRender, InputsShowTheirValueOrPlaceholder) {
  EXPECT_EQ(Render("root = Input(\"email\", \"you@example.com\")"), "[ you@example.com  ]\n");
  EXPECT_EQ(Render("root = Input(\"n\", \"\", \"number\", {}, 42)"), "[ 42               ]\n");
}

TEST(TextRender, SelectShowsTheChoiceAndTheOptions) {
  const std::string program =
      "root = Select(\"room\", [SelectItem(\"r2\", \"Room 2\"), SelectItem(\"r4\", \"Room 4\")], "
      "\"Pick a room\")";
  EXPECT_EQ(Render(program), "[ Pick a room ▾ ]\n  Room 2 · Room 4\n");
  EXPECT_EQ(Render("root = Select(\"room\", [SelectItem(\"r2\", \"Room 2\"), SelectItem(\"r4\", "
                   "\"Room 4\")], null, {}, \"r4\")"),
            "[ Room 4 ▾ ]\n  Room 2 · Room 4\n");
  EXPECT_EQ(Render("root = SelectItem(\"r2\", \"Room 2\")"), "Room 2\n");
}

TEST(TextRender, AFormListsLabelledFieldsThenItsSubmitButton) {
  const std::string program =
      "root = Form(\"new\", Button(\"Create\", null, \"primary\"), [FormControl(\"Title\", "
      "Input(\"title\", \"Standup\")), FormControl(\"Room\", Select(\"room\", "
      "[SelectItem(\"r2\", \"Room 2\")]))])";
  EXPECT_EQ(Render(program),
            "Title  [ Standup          ]\n"
            "Room  [ Room 2 ▾ ]\n"
            "        Room 2\n"
            "[Create]\n");
  // Too narrow beside the label: below it.
  EXPECT_EQ(Render(program, {}, 18),
            "Title\n"
            "  [ Standup      ]\n"
            "Room  [ Room 2 ▾ ]\n"
            "        Room 2\n"
            "[Create]\n");
}

// ── Canvas ──

TEST(TextRender, HtmlShowsItsTextWithPlaceholdersFilledAndMountsInTheirSlots) {
  const std::string program =
      "root = Html(\"<h2>{{title}}</h2><ul>{{#each items}}<li>{{name}} &amp; co</li>{{/each}}"
      "</ul><script>alert(1)</script><div data-mount='go'></div><p>after</p>\", "
      "{title: \"Plan\", items: [{name: \"Ana\"}, {name: \"Ben\"}]}, [HtmlMount(\"go\", "
      "Button(\"Go\"))])\n";
  EXPECT_EQ(Render(program), "Plan\n• Ana & co\n• Ben & co\n[Go]\nafter\n");
  EXPECT_EQ(Render("root = Html(\"<table><tr><th>Room</th><th>Seats</th></tr><tr><td>2</td>"
                   "<td>8</td></tr></table>\")"),
            "Room │ Seats\n2 │ 8\n");
}

// The canvas's data names a Query: {{#each}} walks the rows that binding read, and when it could
// not be read the canvas says why instead of showing an empty list.
TEST(TextRender, HtmlDataFromAQueryIsFilledWithItsRowsOrSaysWhyNot) {
  const std::string program =
      "root = Html(\"<ul>{{#each events.rows}}<li>{{summary}}</li>{{/each}}</ul>\", "
      "{events: events})\n"
      "events = Query(\"calendar_list_events\", {}, {rows: []})\n";
  BoundRows rows = {{"events", Rows({{{"summary", "Team standup"}}, {{"summary", "Review"}}})}};
  EXPECT_EQ(Render(program, rows), "• Team standup\n• Review\n");
  // Issue 44: `.length` of the rows (and of a string) is filled, never left empty.
  const std::string counted =
      "root = Html(\"<p>{{events.rows.length}} events, {{name.length}} letters, "
      "{{box.length}} box, {{nope.length}}|{{n.length}}|</p>\", "
      "{events: events, name: \"Zoë\", box: {length: \"own\"}, n: 3})\n"
      "events = Query(\"calendar_list_events\", {}, {rows: []})\n";
  EXPECT_EQ(Render(counted, rows), "2 events, 3 letters, own box, ||\n");
  rows["events"].error = "connector calendar is disconnected";
  EXPECT_EQ(Render(program, rows), "⚠ data unavailable: connector calendar is disconnected\n");
  EXPECT_EQ(Render(program, {}), "⚠ data unavailable: Query \"events\" was not read\n");
}

TEST(TextRender, HtmlMountAloneShowsItsChild) {
  EXPECT_EQ(Render("root = HtmlMount(\"x\", TextContent(\"inside\"))"), "inside\n");
}

// ── Tables ──

TEST(TextRender, TableColumnsAreAlignedAndNumbersRightAligned) {
  const std::string program =
      "root = Table([Col(\"Name\", [\"Ana\", \"Benedikt\"]), Col(\"Stars\", [5, 1234]), "
      "Col(\"Note\", [\"ok\", null])])";
  EXPECT_EQ(Render(program),
            "Name      Stars  Note\n"
            "────────  ─────  ────\n"
            "Ana           5  ok\n"
            "Benedikt   1234\n");
}

TEST_F(TextRenderInUtc, ColumnFormatsAsTheWebShowsThem) {
  const std::string program =
      "root = Table([Col(\"When\", [\"2026-11-30T09:00:00Z\", \"2026-12-03\", \"soon\"], "
      "\"date\"), "
      "Col(\"Cost\", [1234.5, -3, 0.125], \"currency\"), Col(\"N\", [\"7\", \"12\", \"\"], "
      "\"number\")])";
  EXPECT_EQ(Render(program),
            "When                     Cost   N\n"
            "──────────────────  ─────────  ──\n"
            "Mon, Nov 30, 09:00  $1,234.50   7\n"
            "Thu, Dec 3             -$3.00  12\n"
            "soon                    $0.13\n");
}

TEST(TextRender, WideAndCombiningCharactersAlignByDisplayWidth) {
  const std::string program =
      "root = Table([Col(\"Event\", [\"東京チーム sync\", \"Cafe\\u0301 Müller\", \"Standup\"]), "
      "Col(\"Where\", [\"会議室\", \"Room 2\", \"Room 4\"])])";
  std::string out = Render(program);
  auto lines = Lines(out);
  ASSERT_EQ(lines.size(), 5u) << out;
  // "Where" starts at the same display column on every line.
  auto where = [](const std::string& l) { return text::DisplayWidth(l.substr(0, l.rfind("  "))); };
  for (size_t i = 2; i < lines.size(); ++i) EXPECT_EQ(where(lines[i]), where(lines[0])) << out;
  EXPECT_EQ(lines[0], "Event            Where");
  EXPECT_EQ(lines[2], "東京チーム sync  会議室");
  EXPECT_EQ(lines[3], "Cafe\u0301 Müller      Room 2");
}

TEST(TextRender, RowsPastTheCapSayHowManyAreHidden) {
  std::string values;
  for (int i = 1; i <= 57; ++i) values += (i > 1 ? ", " : "") + std::to_string(i);
  std::string out = Render("root = Table([Col(\"N\", [" + values + "])])");
  auto lines = Lines(out);
  ASSERT_EQ(lines.size(), 2u + 20u + 1u) << out;
  EXPECT_EQ(lines[21], "20");
  EXPECT_EQ(lines.back(), "… 37 more rows");
  EXPECT_THAT(Render("root = Table([Col(\"N\", [1, 2, 3])])", {}, 80, false, 2),
              HasSubstr("… 1 more row\n"));
}

TEST(TextRender, ATableWiderThanTheLineCutsItsWidestCells) {
  const std::string program =
      "root = Table([Col(\"Event\", [\"Quarterly planning with the whole product group\"]), "
      "Col(\"Where\", [\"The big room on the third floor\"]), Col(\"N\", [3])])";
  std::string out = Render(program, {}, 40);
  ExpectWithin(out, 40);
  auto lines = Lines(out);
  ASSERT_EQ(lines.size(), 3u) << out;
  EXPECT_THAT(lines[2], HasSubstr("…"));
  EXPECT_THAT(lines[2], HasSubstr("Quarterly"));
  EXPECT_EQ(lines[2].substr(lines[2].size() - 1), "3");
}

TEST(TextRender, ColumnsThatCannotFitAreNamed) {
  std::string cols;
  for (int i = 0; i < 12; ++i) {
    cols += (i ? ", " : "") + std::string("Col(\"Column") + std::to_string(i) + "\", [\"value\"])";
  }
  std::string out = Render("root = Table([" + cols + "])", {}, 30);
  ExpectWithin(out, 30);
  EXPECT_THAT(out, HasSubstr("… 7 more columns: Column5, Co…\n"));
}

TEST(TextRender, AnEmptyTableSaysNoRows) {
  EXPECT_EQ(Render("root = Table([Col(\"Event\", [])])"), "Event\n─────\nNo rows\n");
}

TEST(TextRender, AColOutsideATableListsItsValues) {
  EXPECT_EQ(Render("root = Col(\"Rooms\", [\"2\", \"4\"])"), "Rooms: 2, 4\n");
}

// ── Bindings ──

const char* kWeek =
    "root = Stack([CardHeader(\"Week\"), tbl])\n"
    "events = Query(\"calendar_list_events\", {from: \"a\", to: \"b\"}, {rows: []})\n"
    "tbl = Table([Col(\"Event\", events.rows.summary), Col(\"Where\", events.rows.location)])\n";

TEST(TextRender, TablesAreFilledWithTheBindingsRows) {
  BoundRows rows = {{"events", Rows({{{"summary", "Team standup"}, {"location", "Room 4"}},
                                     {{"summary", "Design review"}, {"location", "Room 2"}}})}};
  EXPECT_EQ(Render(kWeek, rows),
            "Week\n\n"
            "Event          Where\n"
            "─────────────  ──────\n"
            "Team standup   Room 4\n"
            "Design review  Room 2\n");
}

TEST(TextRender, ABindingWithoutRowsShowsTheHeaderAndWhy) {
  BoundRows rows = {{"events", BindingRows{}}};
  rows["events"].error = "connector calendar is disconnected";
  std::string out = Render(kWeek, rows);
  EXPECT_EQ(out,
            "Week\n\n"
            "Event  Where\n"
            "─────  ─────\n"
            "⚠ rows unavailable: connector calendar is disconnected\n");
  EXPECT_THAT(out, Not(HasSubstr("Query(")));
  // Not read at all (not in `rows`): said as much.
  EXPECT_THAT(Render(kWeek), HasSubstr("⚠ rows unavailable: Query \"events\" was not read\n"));
  // Cut to the width like everything else.
  ExpectWithin(Render(kWeek, rows, 30), 30);
}

TEST(TextRender, ASourceThatHeldMoreRowsSaysSo) {
  BoundRows rows = {{"events", Rows({{{"summary", "Team standup"}, {"location", "Room 4"}}})}};
  rows["events"].truncated = true;
  EXPECT_THAT(Render(kWeek, rows), HasSubstr("… more rows the source did not send\n"));
}

TEST(TextRender, ExpressionsOverRowsEvaluateAsInTheWebRenderer) {
  const std::string program =
      "root = Stack([count, list, tbl])\n"
      "$room = \"Room 4\"\n"
      "events = Query(\"calendar_list_events\", {}, {rows: []})\n"
      "count = TextContent(\"Events: \" + @Count(events.rows) + (events.rows.length > 1 ? \" "
      "(busy)\" "
      ": \"\"))\n"
      "mine = @Filter(events.rows, \"location\", \"==\", $room)\n"
      "list = Stack(@Each(@Sort(mine, \"n\", \"desc\"), \"e\", TextContent(e.summary + \" #\" + "
      "e.n)), "
      "\"column\", \"s\")\n"
      "tbl = Table([Col(\"Total\", [@Sum(events.rows.n), @Avg(events.rows.n), "
      "@Max(events.rows.n)])])\n";
  BoundRows rows = {{"events", Rows({{{"summary", "a"}, {"location", "Room 4"}, {"n", 1}},
                                     {{"summary", "b"}, {"location", "Room 2"}, {"n", 2}},
                                     {{"summary", "c"}, {"location", "Room 4"}, {"n", 3}}})}};
  EXPECT_EQ(Render(program, rows),
            "Events: 3 (busy)\n\n"
            "c #3\n"
            "a #1\n\n"
            "Total\n"
            "─────\n"
            "    6\n"
            "    2\n"
            "    3\n");
}

// ── Safety and styling ──

TEST(TextRender, ControlCharactersFromRowsNeverReachTheTerminal) {
  BoundRows rows = {
      {"events", Rows({{{"summary", "evil\033[2J\033]0;title\atext\nnext"}, {"location", "x"}}})}};
  std::string out = Render(kWeek, rows);
  EXPECT_EQ(out.find('\033'), std::string::npos) << out;
  EXPECT_EQ(out.find('\a'), std::string::npos) << out;
  EXPECT_THAT(out, HasSubstr("evil [2J ]0;title text next"));
}

TEST(TextRender, WithoutColourThereIsNoEscapeSequence) {
  const std::string program =
      "root = Stack([Card([CardHeader(\"T\", \"s\"), Callout(\"error\", \"E\"), "
      "Button(\"B\", null, \"primary\"), Table([Col(\"H\", [1])])], \"Card\")])";
  std::string plain = Render(program, {}, 60, false);
  EXPECT_EQ(plain.find('\033'), std::string::npos) << plain;
  std::string styled = Render(program, {}, 60, true);
  EXPECT_THAT(styled, HasSubstr("\033["));
  ExpectWithin(styled, 60);
}

TEST(TextRender, NothingIsWiderThanTheWidthAtAnyWidth) {
  const std::string program =
      "root = Stack([CardHeader(\"Quarterly planning\", \"All teams\"), Card([tbl, "
      "TextContent(\"Supercalifragilisticexpialidocious words are broken inside\")], \"東京 "
      "review\"), Stack([Button(\"Approve all\"), Button(\"Deny\")], \"row\"), Form(\"f\", "
      "Button(\"Send\"), [FormControl(\"A label that is long\", Input(\"a\", "
      "\"placeholder\"))])])\n"
      "tbl = Table([Col(\"Event\", [\"東京チーム sync\", \"Quarterly planning\"]), Col(\"N\", [1, "
      "22])])";
  for (size_t width : {8, 12, 20, 33, 60, 120}) ExpectWithin(Render(program, {}, width), width);
}

TEST(TextRender, AComponentOfAnotherLibraryPrintsItsNameAndChildren) {
  auto doc = Library::Default().document();
  doc["$defs"]["Chart"] = {{"type", "object"},
                           {"properties",
                            {{"title", {{"type", "string"}}},
                             {"children", {{"type", "array"}, {"items", json::object()}}}}},
                           {"required", {"title"}}};
  auto lib = Library::FromJson(doc.dump());
  ASSERT_TRUE(lib.ok()) << lib.error().ToString();
  ParseResult parsed =
      Parse("root = Stack([Chart(\"Load\", [TextContent(\"peak at nine\")])])", *lib);
  ASSERT_TRUE(parsed.errors.empty()) << parsed.errors[0].message;
  EXPECT_EQ(RenderText(parsed, {}, {}), "Chart\n  title: Load\n  peak at nine\n");
}

TEST(TextRender, AStatOrKeyValueComponentOfAnotherLibraryShowsItsFields) {
  auto doc = Library::Default().document();
  doc["$defs"]["Stat"] = {{"type", "object"},
                          {"properties",
                           {{"label", {{"type", "string"}}},
                            {"value", json::object()},
                            {"trend", {{"type", "array"}, {"items", json::object()}}}}},
                          {"required", {"label"}}};
  auto lib = Library::FromJson(doc.dump());
  ASSERT_TRUE(lib.ok()) << lib.error().ToString();
  ParseResult parsed = Parse("root = Stat(\"Open tickets\", 12, [3, 5, 12])", *lib);
  ASSERT_TRUE(parsed.errors.empty()) << parsed.errors[0].message;
  EXPECT_EQ(RenderText(parsed, {}, {}),
            "Stat\n  label: Open tickets\n  value: 12\n  trend: 3, 5, 12\n");
}

TEST(TextRender, AnEmptyOrBrokenProgramRendersNothingAndNeverThrows) {
  EXPECT_EQ(Render("root = null"), "");
  ParseResult broken = Parse("root = Stack([Table(\"x\"), Card(", Library::Default());
  EXPECT_NO_THROW(RenderText(broken, {}, {}));
}

// Every program of the conformance corpus (valid and invalid), with rows for its queries and
// without, renders within the width at any width, and without colour has no escape at all.
TEST(TextRender, EveryCorpusProgramRendersWithinTheWidth) {
  size_t programs = 0;
  for (const char* file : {"valid.lang", "invalid.lang"}) {
    std::string corpus = connect::testing::ReadText(
        connect::testing::Source(std::string("tests/golden/surface/corpus/") + file));
    std::vector<std::string> cases;
    for (size_t at = corpus.find("=== "); at != std::string::npos;) {
      size_t body = corpus.find('\n', at) + 1;
      size_t next = corpus.find("\n=== ", body);
      cases.push_back(corpus.substr(body, next == std::string::npos ? next : next - body));
      at = next == std::string::npos ? next : next + 1;
    }
    for (const auto& program : cases) {
      ParseResult parsed = Parse(program, Library::Default());
      BoundRows rows;
      for (const auto& q : parsed.query_statements) {
        rows[std::string(q.statement_id)] =
            Rows({{{"name", "東京チーム"}, {"stars", 3}, {"title", "Cafe\u0301"}, {"n", nullptr}},
                  {{"name", "a much longer name that needs cutting"}, {"stars", 12345}}});
      }
      for (size_t width : {8, 21, 40, 100}) {
        for (const BoundRows& r : {rows, BoundRows{}}) {
          TextOptions o;
          o.width = width;
          std::string plain = RenderText(parsed, r, o);
          EXPECT_EQ(plain.find('\033'), std::string::npos) << program;
          ExpectWithin(plain, width);
          o.color = true;
          ExpectWithin(RenderText(parsed, r, o), width);
        }
      }
      ++programs;
    }
  }
  EXPECT_GT(programs, 100u);
}

// ── End to end: an artifact, the example calendar, ReadBindings ──

class TextFromArtifact : public ::testing::Test {
 protected:
  void SetUp() override {
    ics_ = dir_ / "calendar.ics";
    connect::testing::WriteText(
        ics_,
        connect::testing::ReadText(connect::testing::Source("examples/connectors/calendar.ics")));
    road_ = std::make_unique<connect::ConnectorRoad>(
        std::vector<connect::ConnectorManifest>{connect::testing::CalendarManifest(ics_)},
        connect::testing::TestOptions(dir_, &clock_));
    auto s = store::OpenSqlite(dir_ / "affordance.db");
    ASSERT_TRUE(s.ok()) << s.error().ToString();
    store_ = std::move(*s);
    ASSERT_TRUE(road_->Sync("calendar").ok());
  }

  OpenedArtifact Save(const std::string& program) {
    ComposeRequest r;
    r.program = program;
    r.handles = HandlesOf(road_.get());
    Composed c = SaveProgram(*store_, r);
    EXPECT_TRUE(c.ok()) << (c.error ? c.error->ToString() : "");
    auto opened = OpenArtifact(*store_, c.artifact.id);
    EXPECT_TRUE(opened.ok());
    return *opened;
  }

  std::string Text(const OpenedArtifact& a, connect::ConnectorRoad* road,
                   authority::Authority* auth) {
    ParseResult program = Parse(a.version.body, Library::Default());
    BoundRows rows =
        ReadBindings(*store_, road, auth, a, program, authority::Actor::User("tester"));
    return RenderText(program, rows, {});
  }

  int64_t clock_ = connect::testing::kNow;
  connect::testing::TempDir dir_;
  std::string ics_;
  std::unique_ptr<connect::ConnectorRoad> road_;
  std::unique_ptr<store::Store> store_;
};

const char* kCalendarWeek =
    "root = Stack([CardHeader(\"Week\"), tbl])\n"
    "events = Query(\"calendar_list_events\", {from: \"2026-11-30T00:00:00Z\", to: "
    "\"2026-12-07T00:00:00Z\"}, {rows: []})\n"
    "tbl = Table([Col(\"Event\", events.rows.summary), Col(\"Where\", events.rows.location)])\n";

TEST_F(TextFromArtifact, TheBindingIsReExecutedAndItsRowsFillTheTable) {
  OpenedArtifact a = Save(kCalendarWeek);
  std::string out = Text(a, road_.get(), nullptr);
  EXPECT_THAT(out, HasSubstr("Design review"));
  EXPECT_THAT(out, HasSubstr("Team standup (moved)  Room 4"));
  EXPECT_THAT(out, Not(HasSubstr("rows unavailable")));
}

TEST_F(TextFromArtifact, ArgumentsThatReadStateUseTheStateDefaults) {
  OpenedArtifact a = Save(
      "root = Stack([tbl])\n"
      "$from = \"2026-11-30T00:00:00Z\"\n"
      "events = Query(\"calendar_list_events\", {from: $from, to: \"2026-12-07T00:00:00Z\"}, "
      "{rows: []})\n"
      "tbl = Table([Col(\"Event\", events.rows.summary)])\n");
  ASSERT_FALSE(a.bindings.queries.at(0).args_literal);
  EXPECT_THAT(Text(a, road_.get(), nullptr), HasSubstr("Design review"));
}

TEST_F(TextFromArtifact, NoRoadOrNoGrantIsAReasonUnderTheHeader) {
  OpenedArtifact a = Save(kCalendarWeek);
  std::string none = Text(a, nullptr, nullptr);
  EXPECT_THAT(none, HasSubstr("Event  Where\n─────  ─────\n⚠ rows unavailable: no connector is "
                              "configured"));
  authority::Authority auth(*store_, road_.get());
  std::string denied = Text(a, road_.get(), &auth);
  EXPECT_THAT(denied, HasSubstr("⚠ rows unavailable: "));
  EXPECT_THAT(denied, Not(HasSubstr("Design review")));
}

}  // namespace
}  // namespace affordance::surface
