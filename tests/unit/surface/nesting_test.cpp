// Issue 24: an OpenUI program is model output, so untrusted. Whatever it nests (brackets, calls,
// objects, parentheses, operators, ternaries, references between statements) a million levels
// deep, parsing, validation, materialization, ToJson and its dump end with a reported finding,
// never with a crash: every stage is bounded (kMaxExpressionDepth, kMaxTreeHeight, the reference
// depth, the materialized depth and the expansion budget), so nothing recurses over untrusted
// depth.
#include "base/json_limits.h"
#include "surface/library.h"
#include "surface/program.h"
#include "surface/stream.h"
#include "surface/syntax.h"
#include "surface/validate.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace affordance::surface {
namespace {

constexpr int kMillion = 1000000;

std::string Repeat(std::string_view piece, int n) {
  std::string s;
  s.reserve(piece.size() * n);
  for (int i = 0; i < n; ++i) s.append(piece);
  return s;
}

bool HasCode(const std::vector<LangError>& errors, const std::string& code) {
  for (const auto& e : errors) {
    if (e.code == code) return true;
  }
  return false;
}

struct Bomb {
  const char* name;
  std::string program;
  const char* finding;  // the code that reports the bound that stopped it
};

std::vector<Bomb> Bombs() {
  std::vector<Bomb> bombs;
  bombs.push_back({"brackets",
                   "root = Stack(" + Repeat("[", kMillion) + Repeat("]", kMillion) + ")\n",
                   "nesting-too-deep"});
  bombs.push_back({"unclosed brackets (auto-closed)", "root = Stack(" + Repeat("[", kMillion),
                   "nesting-too-deep"});
  bombs.push_back({"calls",
                   "root = " + Repeat("Stack([", kMillion / 2) + Repeat("])", kMillion / 2) + "\n",
                   "nesting-too-deep"});
  bombs.push_back({"objects",
                   "root = Stack([TextContent(" + Repeat("{a: ", kMillion) + "1" +
                       Repeat("}", kMillion) + ")])\n",
                   "nesting-too-deep"});
  bombs.push_back({"mixed",
                   "root = Stack([" + Repeat("{a: [Card([(", kMillion / 4) + "1" +
                       Repeat(")])]}", kMillion / 4) + "])\n",
                   "nesting-too-deep"});
  bombs.push_back({"parentheses",
                   "root = Stack([TextContent(" + Repeat("(", kMillion) + "\"x\"" +
                       Repeat(")", kMillion) + ")])\n",
                   "nesting-too-deep"});
  bombs.push_back({"unary operators",
                   "root = Stack([TextContent(" + Repeat("!-", kMillion / 2) + "1)])\n",
                   "nesting-too-deep"});
  bombs.push_back({"ternaries",
                   "root = Stack([TextContent(" + Repeat("$a ? 1 : ", kMillion / 4) + "2)])\n",
                   "nesting-too-deep"});
  bombs.push_back({"member chain",
                   "root = Stack([TextContent($a" + Repeat(".b", kMillion / 2) + ")])\n",
                   "nesting-too-deep"});
  bombs.push_back({"operator chain",
                   "root = Stack([TextContent(\"a\"" + Repeat(" + \"b\"", kMillion / 4) + ")])\n",
                   "nesting-too-deep"});
  // Each statement stays under the expression bound; together, through references, they would
  // nest 2,000 x 250 levels. Found by this test: 200 such statements overflowed the stack.
  std::string chain = "root = Stack([s0])\n";
  for (int i = 0; i < 2000; ++i) {
    chain += "s" + std::to_string(i) + " = " + Repeat("[", 250) + "s" + std::to_string(i + 1) +
             Repeat("]", 250) + "\n";
  }
  chain += "s2000 = TextContent(\"leaf\")\n";
  bombs.push_back({"references between statements", chain, "nesting-too-deep"});
  return bombs;
}

TEST(SurfaceNesting, AMillionLevelsOfAnythingAreReportedNeverACrash) {
  const Library& lib = Library::Default();
  for (const Bomb& b : Bombs()) {
    SCOPED_TRACE(b.name);
    ParseResult parsed = Parse(b.program, lib);
    EXPECT_TRUE(HasCode(parsed.errors, b.finding));
    // What was built is bounded, so it converts and prints like any other result.
    Json json = parsed.ToJson();
    // An element is three levels of JSON (element, props, the prop's array) for two of the tree.
    EXPECT_LE(JsonValueDepth(json, 100000), 2 * static_cast<int>(kMaxTreeHeight))
        << "the result tree stays within the tree bound";
    EXPECT_FALSE(json.dump().empty());
    Validation v = ValidateProgram(b.program, lib, {});
    EXPECT_FALSE(v.ok());
    EXPECT_TRUE(HasCode(v.errors, b.finding));
    // The streaming parser reads model output in pieces.
    StreamParser stream(lib);
    for (size_t at = 0; at < b.program.size(); at += 65536)
      stream.Push(b.program.substr(at, 65536));
    ParseResult streamed = stream.Result();
    EXPECT_TRUE(HasCode(streamed.errors, b.finding));
    EXPECT_FALSE(streamed.ToJson().dump().empty());
  }
}

// The bound is on nesting, not on programs: nesting within it parses without a finding.
TEST(SurfaceNesting, NestingWithinTheBoundParsesWithoutAFinding) {
  const Library& lib = Library::Default();
  const int depth = kMaxExpressionDepth - 8;  // leaves room for Stack([TextContent(...)])
  ParseResult parsed = Parse(
      "root = Stack([TextContent(" + Repeat("(", depth) + "\"x\"" + Repeat(")", depth) + ")])\n",
      lib);
  EXPECT_FALSE(HasCode(parsed.errors, "nesting-too-deep"));
  ASSERT_TRUE(parsed.root->IsElement());
  EXPECT_EQ(parsed.root->Prop("children")->at(0).Prop("text")->string(), "x");
}

// References within the bound inline as before: 4 statements of 250 brackets nest 1,000 levels.
TEST(SurfaceNesting, ReferencesWithinTheBoundInlineWithoutAFinding) {
  std::string chain = "root = Stack([s0])\n";
  for (int i = 0; i < 4; ++i) {
    chain += "s" + std::to_string(i) + " = " + Repeat("[", 250) + "s" + std::to_string(i + 1) +
             Repeat("]", 250) + "\n";
  }
  chain += "s4 = TextContent(\"leaf\")\n";
  ParseResult parsed = Parse(chain, Library::Default());
  EXPECT_FALSE(HasCode(parsed.errors, "nesting-too-deep"));
  EXPECT_NE(parsed.ToJson().dump().find("\"leaf\""), std::string::npos);
}

// Found by surface_lang_fuzzer from the deep seeds: a component call inside an expression keeps
// its arguments twice (args and mappedProps), so each nesting level doubled the serialized tree;
// 20 levels in 1 KB took gigabytes. The copy is charged to the expansion budget now.
TEST(SurfaceNesting, SharedArgumentsOfNestedCallsAreChargedToTheBudget) {
  auto program = [](int levels) {
    return "root = " + Repeat("Stack([", levels) + "x[" + Repeat("Stack([", levels) + "[]" +
           Repeat("])", levels) + "]" + Repeat("])", levels) + "\n";
  };
  ParseResult bomb = Parse(program(25), Library::Default());
  EXPECT_TRUE(HasCode(bomb.errors, "expansion-too-large"));
  EXPECT_LT(bomb.ToJson().dump().size(), size_t{20} << 20);
  Validation v = ValidateProgram(program(25), Library::Default(), {});
  EXPECT_TRUE(HasCode(v.errors, "expansion-too-large"));
  // A few levels stay within the budget and keep both copies, as lang-core's output does.
  ParseResult fine = Parse(program(6), Library::Default());
  EXPECT_FALSE(HasCode(fine.errors, "expansion-too-large"));
  EXPECT_NE(fine.ToJson().dump().find("\"mappedProps\""), std::string::npos);
}

}  // namespace
}  // namespace affordance::surface
