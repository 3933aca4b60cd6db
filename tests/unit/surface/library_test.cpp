// Component libraries and prompts (src/surface/library.h, prompt.h).
#include "surface/library.h"
#include "surface/prompt.h"

#include <gtest/gtest.h>

namespace affordance::surface {
namespace {

TEST(SurfaceLibrary, DefaultLibraryHasTheHtmlCanvas) {
  const Library& lib = Library::Default();
  const Component* html = lib.Find("Html");
  ASSERT_NE(html, nullptr);
  ASSERT_EQ(html->params.size(), 3u);
  EXPECT_EQ(html->params[0].name, "html");
  EXPECT_TRUE(html->params[0].required);
  EXPECT_EQ(html->params[1].name, "data");
  EXPECT_EQ(html->params[2].name, "mounts");
  EXPECT_NE(lib.Find("HtmlMount"), nullptr);
  EXPECT_EQ(lib.root(), "Stack");
}

TEST(SurfaceLibrary, MalformedDocumentsGetCodesAndMessages) {
  auto err = [](std::string_view text) { return Library::FromJson(text).error(); };
  EXPECT_EQ(err("{not json").code, "surface.library_not_json");
  EXPECT_EQ(err("[]").message, "invalid component library: the library must be a JSON object.");
  EXPECT_EQ(err("{\"$defs\": {}}").message,
            "invalid component library: $defs must be a non-empty object keyed by component name.");
  Error ref = err(R"({"$defs": {"A": {"properties": {"x": {"$ref": "#/$defs/Nope"}}}}})");
  EXPECT_EQ(ref.code, "surface.library_invalid");
  EXPECT_NE(ref.detail.find("unresolved-ref"), std::string::npos);
  Error req = err(R"({"$defs": {"A": {"properties": {"x": {}}, "required": ["y"]}}})");
  EXPECT_NE(req.detail.find("invalid-required: $defs/A lists required property \"y\""),
            std::string::npos);
  Error root = err(R"({"root": "B", "$defs": {"A": {}}})");
  EXPECT_NE(root.detail.find("root-not-found"), std::string::npos);
  Error group =
      err(R"({"$defs": {"A": {}}, "componentGroups": [{"name": "g", "components": ["Z"]}]})");
  EXPECT_NE(group.detail.find("unknown-group-component"), std::string::npos);
}

// Issue 24: a library file a million levels deep is refused from its text; at the limit it is read
// (and its own checks decide).
TEST(SurfaceLibrary, AFileNestedTooDeepIsRefusedBeforeItIsParsed) {
  Error deep = Library::FromJson("{\"$defs\": {\"A\": {\"x\": " + std::string(1000000, '[') +
                                 std::string(1000000, ']') + "}}}")
                   .error();
  EXPECT_EQ(deep.code, "surface.too_deep");
  EXPECT_EQ(deep.message, "the library file nests deeper than 128 levels of arrays and objects");
  auto at = Library::FromJson("{\"$defs\": {\"A\": {\"x\": " + std::string(125, '[') +
                              std::string(125, ']') + "}}}");
  EXPECT_TRUE(at.ok()) << at.error().ToString();
}

TEST(SurfacePrompt, SectionsComeInLangCoreOrderWithToolHints) {
  PromptOptions o;
  o.tools = Json::parse(R"([{"name": "list_events", "description": "Upcoming events",
      "inputSchema": {"type": "object", "properties": {"range": {"type": "string"}}},
      "annotations": {"readOnlyHint": true}},
     {"name": "delete_event", "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
      "annotations": {"destructiveHint": true}}])");
  o.edit_mode = true;
  const std::string p = GeneratePrompt(Library::Default(), o);
  std::vector<std::string> order = {"## Syntax Rules",
                                    "## Component Signatures",
                                    "## Built-in Functions",
                                    "## Query — Live Data Fetching",
                                    "## Mutation — Write Operations",
                                    "## Action — Button Behavior",
                                    "## Interactive Filters",
                                    "## Data Workflow",
                                    "## Available Tools",
                                    "## Hoisting & Streaming",
                                    "## Edit Mode",
                                    "## Important Rules"};
  size_t at = 0;
  for (const auto& h : order) {
    size_t next = p.find(h, at);
    ASSERT_NE(next, std::string::npos) << h;
    at = next;
  }
  EXPECT_NE(p.find("- list_events(range?: string) [read-only]\n  Upcoming events"),
            std::string::npos);
  EXPECT_NE(p.find("- delete_event(id: string) [destructive]"), std::string::npos);
  EXPECT_NE(p.find("Html(html: string, data?: Record<string, any>, mounts?: HtmlMount[])"),
            std::string::npos);
  EXPECT_NE(p.find("Button(label: string, action?: ActionExpression, variant?: \"primary\" | "
                   "\"secondary\" | \"danger\")"),
            std::string::npos);
}

}  // namespace
}  // namespace affordance::surface
