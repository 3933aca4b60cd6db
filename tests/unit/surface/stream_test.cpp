// Streaming behaviour (src/surface/stream.h).
#include "surface/stream.h"

#include <gtest/gtest.h>

#include <memory>

namespace affordance::surface {
namespace {

const char kProgram[] =
    "Here it is:\n```openui-lang\nroot = Stack([h, v, t])\nh = CardHeader(\"Hi\") // title\n"
    "$mode = \"a\"\nv = $mode == \"a\"\n  ? TextContent(\"A\")\n  : TextContent(\"B\")\n"
    "d = Query(\"rows\", {}, {rows: []})\nt = Table([Col(\"N\", d.rows.name)])\n```\nDone.";

TEST(SurfaceStream, EveryChunkSizeGivesTheBatchResult) {
  const Json expected = Parse(kProgram, Library::Default()).ToJson();
  const std::string text = kProgram;
  for (size_t chunk = 1; chunk <= 17; ++chunk) {
    StreamParser p(Library::Default());
    for (size_t i = 0; i < text.size(); i += chunk) p.Push(std::string_view(text).substr(i, chunk));
    EXPECT_EQ(p.Result().ToJson(), expected) << "chunk size " << chunk;
  }
}

TEST(SurfaceStream, CompletedStatementsAreCachedAndPendingNeverOverwrites) {
  StreamParser p(Library::Default());
  p.Push("root = Stack([a])\na = TextContent(\"done\")\nx = 1\n");
  EXPECT_EQ(p.completed_statements(), 2u);  // "x = 1" waits for the next line
  p.Push("a = TextCon");                    // a pending redefinition of a completed name
  ParseResult r = p.Result();
  EXPECT_EQ(r.root->Prop("children")->at(0).Prop("text")->string(), "done");
  EXPECT_TRUE(r.incomplete == false);
}

TEST(SurfaceStream, TernaryContinuationIsNotCutByAChunkBoundary) {
  StreamParser p(Library::Default());
  p.Push("root = Stack([v])\nv = $a\n");
  p.Push("  ? TextContent(\"A\")\n  : TextContent(\"B\")\n");
  ParseResult r = p.Result();
  EXPECT_EQ(r.root->Prop("children")->at(0).AstKind(), "Ternary");
  EXPECT_EQ(r.statement_count, 2u);
}

TEST(SurfaceStream, PartialTailShowsWhileStreaming) {
  StreamParser p(Library::Default());
  p.Push("root = Stack([a, b])\na = TextContent(\"first\")\nb = TextContent(\"sec");
  ParseResult r = p.Result();
  EXPECT_TRUE(r.incomplete);
  ASSERT_EQ(r.root->Prop("children")->size(), 2u);
  EXPECT_EQ(r.root->Prop("children")->at(1).Prop("text")->string(), "sec");
}

// Copies share the statements parsed so far; each then grows on its own, and either outlives
// the other.
TEST(SurfaceStream, CopiesContinueIndependently) {
  const std::string head = "root = Stack([a, b])\na = TextContent(\"shared\")\n";
  const std::string left = "b = TextContent(\"left\")\nc = 1\n";
  const std::string right = "b = Button(\"right\")\n";
  auto original = std::make_unique<StreamParser>(Library::Default());
  original->Push(head);
  StreamParser copy = *original;
  original->Push(left);
  copy.Push(right);
  ParseResult from_original = original->Result();
  original.reset();
  EXPECT_EQ(from_original.ToJson(), Parse(head + left, Library::Default()).ToJson());
  EXPECT_EQ(copy.Result().ToJson(), Parse(head + right, Library::Default()).ToJson());
  EXPECT_EQ(copy.completed_statements(), 2u);  // "b = ..." waits for the next line
  StreamParser again = copy;                   // copy of a copy, after the first copy grew
  again.Push("d = 2\n");
  EXPECT_EQ(copy.Result().ToJson(), Parse(head + right, Library::Default()).ToJson());
  EXPECT_EQ(again.Result().ToJson(), Parse(head + right + "d = 2\n", Library::Default()).ToJson());
}

TEST(SurfaceStream, ResetForgetsEverything) {
  StreamParser p(Library::Default());
  p.Push("root = Stack([])\n");
  p.Reset();
  EXPECT_TRUE(p.Result().root->is_null());
  EXPECT_EQ(p.completed_statements(), 0u);
}

}  // namespace
}  // namespace affordance::surface
