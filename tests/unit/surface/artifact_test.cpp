// Artifacts (surface/artifact.h) over a real SQLite store: identity, versions, patch lineage,
// live apps by slug, fail-closed saves, and every semantic validation code with a program that
// passes and one that fails.
#include "surface/artifact.h"

#include "surface/semantic.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>

namespace affordance::surface {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

std::vector<QueryHandle> Handles() {
  return {{"calendar_list_events",
           "calendar",
           "list_events",
           "calendar:ics",
           {"id", "summary", "start", "end", "location", "all_day"},
           false},
          {"calendar_create_event", "calendar", "create_event", "calendar:ics", {}, true},
          {"crm_deals",
           "crm",
           "deals",
           "crm:sqlite",
           {"id", "name", "amount"},
           false,
           "Acme Sales Pipeline"}};
}

Evidence CalendarEvidence(bool this_turn = true) {
  Evidence e;
  e.connector = "calendar";
  e.handle = "calendar_list_events";
  e.operation = "list_events";
  e.args = {{"from", "2026-11-30"}};
  e.served_from = "mirror";
  e.served_fields = {"id", "summary", "start"};
  e.rows = {{{"id", "e1"}, {"summary", "Standup"}, {"start", "2026-11-30T09:00:00Z"}},
            {{"id", "e2"}, {"summary", "Design review"}, {"start", "2026-12-01T14:00:00Z"}}};
  e.this_turn = this_turn;
  return e;
}

Evidence CrmEvidence() {
  Evidence e;
  e.connector = "crm";
  e.handle = "crm_deals";
  e.operation = "deals";
  e.served_fields = {"id", "name", "amount"};
  e.rows = {{{"id", 1}, {"name", "Acme renewal"}, {"amount", 12000}}};
  e.this_turn = true;
  return e;
}

class Artifacts : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "affordance-artifacts-XXXXXX").string();
    dir_ = mkdtemp(pattern.data());
    auto s = store::OpenSqlite(dir_ + "/affordance.db");
    ASSERT_TRUE(s.ok()) << s.error().ToString();
    store_ = std::move(*s);
  }
  void TearDown() override {
    store_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  Composed Save(const std::string& program, std::vector<Evidence> evidence = {},
                const std::string& kind = "inline", const std::string& slug = "") {
    ComposeRequest r;
    r.program = program;
    r.kind = kind;
    r.app_slug = slug;
    r.handles = Handles();
    r.evidence = std::move(evidence);
    return SaveProgram(*store_, r);
  }
  // The codes of a program's errors ("" when it is accepted).
  std::string Codes(const std::string& program, std::vector<Evidence> evidence = {}) {
    Composed c = Save(program, std::move(evidence));
    std::string codes;
    for (const auto& e : c.errors) codes += (codes.empty() ? "" : ",") + e.code;
    if (codes.empty() && c.error) codes = c.error->code;
    return codes;
  }

  std::string dir_;
  std::unique_ptr<store::Store> store_;
};

const char* kQueryProgram =
    "root = Stack([tbl])\n"
    "events = Query(\"calendar_list_events\", {from: \"2026-11-30\"}, {rows: []})\n"
    "tbl = Table([Col(\"Event\", events.rows.summary), Col(\"Start\", events.rows.start)])\n";

TEST_F(Artifacts, AnAcceptedProgramIsAnArtifactWithItsBindings) {
  Composed c = Save(kQueryProgram, {CalendarEvidence()}, "panel");
  ASSERT_TRUE(c.ok()) << c.error->ToString();
  EXPECT_EQ(c.artifact.kind, "panel");
  EXPECT_EQ(c.version.version, 1);
  EXPECT_EQ(c.version.body, kQueryProgram);
  ASSERT_EQ(c.bindings.queries.size(), 1u);
  const QueryBinding& q = c.bindings.queries[0];
  EXPECT_EQ(q.statement, "events");
  EXPECT_EQ(q.handle, "calendar_list_events");
  EXPECT_EQ(q.args, json({{"from", "2026-11-30"}}));
  EXPECT_EQ(q.connector, "calendar");
  EXPECT_EQ(q.operation, "list_events");
  EXPECT_TRUE(q.grounded);
  EXPECT_EQ(c.bindings.sources, std::vector<std::string>{"calendar"});

  auto opened = OpenArtifact(*store_, c.artifact.id);
  ASSERT_TRUE(opened.ok());
  EXPECT_TRUE(opened->live());
  EXPECT_EQ(opened->version.body, kQueryProgram);
  EXPECT_EQ(opened->bindings.queries[0].args, q.args);
}

