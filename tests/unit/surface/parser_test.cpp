// Parsing behaviour a user relies on (src/surface/program.h, syntax.h, edit.h).
#include "surface/edit.h"
#include "surface/program.h"
#include "surface/syntax.h"

#include <gtest/gtest.h>

namespace affordance::surface {
namespace {

const Library& Lib() { return Library::Default(); }

bool HasCode(const ParseResult& r, const std::string& code) {
  for (const auto& e : r.errors) {
    if (e.code == code) return true;
  }
  return false;
}

TEST(SurfaceParser, PositionalArgumentsMapToSchemaOrder) {
  ParseResult r = Parse(
      "root = Stack([a], \"row\", \"l\")\na = Callout(\"info\", \"Title\", \"Body\")\n", Lib());
  ASSERT_TRUE(r.root->IsElement());
  EXPECT_EQ(r.root->TypeName(), "Stack");
  EXPECT_EQ(r.root->StatementId(), "root");
  EXPECT_EQ(r.root->Prop("direction")->string(), "row");
  EXPECT_EQ(r.root->Props()["gap"].string(), "l");
  // Props keep schema order, like lang-core's object keys.
  std::vector<std::string_view> keys;
  for (const Value::Member& m : r.root->Props().members()) keys.push_back(m.key);
  EXPECT_EQ(keys, (std::vector<std::string_view>{"children", "direction", "gap"}));
  const Value& callout = r.root->Prop("children")->at(0);
  EXPECT_EQ(callout.TypeName(), "Callout");
  EXPECT_EQ(callout.Prop("variant")->string(), "info");
  EXPECT_EQ(callout.Prop("description")->string(), "Body");
  EXPECT_EQ(callout.StatementId(), "a");
  EXPECT_FALSE(callout.HasDynamicProps());
  EXPECT_EQ(r.ToJson()["root"]["props"]["children"][0]["statementId"], "a");
  EXPECT_FALSE(r.incomplete);
  EXPECT_TRUE(r.errors.empty());
}

TEST(SurfaceParser, QueriesMutationsAndStateAreExtracted) {
  ParseResult r = Parse(
      "root = Stack([b])\n$q = \"x\"\nd = Query(\"search\", {q: $q}, {rows: []}, 30)\n"
      "m = Mutation(\"save\", {v: $v})\nb = Button(\"Save\", Action([@Run(m), @Run(d)]))\n",
      Lib());
  ASSERT_EQ(r.query_statements.size(), 1u);
  EXPECT_EQ(r.query_statements[0].statement_id, "d");
  EXPECT_EQ(r.query_statements[0].tool->StringLiteral(), "search");
  EXPECT_EQ(r.query_statements[0].deps, std::vector<std::string_view>{"$q"});
  EXPECT_EQ((*r.query_statements[0].refresh)["v"].number(), 30);
  ASSERT_EQ(r.mutation_statements.size(), 1u);
  EXPECT_EQ(r.mutation_statements[0].statement_id, "m");
  EXPECT_EQ(r.mutation_statements[0].args->AstKind(), "Obj");
  ASSERT_NE(r.State("$q"), nullptr);
  EXPECT_EQ(r.State("$q")->string(), "x");
  ASSERT_NE(r.State("$v"), nullptr);  // auto-declared
  EXPECT_TRUE(r.State("$v")->is_null());
  EXPECT_EQ(r.State("$nope"), nullptr);
  const Json j = r.ToJson();
  EXPECT_EQ(j["queryStatements"][0]["deps"], Json::array({"$q"}));
  EXPECT_EQ(j["queryStatements"][0]["refreshAST"]["v"], 30);
  EXPECT_EQ(j["stateDeclarations"], Json::parse(R"({"$q": "x", "$v": null})"));
  const Value& action = *r.root->Prop("children")->at(0).Prop("action");
  EXPECT_EQ(action.AstKind(), "Comp");
  EXPECT_TRUE(r.root->Prop("children")->at(0).HasDynamicProps());
  EXPECT_EQ(action["args"].at(0)["els"].at(0)["args"].at(0).AstKind(), "RuntimeRef");
}

TEST(SurfaceParser, TernaryContinuesAcrossLines) {
  ParseResult r =
      Parse("root = Stack([v])\nv = $a\n  ? TextContent(\"A\")\n  : TextContent(\"B\")\n", Lib());
  EXPECT_EQ(r.statement_count, 2u);
  EXPECT_EQ(r.root->Prop("children")->at(0).AstKind(), "Ternary");
}

TEST(SurfaceParser, MemberAccessAndPrecedence) {
  ParseResult r =
      Parse("root = Stack([])\n$x = 1 + 2 * 3 == 7 && !false\n$y = rows.name[0]\n", Lib());
  const Json x = r.State("$x")->ToJson();
  EXPECT_EQ(x["op"], "&&");
  EXPECT_EQ(x["left"]["op"], "==");
  EXPECT_EQ(x["left"]["left"]["right"]["op"], "*");
  EXPECT_EQ(r.State("$y")->AstKind(), "Index");
  EXPECT_EQ((*r.State("$y"))["obj"]["field"].string(), "name");
}

TEST(SurfaceParser, FencesAndCommentsAreRemoved) {
  ParseResult r = Parse(
      "Sure!\n```openui-lang\nroot = Stack([a]) // hi\n# note\na = TextContent(\"x # "
      "y\")\n```\nBye",
      Lib());
  EXPECT_EQ(r.statement_count, 2u);
  EXPECT_EQ(r.root->Prop("children")->at(0).Prop("text")->string(), "x # y");
  EXPECT_TRUE(r.errors.empty());
}

TEST(SurfaceParser, LangCoreErrorsCarryCodesMessagesAndStatements) {
  ParseResult r = Parse(
      "root = Stack([a, b, c, d])\na = Widget(1)\nb = CardHeader()\n"
      "c = TextContent(\"x\", \"small\", 3)\nd = TextContent(Query(\"t\", {}))\n",
      Lib());
  ASSERT_GE(r.errors.size(), 4u);
  EXPECT_EQ(r.errors[0].code, "unknown-component");
  EXPECT_EQ(r.errors[0].statement_id, "a");
  EXPECT_NE(r.errors[0].message.find("Available components: Stack"), std::string::npos);
  EXPECT_EQ(r.errors[1].code, "missing-required");
  EXPECT_EQ(r.errors[1].path, "/title");
  EXPECT_EQ(r.errors[1].message,
            "missing required field \"/title\" — signature: CardHeader(title*: string, subtitle: "
            "string)");
  EXPECT_EQ(r.errors[2].code, "excess-args");
  EXPECT_EQ(r.errors[2].message, "TextContent takes 2 arg(s), got 3 (1 excess dropped)");
  EXPECT_EQ(r.errors[3].code, "inline-reserved");
}

TEST(SurfaceParser, TypeMismatchesAreReportedAndPruned) {
  ParseResult r =
      Parse("root = Stack([TextContent(5), CardHeader(\"t\", 7)], \"diagonal\")\n", Lib());
  std::vector<std::string> messages;
  for (const auto& e : r.errors) messages.push_back(e.code + " " + e.path + " " + e.message);
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[0], "type-mismatch /text field \"/text\" expects string but got number");
  EXPECT_EQ(messages[1],
            "type-mismatch /subtitle field \"/subtitle\" expects string but got number");
  EXPECT_EQ(messages[2],
            "type-mismatch /direction field \"/direction\" expects one of [\"column\", \"row\"] "
            "but got \"diagonal\"");
  // The required-prop violation drops TextContent; the optional one is pruned.
  ASSERT_EQ(r.root->Prop("children")->size(), 1u);
  EXPECT_EQ(r.root->Prop("children")->at(0).Prop("subtitle"), nullptr);
  EXPECT_EQ(r.root->Prop("direction"), nullptr);
  EXPECT_FALSE(r.ToJson()["root"]["props"].contains("direction"));
}

TEST(SurfaceParser, NonStatementsAreReportedNotSkipped) {
  ParseResult r = Parse("Here you go:\nroot = Stack([a])\na TextContent(\"x\")\n", Lib());
  int count = 0;
  for (const auto& e : r.errors) {
    if (e.code != "non-statement") continue;
    ++count;
    EXPECT_NE(e.message.find("not a statement"), std::string::npos);
  }
  EXPECT_EQ(count, 2);
  EXPECT_EQ(r.statement_count, 1u);
}

TEST(SurfaceParser, DuplicatesAndTrailingTokensAreReported) {
  ParseResult r =
      Parse("root = Stack([a]) x\na = TextContent(\"1\")\na = TextContent(\"2\")\n", Lib());
  EXPECT_TRUE(HasCode(r, "trailing-tokens"));
  EXPECT_TRUE(HasCode(r, "duplicate-statement"));
  EXPECT_EQ(r.root->Prop("children")->at(0).Prop("text")->string(), "2");  // last definition wins
}

TEST(SurfaceParser, TruncatedInputIsAutoClosedAndMarkedIncomplete) {
  ParseResult r = Parse("root = Stack([TextContent(\"hel", Lib());
  EXPECT_TRUE(r.incomplete);
  EXPECT_EQ(r.root->Prop("children")->at(0).Prop("text")->string(), "hel");
  EXPECT_TRUE(r.root->Partial());
}

TEST(SurfaceParser, EmptyAndGarbageInputNeverFail) {
  EXPECT_TRUE(Parse("", Lib()).root->is_null());
  EXPECT_TRUE(Parse("\x01\xff\xfe(((\"", Lib()).root->is_null());
  EXPECT_TRUE(Parse("", Lib()).ToJson()["root"].is_null());
  ParseResult cyc = Parse("root = Stack([a])\na = Card([b])\nb = Card([a])\n", Lib());
  EXPECT_EQ(cyc.unresolved, std::vector<std::string>{"a"});
}

TEST(SurfaceParser, HostileNestingIsBoundedAndReported) {
  std::string deep = "root = Stack(" + std::string(5000, '[') + std::string(5000, ']') + ")\n";
  EXPECT_TRUE(HasCode(Parse(deep, Lib()), "nesting-too-deep"));
  std::string chain = "root = Stack([TextContent(\"a\"";
  for (int i = 0; i < 3000; ++i) chain += " + \"b\"";
  chain += ")])\n";
  EXPECT_TRUE(HasCode(Parse(chain, Lib()), "nesting-too-deep"));
  // Exponential expansion through references: a0 = [a1, a1, a1, a1], a1 = [a2, ...], ...
  std::string blowup = "root = Stack([])\n$big = a0\n";
  for (int i = 0; i < 12; ++i) {
    const std::string next = "a" + std::to_string(i + 1);
    blowup +=
        "a" + std::to_string(i) + " = [" + next + ", " + next + ", " + next + ", " + next + "]\n";
  }
  blowup += "a12 = \"leaf\"\n";
  EXPECT_TRUE(HasCode(Parse(blowup, Lib()), "expansion-too-large"));
}

TEST(SurfaceSyntax, NumbersPrintLikeJavaScript) {
  EXPECT_EQ(JsNumberString(1), "1");
  EXPECT_EQ(JsNumberString(0.5), "0.5");
  EXPECT_EQ(JsNumberString(1e21), "1e+21");
  EXPECT_EQ(JsNumberString(1e-7), "1e-7");
  EXPECT_EQ(JsNumberString(123456789012345680000.0), "123456789012345680000");
  EXPECT_EQ(JsNumberString(-1.5e-3), "-0.0015");
}

TEST(SurfaceSyntax, BuiltinNamesAreExactlyLangCores) {
  for (std::string_view name :
       {"Count",  "First",  "Last",        "Sum",     "Avg",   "Min",  "Max",
        "Sort",   "Filter", "Round",       "Abs",     "Floor", "Ceil", "Each",
        "Action", "Run",    "ToAssistant", "OpenUrl", "Set",   "Reset"}) {
    EXPECT_TRUE(IsBuiltin(name)) << name;
  }
  for (std::string_view name : {"", "Sets", "set", "Se", "Stack", "Query", "Mutation", "Each ",
                                "ToAssistanT", "OpenURL", "Filters", "Actio", "Resets"}) {
    EXPECT_FALSE(IsBuiltin(name)) << name;
  }
}

// The parse-phase tree lives in an arena and views the source: statements split across lines
// keep only their expression tokens, and object keys and member names come out as written.
TEST(SurfaceSyntax, StatementTreesViewTheirTokensAndArena) {
  const std::string text = "a = Stack([x,\n  y])\n\nb = {k: 1, \"s t\": $v, 2: p.$q.3}\nc =\n";
  Arena arena;
  std::vector<Token> tokens = Tokenize(text, arena);
  std::vector<SkippedLine> skipped;
  const std::vector<RawStatement> raws = SplitStatements(tokens, text, &skipped);
  ASSERT_EQ(raws.size(), 2u);
  ASSERT_EQ(skipped.size(), 1u);  // "c =" has no expression
  EXPECT_EQ(skipped[0].text, "c =");
  EXPECT_EQ(raws[0].id, "a");
  EXPECT_EQ(raws[1].id, "b");
  for (const Token& t : raws[0].tokens) EXPECT_NE(t.t, Tok::kNewline);
  EXPECT_EQ(raws[0].tokens.size(), 8u);  // Stack ( [ x , y ] )

  const ParsedExpression a = ParseExpression(raws[0].tokens, arena);
  EXPECT_EQ(a.consumed, raws[0].tokens.size());
  ASSERT_EQ(a.node.kind, NodeKind::kComp);
  EXPECT_EQ(a.node.text, "Stack");
  ASSERT_EQ(a.node.kids.size(), 1u);
  const Node& list = a.node.kids[0];
  ASSERT_EQ(list.kind, NodeKind::kArr);
  ASSERT_EQ(list.kids.size(), 2u);
  EXPECT_EQ(list.kids[0].text, "x");
  EXPECT_EQ(list.kids[1].text, "y");
  EXPECT_EQ(a.node.height, 3u);

  const ParsedExpression b = ParseExpression(raws[1].tokens, arena);
  ASSERT_EQ(b.node.kind, NodeKind::kObj);
  ASSERT_EQ(b.node.keys.size(), 3u);
  ASSERT_EQ(b.node.kids.size(), 3u);
  EXPECT_EQ(b.node.keys[0], "k");
  EXPECT_EQ(b.node.keys[1], "s t");
  EXPECT_EQ(b.node.keys[2], "2");
  EXPECT_EQ(b.node.kids[0].num, 1);
  EXPECT_EQ(b.node.kids[1].kind, NodeKind::kStateRef);
  EXPECT_EQ(b.node.kids[1].text, "$v");
  const Node& member = b.node.kids[2];  // p.$q.3: fields "q" then "3"
  ASSERT_EQ(member.kind, NodeKind::kMember);
  EXPECT_EQ(member.text, "3");
  ASSERT_EQ(member.kids.size(), 1u);
  EXPECT_EQ(member.kids[0].text, "q");
  EXPECT_EQ(member.kids[0].kids[0].text, "p");
}

TEST(SurfaceEdit, PatchReplacesAppendsDeletesAndCollects) {
  Result<std::string> m = MergeProgram(
      "root = Stack([a, b])\n$s = 1\na = TextContent(\"a\")\nb = Card([c])\nc = TextContent(\"c\")",
      "a = TextContent(\"A\")\nroot = Stack([a, d])\nd = TextContent(\"d\")\nb = null");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(*m, "root = Stack([a, d])\n$s = 1\na = TextContent(\"A\")\nd = TextContent(\"d\")");
}

TEST(SurfaceEdit, PatchWithoutProgramIsAnError) {
  Result<std::string> m = MergeProgram("  \n", "root = Stack([])");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, "surface.patch_without_program");
  EXPECT_EQ(m.error().message, "an edit patch needs an existing program to apply to");
}

}  // namespace
}  // namespace affordance::surface
