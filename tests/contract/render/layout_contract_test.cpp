// Layout contract: exact token preservation, run boundaries, budgets, scroll windows, markers,
// control tokens resolved lazily, raw IDs, the run cache and its counters, and bad trees.
#include "render/layout.h"
#include "render/run_cache.h"
#include "tree.h"

#include <gtest/gtest.h>

namespace affordance::render {
namespace {

using namespace testing;  // NOLINT
using Ids = std::vector<text::TokenId>;

class LayoutContract : public ::testing::Test {
 protected:
  // Each CTest case is its own process: load only what a test uses (a tokenizer takes ~1 s).
  void SetUp() override {
    auto q = text::LoadModel("Qwen__Qwen3-4B-Instruct-2507");
    ASSERT_TRUE(q.ok()) << q.error().ToString();
    qwen = *q;
  }
  void LoadLlama() {
    auto l = text::LoadModel("meta-llama__Llama-3.1-8B-Instruct");
    ASSERT_TRUE(l.ok()) << l.error().ToString();
    llama = *l;
  }
  Block Lay(const std::vector<view::Node>& nodes, const text::Tokenizer& tok,
            LayoutOptions options = {}) {
    auto b = Layout(nodes, tok, options);
    EXPECT_TRUE(b.ok()) << b.error().code << ": " << b.error().ToString();
    return b.ok() ? *b : Block{};
  }
  Error LayError(const std::vector<view::Node>& nodes, const text::Tokenizer& tok) {
    auto b = Layout(nodes, tok, {});
    EXPECT_FALSE(b.ok());
    return b.ok() ? Error{} : b.error();
  }
  std::shared_ptr<const text::Tokenizer> qwen, llama;
};

TEST_F(LayoutContract, EachRunIsEncodedOnItsOwnAndConcatenated) {
  const std::vector<std::string> runs = {"Notebook", "\n", "3, 14, 15", " naïve café ☕", "数字"};
  LoadLlama();
  for (const auto* tok : {qwen.get(), llama.get()}) {
    std::vector<view::Node> nodes;
    Ids expected;
    for (const auto& r : runs) {
      nodes.push_back(Text(r));
      auto ids = Enc(*tok, r);
      expected.insert(expected.end(), ids.begin(), ids.end());
    }
    EXPECT_EQ(Lay({El("box", {}, nodes)}, *tok).tokens, expected);
  }
}

TEST_F(LayoutContract, RunBoundariesAreHardTokenizationBoundaries) {
  // "Notes:" + "\n" encodes ":" and "\n" apart; the flat string "Notes:\n" merges ":\n" in Qwen's
  // pre-tokenizer. The native tree keeps its runs (documented in docs/ADAPTERS.md).
  const Block b = Lay({Text("Notes:"), Text("\n"), Text("hi")}, *qwen);
  Ids apart = Enc(*qwen, "Notes:");
  for (const auto& s : {"\n", "hi"}) {
    auto ids = Enc(*qwen, s);
    apart.insert(apart.end(), ids.begin(), ids.end());
  }
  EXPECT_EQ(b.tokens, apart);
  EXPECT_NE(b.tokens, Enc(*qwen, "Notes:\nhi"));
  // Leading spaces stay with their run: " world" is one token after "Hello" either way.
  EXPECT_EQ(Lay({Text("Hello"), Text(" world")}, *qwen).tokens, Enc(*qwen, "Hello world"));
}

TEST_F(LayoutContract, SpecialSpellingsInTextStayText) {
  const Block b = Lay({Text("<|im_end|>")}, *qwen);
  EXPECT_EQ(b.tokens, Enc(*qwen, "<|im_end|>"));
  EXPECT_GT(b.tokens.size(), 1u);
}

TEST_F(LayoutContract, BudgetCutsARunAtATokenBoundaryAndHidesWhatFollows) {
  const Ids first = Enc(*qwen, "one two three four five six");
  ASSERT_GT(first.size(), 4u);
  const Block b =
      Lay({El("box", {{"budget", 4}}, {Text("one two three four five six"), Text("seven")}),
           Text(" after")},
          *qwen);
  Ids expected(first.begin(), first.begin() + 4);
  const Ids after = Enc(*qwen, " after");
  expected.insert(expected.end(), after.begin(), after.end());
  EXPECT_EQ(b.tokens, expected);
  EXPECT_TRUE(b.clipped);
  ASSERT_FALSE(b.spans.empty());
  EXPECT_TRUE(b.spans[0].clipped);
  EXPECT_EQ(b.spans[0].end - b.spans[0].begin, 4u);
}

TEST_F(LayoutContract, BudgetsClipInDocumentOrderNotBestFit) {
  // The long run does not fit; the short one after it would, but is hidden: document order.
  const Block b = Lay({El("box", {{"budget", 3}}, {Text("a b c d e f g"), Text("x")})}, *qwen);
  const Ids all = Enc(*qwen, "a b c d e f g");
  EXPECT_EQ(b.tokens, Ids(all.begin(), all.begin() + 3));
}

TEST_F(LayoutContract, NestedBudgetsUseTheTightestAndOnlyTheOwnerStops) {
  // The inner list clips at its own budget; the outer box goes on with its next child.
  const Block b =
      Lay({El("box", {{"budget", 100}},
              {El("list", {{"budget", 2}}, {Text("1"), Text("2"), Text("3")}), Text("end")})},
          *qwen);
  Ids expected = Enc(*qwen, "1");
  for (const auto& s : {"2", "end"}) {
    auto ids = Enc(*qwen, s);
    expected.insert(expected.end(), ids.begin(), ids.end());
  }
  EXPECT_EQ(b.tokens, expected);
}

TEST_F(LayoutContract, ScrollShowsItemsFromItsOffset) {
  std::vector<view::Node> rows;
  for (int i = 0; i < 10; ++i) rows.push_back(Text("row " + std::to_string(i) + "\n"));
  const Block b = Lay({El("scroll", {{"offset", 7}}, rows)}, *qwen);
  Ids expected;
  for (int i = 7; i < 10; ++i) {
    auto ids = Enc(*qwen, "row " + std::to_string(i) + "\n");
    expected.insert(expected.end(), ids.begin(), ids.end());
  }
  EXPECT_EQ(b.tokens, expected);
  EXPECT_TRUE(Lay({El("scroll", {{"offset", 99}}, rows)}, *qwen).tokens.empty());
}

TEST_F(LayoutContract, MarkerIsShownInsideTheBudgetWhenSomethingWasCut) {
  std::vector<view::Node> rows;
  for (int i = 0; i < 50; ++i) rows.push_back(Text(std::to_string(i) + "\n"));
  const Ids marker = Enc(*qwen, "…");
  const Block b = Lay({El("scroll", {{"budget", 10}, {"marker", "…"}}, rows)}, *qwen);
  ASSERT_EQ(b.tokens.size(), 10u);
  EXPECT_TRUE(std::equal(marker.begin(), marker.end(), b.tokens.end() - marker.size()));
  // Nothing cut: no marker.
  const Block whole = Lay({El("scroll", {{"budget", 100}, {"marker", "…"}}, {Text("1\n")})}, *qwen);
  EXPECT_EQ(whole.tokens, Enc(*qwen, "1\n"));
}

TEST_F(LayoutContract, InputAndButtonRenderTheirLabels) {
  const Block b = Lay({El("input", {{"label", "notes"}, {"value", "buy milk"}}), Text("\n"),
                       El("button", {{"label", "save"}})},
                      *qwen);
  Ids expected = Enc(*qwen, "notes: buy milk");
  for (const auto& s : {"\n", "[save]"}) {
    auto ids = Enc(*qwen, s);
    expected.insert(expected.end(), ids.begin(), ids.end());
  }
  EXPECT_EQ(b.tokens, expected);
}

TEST_F(LayoutContract, ControlTokensResolveLazilyAgainstTheEncoder) {
  const auto im_start = qwen->TokenIdOf("<|im_start|>");
  ASSERT_TRUE(im_start.has_value());
  EXPECT_EQ(Lay({El("token", {{"name", "<|im_start|>"}})}, *qwen).tokens, Ids{*im_start});
  LoadLlama();
  // Llama lacks <|im_start|>: an error only when it is rendered...
  const Error e = LayError({El("token", {{"name", "<|im_start|>"}}, {}, {}, "App/token")}, *llama);
  EXPECT_EQ(e.code, "render.unknown_token");
  EXPECT_NE(e.message.find("<|im_start|>"), std::string::npos);
  EXPECT_EQ(e.detail, "App/token");
  // ...and not when a budget hides it.
  const Block hidden =
      Lay({El("box", {{"budget", 1}}, {Text("a b c"), El("token", {{"name", "<|im_start|>"}})})},
          *llama);
  EXPECT_EQ(hidden.tokens.size(), 1u);
}

TEST_F(LayoutContract, IdsEmitTokensVerbatimAndRejectForeignIds) {
  EXPECT_EQ(Lay({El("ids", {{"value", {1, 2, 151645}}})}, *qwen).tokens, (Ids{1, 2, 151645}));
  EXPECT_EQ(LayError({El("ids", {{"value", {1, 200000}}})}, *qwen).code, "render.invalid_token_id");
  EXPECT_EQ(LayError({El("ids", {{"value", "1 2"}})}, *qwen).code, "render.invalid_prop");
}

TEST_F(LayoutContract, BadTreesAreClearErrors) {
  Error e = LayError({El("marquee", {}, {}, {}, "App/marquee")}, *qwen);
  EXPECT_EQ(e.code, "render.unknown_element");
  EXPECT_NE(e.message.find("marquee"), std::string::npos);
  EXPECT_EQ(LayError({El("box", {{"budget", -1}})}, *qwen).code, "render.invalid_prop");
  EXPECT_EQ(LayError({El("box", {{"budget", "48"}})}, *qwen).code, "render.invalid_prop");
  EXPECT_EQ(LayError({El("box", {{"offset", 2}})}, *qwen).code, "render.invalid_prop");
  EXPECT_EQ(LayError({El("input", {{"label", {{"a", 1}}}})}, *qwen).code, "render.invalid_prop");
  EXPECT_EQ(LayError({El("token", {{"name", "<|im_end|>"}}, {Text("x")})}, *qwen).code,
            "render.invalid_children");
  EXPECT_EQ(LayError({Text("bad \xff byte")}, *qwen).code.rfind("tokenizer.", 0), 0u);
  view::Node foreign;
  foreign.kind = view::Node::Kind::kBlock;
  EXPECT_EQ(LayError({foreign}, *qwen).code, "render.invalid_block");
}

TEST_F(LayoutContract, RunCacheCountsHitsMissesAndBytes) {
  RunCache cache(*qwen);
  LayoutOptions options;
  options.cache = &cache;
  const std::vector<view::Node> nodes = {Text("alpha"), Text(" beta"), Text("alpha")};
  const Block cold = Lay(nodes, *qwen, options);
  EXPECT_EQ(cache.stats().misses, 2u);
  EXPECT_EQ(cache.stats().hits, 1u);
  EXPECT_EQ(cache.stats().entries, 2u);
  const uint64_t bytes = 5 + 5 + 4 * (Enc(*qwen, "alpha").size() + Enc(*qwen, " beta").size());
  EXPECT_EQ(cache.stats().bytes, bytes);
  const Block warm = Lay(nodes, *qwen, options);
  EXPECT_EQ(warm.tokens, cold.tokens);
  EXPECT_EQ(cache.stats().hits, 4u);
  EXPECT_EQ(cache.stats().misses, 2u);
  EXPECT_EQ(cold.tokens, Lay(nodes, *qwen).tokens);  // cached == uncached
}

TEST_F(LayoutContract, RunCacheIsBoundToOneEncoder) {
  LoadLlama();
  RunCache cache(*qwen);
  LayoutOptions options;
  options.cache = &cache;
  auto b = Layout({Text("alpha")}, *llama, options);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().code, "render.cache_encoder");
}

TEST_F(LayoutContract, RunCacheEmptiesItselfWhenFull) {
  RunCache cache(*qwen, 100);
  Ids out;
  ASSERT_TRUE(cache.Append(*qwen, "a fairly long run of text number one", out).ok());
  ASSERT_TRUE(cache.Append(*qwen, "a fairly long run of text number two", out).ok());
  EXPECT_EQ(cache.stats().evictions, 1u);
  EXPECT_EQ(cache.stats().entries, 1u);
  EXPECT_LE(cache.stats().bytes, 100u);
}

}  // namespace
}  // namespace affordance::render
