// Product semantic checks (src/surface/validate.h, html_canvas.h).
#include "surface/validate.h"
#include "surface/html_canvas.h"

#include <gtest/gtest.h>

namespace affordance::surface {
namespace {

std::vector<std::string> Codes(std::string_view program, ValidationOptions options = {}) {
  std::vector<std::string> out;
  for (const auto& e : ValidateProgram(program, Library::Default(), options).errors)
    out.push_back(e.code);
  return out;
}

std::string Canvas(const std::string& markup) {
  std::string escaped;
  for (char c : markup) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return "root = Html(\"" + escaped + "\")\n";
}

using Codes_ = std::vector<std::string>;

TEST(SurfaceValidate, SeedCanvasWithMountsIsValid) {
  Validation v = ValidateProgram(
      "events = Query(\"calendar_events\", { range: \"next_week\" }, { rows: [] })\n"
      "create = Mutation(\"calendar_create\", { title: $title, start: $start })\n"
      "save = Button(\"Stage event\", Action([@Run(create)]))\n"
      "root = Html(\"<main>{{#each events}}{{title}}{{/each}}<div data-mount='save'/></main>\",\n"
      "{ events: events.rows },\n[HtmlMount(\"save\", save)])\n",
      Library::Default(),
      ValidationOptions{std::vector<std::string>{"calendar_events", "calendar_create"}});
  EXPECT_TRUE(v.ok()) << (v.errors.empty() ? "" : v.errors[0].message);
}

TEST(SurfaceValidate, ScriptElementsAreRejected) {
  EXPECT_EQ(Codes(Canvas("<p>x</p><SCRIPT>alert(1)</SCRIPT>")), Codes_{"runtime-script"});
  EXPECT_EQ(Codes(Canvas("<svg><script href='x'></script></svg>")), Codes_{"runtime-script"});
  EXPECT_EQ(Codes(Canvas("<iframe src='https://example.com'></iframe>")), Codes_{"runtime-script"});
  ValidationOptions none;
  Validation v = ValidateProgram(Canvas("<script>x</script>"), Library::Default(), none);
  ASSERT_EQ(v.errors.size(), 1u);
  EXPECT_EQ(v.errors[0].message,
            "the Html canvas may not contain a <script> element: no script runs inside a canvas");
  EXPECT_EQ(v.errors[0].statement_id, "root");
}

TEST(SurfaceValidate, EventHandlerAttributesAreRejectedByTokenizingNotSearching) {
  EXPECT_EQ(Codes(Canvas("<img src=x onerror=alert(1)>")), Codes_{"runtime-handler"});
  EXPECT_EQ(Codes(Canvas("<a/onclick='go()'>x</a>")), Codes_{"runtime-handler"});
  EXPECT_EQ(Codes(Canvas("<div ONMOUSEOVER=\"x\">")), Codes_{"runtime-handler"});
  // Text and attribute values that merely mention handlers or script are fine.
  EXPECT_TRUE(
      Codes(
          Canvas(
              "<p title=\"onclick=script\">onload &lt;script&gt; javascript:</p><!-- <script> -->"))
          .empty());
}

TEST(SurfaceValidate, ScriptUrlsAreRejectedEvenWhenEncoded) {
  EXPECT_EQ(Codes(Canvas("<a href='javascript:alert(1)'>x</a>")), Codes_{"runtime-url"});
  EXPECT_EQ(Codes(Canvas("<a href=' JaVa&#x09;Script&colon;alert(1)'>x</a>")),
            Codes_{"runtime-url"});
  EXPECT_EQ(Codes(Canvas("<a href='&#106;avascript:x'>x</a>")), Codes_{"runtime-url"});
  EXPECT_EQ(Codes(Canvas("<iframe srcdoc='&lt;script&gt;x&lt;/script&gt;'>")),
            (Codes_{"runtime-script", "runtime-script"}));
  EXPECT_EQ(Codes("root = Html(\"<a href='{{u}}'>x</a>\", {u: \"javascript:alert(1)\"})\n"),
            Codes_{"runtime-url"});
  EXPECT_EQ(Codes("root = Stack([Button(\"x\", Action([@OpenUrl(\"javascript:alert(1)\")]))])\n"),
            Codes_{"runtime-url"});
  EXPECT_TRUE(Codes(Canvas("<a href='https://example.com/javascript:'>x</a>")).empty());
}

TEST(SurfaceValidate, CanvasMarkupMustBeLiteralAndMountsNeedSlots) {
  EXPECT_EQ(Codes("root = Html(\"<p>\" + $x + \"</p>\")\n"), Codes_{"html-not-literal"});
  EXPECT_EQ(Codes("root = Html(\"<div data-mount='a'></div>\", {}, [HtmlMount(\"b\", "
                  "TextContent(\"x\"))])\n"),
            Codes_{"mount-without-slot"});
}

TEST(SurfaceValidate, QueriesAndMutationsMustNameRegisteredHandles) {
  const char* program =
      "root = Stack([])\nq = Query(\"list\", {}, {})\nm = Mutation(\"drop_all\", {})\n"
      "n = Mutation(tool, {})\ntool = \"x\"\n";
  ValidationOptions options{std::vector<std::string>{"list"}};
  Validation v = ValidateProgram(program, Library::Default(), options);
  ASSERT_EQ(v.errors.size(), 2u);
  EXPECT_EQ(v.errors[0].code, "unknown-handle");
  EXPECT_EQ(v.errors[0].message,
            "Mutation(\"drop_all\") names no registered handle; registered: list");
  EXPECT_EQ(v.errors[0].statement_id, "m");
  EXPECT_EQ(v.errors[1].code, "handle-not-literal");
}

TEST(SurfaceValidate, EmptyProgramsAndProseAreErrors) {
  EXPECT_EQ(Codes("just some prose\n"), (Codes_{"non-statement", "empty-program"}));
}

TEST(SurfaceHtml, CollectsMountSlots) {
  HtmlScan s = ScanHtml("<div data-mount=a></div><span DATA-MOUNT=\"b\"/>");
  EXPECT_EQ(s.mount_slots, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(s.problems.empty());
}

}  // namespace
}  // namespace affordance::surface