// The static surface law: only a program with Query() bindings is live (owes paint and hydrate
// acknowledgements); a static report owes none, whatever its placement.
TEST_F(Artifacts, StaticSurfacesAreNotLive) {
  Composed fixed = Save("root = Callout(\"info\", \"Tip\", \"Ask about any week\")\n", {}, "panel");
  ASSERT_TRUE(fixed.ok());
  EXPECT_FALSE(fixed.bindings.live());
  EXPECT_FALSE(OpenArtifact(*store_, fixed.artifact.id)->live());
  Composed live = Save(kQueryProgram);
  ASSERT_TRUE(live.ok());
  EXPECT_TRUE(live.bindings.live());
  EXPECT_TRUE(OpenArtifact(*store_, live.artifact.id)->ToJson()["live"].get<bool>());
}

TEST_F(Artifacts, EditModePatchesMakeVersionsWithTheirParent) {
  Composed v1 =
      Save("root = Stack([title])\ntitle = CardHeader(\"Week\")\n", {}, "live_app", "week");
  ASSERT_TRUE(v1.ok()) << v1.error->ToString();
  ComposeRequest patch;
  patch.program = "title = CardHeader(\"Next week\")\n";
  patch.patch = true;
  patch.artifact = "week";
  patch.kind = "";  // no kind named: the edit keeps the live app's placement
  patch.handles = Handles();
  Composed v2 = SaveProgram(*store_, patch);
  ASSERT_TRUE(v2.ok()) << v2.error->ToString();
  EXPECT_EQ(v2.artifact.id, v1.artifact.id);
  EXPECT_EQ(v2.version.version, 2);
  EXPECT_EQ(v2.version.parent, 1);
  EXPECT_EQ(v2.artifact.kind, "live_app");
  EXPECT_EQ(v2.artifact.app_slug, "week");
  EXPECT_EQ(v2.version.patch, "title = CardHeader(\"Next week\")\n");
  EXPECT_THAT(v2.version.body, HasSubstr("CardHeader(\"Next week\")"));
  EXPECT_THAT(v2.version.body, HasSubstr("root = Stack([title])"));

  auto versions = store_->ArtifactVersions(v1.artifact.id);
  ASSERT_TRUE(versions.ok());
  ASSERT_EQ(versions->size(), 2u);
  EXPECT_EQ((*versions)[0].body, "root = Stack([title])\ntitle = CardHeader(\"Week\")\n");
  // Reopened by slug: the head.
  auto app = OpenArtifact(*store_, "week");
  ASSERT_TRUE(app.ok());
  EXPECT_EQ(app->version.version, 2);
  auto first = OpenArtifact(*store_, "week", 1);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->version.body, (*versions)[0].body);
}

TEST_F(Artifacts, ARootlessPatchNeedsAnExistingProgram) {
  ComposeRequest patch;
  patch.program = "title = CardHeader(\"x\")\n";
  patch.patch = true;
  Composed c = SaveProgram(*store_, patch);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error->code, "surface.patch_without_program");
  EXPECT_EQ(c.error->message, "an edit-mode patch needs an existing artifact to apply to");
  auto list = store_->ListArtifacts();
  EXPECT_TRUE(list->empty());
}

TEST_F(Artifacts, AnInvalidSaveLeavesThePreviousVersionUntouched) {
  Composed v1 = Save("root = CardHeader(\"Week\")\n", {}, "live_app", "week");
  ASSERT_TRUE(v1.ok());
  Composed bad = Save("root = CardHeader(\"<b onclick=x>\", 3, 4)\n", {}, "live_app", "week");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error->code, "surface.invalid");
  auto app = OpenArtifact(*store_, "week");
  ASSERT_TRUE(app.ok());
  EXPECT_EQ(app->artifact.head, 1);
  EXPECT_EQ(app->version.body, "root = CardHeader(\"Week\")\n");
}

TEST_F(Artifacts, KindsAndSlugsAreChecked) {
  Composed no_slug = Save("root = CardHeader(\"a\")\n", {}, "live-app");
  EXPECT_EQ(no_slug.error->code, "surface.app_slug_required");
  Composed bad_slug = Save("root = CardHeader(\"a\")\n", {}, "live_app", "My App");
  EXPECT_EQ(bad_slug.error->code, "surface.bad_slug");
  Composed bad_kind = Save("root = CardHeader(\"a\")\n", {}, "modal");
  EXPECT_EQ(bad_kind.error->message,
            "surface kind \"modal\" is not one of inline, panel, live_app");
  Composed dash = Save("root = CardHeader(\"a\")\n", {}, "live-app", "my-app");
  ASSERT_TRUE(dash.ok());
  EXPECT_EQ(dash.artifact.kind, "live_app");
}

// ---- every semantic validation code: a passing and a failing program -------------------------

TEST_F(Artifacts, UnservedField) {
  EXPECT_EQ(Codes(kQueryProgram), "");
  const char* bad =
      "events = Query(\"calendar_list_events\", {from: \"2026-11-30\"}, {rows: []})\n"
      "root = Table([Col(\"Who\", events.rows.attendees)])\n";
  Composed c = Save(bad);
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(c.errors[0].code, "unserved-field");
  EXPECT_EQ(c.errors[0].message,
            "Query(\"calendar_list_events\") does not serve the field \"attendees\" "
            "(events.rows.attendees); it serves: id, summary, start, end, location, all_day");
  EXPECT_EQ(Codes("events = Query(\"calendar_list_events\", {}, {rows: []})\n"
                  "root = TextContent(events.title)\n"),
            "unserved-field");
  EXPECT_EQ(Codes("events = Query(\"calendar_list_events\", {}, {rows: []})\n"
                  "root = TextContent(\"\" + events.rows.length + \" events\")\n"),
            "");
}

TEST_F(Artifacts, UnboundSourceValue) {
  // Values copied from rows the turn read are grounded by them.
  EXPECT_EQ(Codes("root = Table([Col(\"Event\", [\"Standup\", \"Design review\"])])\n",
                  {CalendarEvidence()}),
            "");
  Composed c = Save("root = Table([Col(\"Event\", [\"Standup\", \"Lunch with Bo\"])])\n",
                    {CalendarEvidence()});
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(c.errors[0].code, "unbound-source-value");
  EXPECT_EQ(c.errors[0].path, "/values/1");
  EXPECT_EQ(c.errors[0].message,
            "Col presents \"Lunch with Bo\" as source data, but no row the turn read serves that "
            "value; bind it to a Query() result or use the rows' own values");
  // Canvas data is a source position too.
  EXPECT_EQ(Codes("root = Html(\"<p>{{t}}</p>\", {t: \"Offsite\"})\n", {CalendarEvidence()}),
            "unbound-source-value");
  // Without a connector read in this turn, literals are the model's own content.
  EXPECT_EQ(Codes("root = Table([Col(\"Planet\", [\"Mars\"])])\n", {CalendarEvidence(false)}), "");
}

TEST_F(Artifacts, UnshownSource) {
  const char* both =
      "events = Query(\"calendar_list_events\", {from: \"2026-11-30\"}, {rows: []})\n"
      "deals = Query(\"crm_deals\", {}, {rows: []})\n"
      "root = Stack([CardHeader(\"%s\"), Table([Col(\"Event\", events.rows.summary)]), "
      "Table([Col(\"Deal\", deals.rows.name)])])\n";
  char shown[512], unshown[512];
  std::snprintf(shown, sizeof shown, both, "Calendar and CRM");
  std::snprintf(unshown, sizeof unshown, both, "This week");
  EXPECT_EQ(Codes(shown, {CalendarEvidence(), CrmEvidence()}), "");
  // A source may be shown by its display title (crm's is "Acme Sales Pipeline").
  char titled[512];
  std::snprintf(titled, sizeof titled, both, "Calendar and the acme sales pipeline");
  EXPECT_EQ(Codes(titled, {CalendarEvidence(), CrmEvidence()}), "");
  Composed c = Save(unshown, {CalendarEvidence(), CrmEvidence()});
  ASSERT_EQ(c.errors.size(), 2u);
  EXPECT_EQ(c.errors[0].code, "unshown-source");
  EXPECT_EQ(c.errors[0].message,
            "the program presents data from calendar, crm but does not show that it used "
            "calendar: name each source in the visible text");
  // One source in the turn: nothing to synthesize.
  EXPECT_EQ(Codes(unshown, {CalendarEvidence()}), "");
}

TEST_F(Artifacts, MutationAsQueryAndQueryAsMutation) {
  EXPECT_EQ(Codes("create = Mutation(\"calendar_create_event\", {title: $t})\n"
                  "root = Button(\"Stage\", Action([@Run(create)]))\n"),
            "");
  EXPECT_EQ(Codes("ev = Query(\"calendar_create_event\", {}, {rows: []})\n"
                  "root = Table([Col(\"x\", ev.rows.id)])\n"),
            "mutation-as-query");
  EXPECT_EQ(Codes("create = Mutation(\"calendar_list_events\", {})\n"
                  "root = Button(\"Go\", Action([@Run(create)]))\n"),
            "query-as-mutation");
}

TEST_F(Artifacts, InvalidUtf8InAMutationsArgumentsIsAnAnswerNotACrash) {
  // Found by surface_lang_fuzzer: a literal argument with a byte that is not UTF-8 (model output
  // can hold one) made binding extraction throw from the JSON writer.
  const std::string program =
      "root = Stack([Button(\"Add\", m)])\n"
      "m = Mutation(\"calendar_create_event\", {summary: \"bad \xF9 byte\"})\n";
  const ParseResult parsed = Parse(program, Library::Default());
  const Bindings bindings = BindingsOf(parsed, Handles(), {});
  const std::string shown =
      bindings.ToJson().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  EXPECT_THAT(shown, HasSubstr("calendar_create_event"));
  EXPECT_THAT(shown, HasSubstr("bad \xEF\xBF\xBD byte"));  // U+FFFD stands in for the byte
  // Saving it gives a verdict (never a throw), and the store stays usable.
  Composed c = Save(program);
  if (!c.ok()) {
    EXPECT_FALSE(c.error->code.empty());
  }
  EXPECT_EQ(Codes(kQueryProgram, {CalendarEvidence()}), "");
}

TEST_F(Artifacts, IncompleteProgram) {
  EXPECT_EQ(Codes("root = CardHeader(\"Week\")\n"), "");
  EXPECT_EQ(Codes("root = CardHeader(\"Week"), "incomplete-program");
}

TEST_F(Artifacts, ProductChecksStillApply) {
  EXPECT_EQ(Codes("root = Html(\"<div data-mount='s'></div>\", {}, [HtmlMount(\"s\", "
                  "Button(\"Go\"))])\n"),
            "");
  EXPECT_EQ(Codes("root = Html(\"<div></div>\", {}, [HtmlMount(\"s\", Button(\"Go\"))])\n"),
            "mount-without-slot");
  EXPECT_EQ(Codes("root = Html(\"<script>x()</script>\")\n"), "runtime-script");
  EXPECT_EQ(Codes("root = Html(\"<a onclick='x()'>a</a>\")\n"), "runtime-handler");
  EXPECT_EQ(Codes("root = Html(\"<a href='javascript:x()'>a</a>\")\n"), "runtime-url");
  EXPECT_EQ(Codes("ev = Query(\"nope\", {}, {rows: []})\nroot = Table([Col(\"x\", ev.rows.id)])\n"),
            "unknown-handle");
}

}  // namespace
}  // namespace affordance::surface
