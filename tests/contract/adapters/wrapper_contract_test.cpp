// The wrappers through the real view runtime: rebased spans, visible-action projection under app
// budgets, act (closures and setters), act errors, the outer-crop error, ModelContext with lazily
// resolved protocol tokens, and the run caches.
#include "render/renderer.h"

#include <gtest/gtest.h>

namespace affordance::render {
namespace {

const std::string kRoot = AFFORDANCE_SOURCE_DIR;
constexpr const char* kQwen = "Qwen__Qwen3-4B-Instruct-2507";
constexpr const char* kLlama = "meta-llama__Llama-3.1-8B-Instruct";

view::ViewOptions Options() {
  view::ViewOptions o;
  o.lib_root = kRoot + "/views/lib";
  o.cache_dir = "-";
  return o;
}

std::unique_ptr<Renderer> Load(const std::string& file, const std::string& entry,
                               const char* model = kQwen) {
  auto r = Renderer::Load(kRoot + "/" + file, entry, model, Options());
  EXPECT_TRUE(r.ok()) << r.error().code << ": " << r.error().ToString();
  return r.ok() ? std::move(r).value() : nullptr;
}

std::string Decode(const Renderer& r, const Block& b, const Span& s) {
  std::vector<text::TokenId> ids(b.tokens.begin() + s.begin, b.tokens.begin() + s.end);
  auto text = r.tokenizer().Decode(ids);
  return text.ok() ? *text : "?";
}

const Span* Action(const Block& b, const std::string& name) {
  for (const auto& s : b.spans) {
    if (s.kind == Span::Kind::kAction && s.name == name) return &s;
  }
  return nullptr;
}

nlohmann::json Numbers(int n) {
  nlohmann::json a = nlohmann::json::array();
  for (int i = 0; i < n; ++i) a.push_back(i * 37 % 1000);
  return a;
}

TEST(WrapperContract, NotebookChatProjectsVisibleActionsWithRebasedSpans) {
  auto r = Load("views/demo/notebook_chat.tsx", "NotebookChat");
  ASSERT_NE(r, nullptr);
  auto b = r->Render({{"numbers", Numbers(200)}, {"question", "Sum the numbers."}});
  ASSERT_TRUE(b.ok()) << b.error().ToString();
  std::vector<std::string> names;
  for (const auto& t : b->tools) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"scroll__numbers", "change__notes"}));
  const Span* notes = Action(*b, "change__notes");
  ASSERT_NE(notes, nullptr);
  EXPECT_EQ(Decode(*r, *b, *notes), "notes: ");
  EXPECT_GT(notes->begin, 100u);  // after the system/tool section and the question
  const Span* scroll = Action(*b, "scroll__numbers");
  ASSERT_NE(scroll, nullptr);
  EXPECT_EQ(scroll->end - scroll->begin, 48u);  // the app's budget, marker included
  EXPECT_EQ(Decode(*r, *b, *scroll).substr(0, 4), "0\n37");
}

TEST(WrapperContract, NativeAndWrappedAppTokensAreTheSame) {
  auto native = Load("views/demo/notebook_app.tsx", "Notebook");
  auto wrapped = Load("views/demo/notebook_chat.tsx", "NotebookChat");
  ASSERT_TRUE(native && wrapped);
  auto n = native->Render({{"numbers", Numbers(200)}});
  auto w = wrapped->Render({{"numbers", Numbers(200)}, {"question", "q"}});
  ASSERT_TRUE(n.ok() && w.ok());
  EXPECT_TRUE(n->tools.empty());  // no asChatTools: nothing projected
  const auto& tail = w->tokens;
  // The app is the last user turn: <|im_start|>user\n{app}<|im_end|>\n<|im_start|>assistant\n.
  const size_t suffix = 5;  // <|im_end|> \n <|im_start|> assistant \n
  ASSERT_GT(tail.size(), n->tokens.size() + suffix);
  EXPECT_TRUE(
      std::equal(n->tokens.begin(), n->tokens.end(), tail.end() - suffix - n->tokens.size()));
}

TEST(WrapperContract, OnlyRowsThatFitTheAppBudgetBecomeTools) {
  auto r = Load("tests/contract/adapters/data/golden_view.tsx", "GoldenQwen");
  ASSERT_NE(r, nullptr);
  nlohmann::json rows = nlohmann::json::array();
  for (int i = 0; i < 100; ++i) {
    rows.push_back({{"type", "button"},
                    {"props", {{"label", "row" + std::to_string(i)}}},
                    {"handlers", {"onClick"}}});
  }
  nlohmann::json c = {
      {"question", "Pick a row."},
      {"body", {{{"type", "scroll"}, {"props", {{"budget", 12}}}, {"children", rows}}}}};
  auto b = r->Render({{"c", c}});
  ASSERT_TRUE(b.ok()) << b.error().ToString();
  ASSERT_FALSE(b->tools.empty());
  EXPECT_LT(b->tools.size(), 12u);
  for (size_t i = 0; i < b->tools.size(); ++i) {
    EXPECT_EQ(b->tools[i].name, "click__row" + std::to_string(i));
    EXPECT_EQ(Decode(*r, *b, *Action(*b, b->tools[i].name)), "[row" + std::to_string(i) + "]");
  }
}

TEST(WrapperContract, ActDispatchesThroughTheProjectedHandlerAndReRenders) {
  auto r = Load("views/demo/notebook_chat.tsx", "NotebookChat");
  ASSERT_NE(r, nullptr);
  RunCache outer(r->tokenizer());
  ASSERT_TRUE(r->Render({{"numbers", Numbers(200)}, {"question", "q"}}, &outer).ok());
  auto b = r->Act({{"name", "change__notes"}, {"arguments", {{"value", "sum is 42"}}}});
  ASSERT_TRUE(b.ok()) << b.error().ToString();
  EXPECT_EQ(Decode(*r, *b, *Action(*b, "change__notes")), "notes: sum is 42");
  // Chat APIs send arguments as a JSON string.
  b = r->Act({{"name", "scroll__numbers"}, {"arguments", R"({"offset": 190})"}});
  ASSERT_TRUE(b.ok()) << b.error().ToString();
  EXPECT_EQ(Decode(*r, *b, *Action(*b, "scroll__numbers")).substr(0, 4), "30\n6");  // 190*37%1000
  EXPECT_EQ(Decode(*r, *b, *Action(*b, "change__notes")), "notes: sum is 42");      // state kept
  // act reuses native runs: the projection cache answered most runs of the re-render.
  EXPECT_GT(r->projection_cache_stats().hits, 0u);
}

// An act that changes no state (a scroll to where the list already is) replays the app, and the
// renders after it reuse the rows its layout was made from: they must still be there. They were
// swept by a render that replayed the wrapper without calling asChatTools again, and the next
// layout failed with view.render "rendered after it unmounted" (the harness's frame renders
// twice a step, so a model that scrolled to offset 0 ended its turn with a harness error).
TEST(WrapperContract, AnActThatChangesNothingKeepsTheRowsOfTheLayout) {
  struct App {
    const char *file, *name, *model;
  };
  for (const App& app : {App{"views/demo/notebook_chat.tsx", "NotebookChat", kQwen},
                         App{"views/demo/notebook_llama31.tsx", "NotebookLlama31", kLlama}}) {
    SCOPED_TRACE(app.model);
    auto r = Load(app.file, app.name, app.model);
    ASSERT_NE(r, nullptr);
    const nlohmann::json a = {{"numbers", Numbers(20)}, {"question", "q"}};
    const nlohmann::json b = {{"numbers", Numbers(20)}, {"question", "another"}};
    auto first = r->Render(a);
    ASSERT_TRUE(first.ok()) << first.error().ToString();
    ASSERT_TRUE(r->Render(b).ok());
    for (int i = 0; i < 2; ++i) {
      auto acted = r->Act({{"name", "scroll__numbers"}, {"arguments", {{"offset", 0}}}});
      ASSERT_TRUE(acted.ok()) << acted.error().ToString();
      auto again = r->Render(i == 0 ? b : a);
      ASSERT_TRUE(again.ok()) << again.error().ToString();
    }
    auto last = r->Render(a);
    ASSERT_TRUE(last.ok()) << last.error().ToString();
    EXPECT_EQ(last->tokens, first->tokens);
  }
}

TEST(WrapperContract, ActErrorsAreClear) {
  auto r = Load("tests/contract/adapters/data/golden_view.tsx", "GoldenQwen");
  ASSERT_NE(r, nullptr);
  auto before = r->Act({{"name", "click__x"}, {"arguments", nlohmann::json::object()}});
  EXPECT_EQ(before.error().code, "render.not_rendered");
  nlohmann::json body = {
      {{"type", "button"}, {"props", {{"label", "reset"}}}, {"handlers", {"onReset"}}}};
  ASSERT_TRUE(r->Render({{"c", {{"question", "q"}, {"body", body}}}}).ok());
  auto unknown = r->Act({{"name", "click__nope"}, {"arguments", nlohmann::json::object()}});
  EXPECT_EQ(unknown.error().code, "render.unknown_tool");
  EXPECT_NE(unknown.error().message.find("reset__reset"), std::string::npos);
  auto throws = r->Act({{"name", "reset__reset"}, {"arguments", nlohmann::json::object()}});
  EXPECT_EQ(throws.error().code, "view.handler");
  EXPECT_EQ(r->Act({{"arguments", 1}}).error().code, "render.invalid_call");
  EXPECT_EQ(r->Act({{"name", "reset__reset"}, {"arguments", "{not json"}}).error().code,
            "render.invalid_call");
  // callable: false keeps the tool declared but refuses the call.
  ASSERT_TRUE(r->Render({{"c", {{"question", "q"}, {"body", body}, {"callable", false}}}}).ok());
  ASSERT_EQ(r->last().tools.size(), 1u);
  auto preview = r->Act({{"name", "reset__reset"}, {"arguments", nlohmann::json::object()}});
  EXPECT_EQ(preview.error().code, "render.not_callable");
}

// Issue 24: a call's arguments a million levels deep, as a value or as a JSON string, are refused
// before anything copies, parses or converts them (each recurses); the view keeps its state and
// arguments at the limit still reach the handler.
TEST(WrapperContract, ActRefusesArgumentsNestedTooDeep) {
  auto r = Load("views/demo/notebook_chat.tsx", "NotebookChat");
  ASSERT_NE(r, nullptr);
  ASSERT_TRUE(r->Render({{"numbers", Numbers(20)}, {"question", "q"}}).ok());
  nlohmann::ordered_json deep = nlohmann::ordered_json::array();
  nlohmann::ordered_json* inner = &deep;
  for (int i = 1; i < 1000000; ++i) inner = &inner->emplace_back(nlohmann::ordered_json::array());
  nlohmann::ordered_json as_value = {{"name", "change__notes"}};
  as_value["arguments"] = {{"value", "x"}};
  as_value["arguments"]["pad"] = std::move(deep);  // moved, never copied
  const std::string text =
      "{\"value\": \"x\", \"pad\": " + std::string(1000000, '[') + std::string(1000000, ']') + "}";
  std::vector<nlohmann::ordered_json> calls;
  calls.reserve(2);
  calls.push_back(std::move(as_value));
  calls.push_back({{"name", "change__notes"}, {"arguments", text}});
  for (const auto& call : calls) {
    auto refused = r->Act(call);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, "render.too_deep");
    EXPECT_EQ(refused.error().message,
              "the call's arguments nest deeper than 128 levels of arrays and objects");
    EXPECT_EQ(refused.error().detail, "change__notes");
  }
  const std::string at = "{\"value\": \"sum\", \"pad\": " + std::string(127, '[') +
                         std::string(127, ']') + "}";  // 128 levels with the arguments object
  auto b = r->Act({{"name", "change__notes"}, {"arguments", at}});
  ASSERT_TRUE(b.ok()) << b.error().ToString();
  EXPECT_EQ(Decode(*r, *b, *Action(*b, "change__notes")), "notes: sum");
}

TEST(WrapperContract, CroppingTheProjectedTreeFromOutsideIsAnError) {
  auto r = Load("tests/contract/adapters/data/golden_view.tsx", "CroppingWrapper");
  ASSERT_NE(r, nullptr);
  nlohmann::json body = {"Notebook\n",
                         {{"type", "input"},
                          {"props", {{"label", "notes"}, {"value", "x"}}},
                          {"handlers", {"onChange"}}}};
  auto b = r->Render({{"c", {{"body", body}, {"crop", 4}}}});
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().code, "render.outer_crop");
  EXPECT_NE(b.error().message.find("move that budget inside asChatTools"), std::string::npos);
  EXPECT_TRUE(r->Render({{"c", {{"body", body}, {"crop", 1000}}}}).ok());
}

TEST(WrapperContract, ModelContextPicksTheTemplateAndUnusedTokensNeverError) {
  auto llama = Load("tests/contract/adapters/data/model_view.tsx", "ByBinding", kLlama);
  ASSERT_NE(llama, nullptr);
  auto b = llama->Render({{"numbers", Numbers(3)}, {"question", "q"}});
  ASSERT_TRUE(b.ok()) << b.error().ToString();
  EXPECT_EQ(b->tokens.front(), *llama->tokenizer().TokenIdOf("<|begin_of_text|>"));
  auto qwen = Load("tests/contract/adapters/data/model_view.tsx", "ByBinding", kQwen);
  ASSERT_NE(qwen, nullptr);
  auto q = qwen->Render({{"numbers", Numbers(3)}, {"question", "q"}});
  ASSERT_TRUE(q.ok()) << q.error().ToString();
  EXPECT_EQ(q->tokens.front(), *qwen->tokenizer().TokenIdOf("<|im_start|>"));
  // The Qwen template rendered with the Llama encoder: its tokens error when used.
  auto wrong = Load("tests/contract/adapters/data/model_view.tsx", "AlwaysQwen", kLlama);
  ASSERT_NE(wrong, nullptr);
  auto e = wrong->Render({{"numbers", Numbers(3)}, {"question", "q"}});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code, "render.unknown_token");
  EXPECT_NE(e.error().message.find("<|im_start|>"), std::string::npos);
}

TEST(WrapperContract, ProjectionCacheIsUsedOnlyWhenTheOuterCacheIsOnAndCountsApart) {
  auto r = Load("views/demo/notebook_chat.tsx", "NotebookChat");
  ASSERT_NE(r, nullptr);
  const nlohmann::json state = {{"numbers", Numbers(200)}, {"question", "q"}};
  auto scroll = [](int offset) {
    return nlohmann::json{{"name", "scroll__numbers"}, {"arguments", {{"offset", offset}}}};
  };
  auto cold = r->Render(state);
  ASSERT_TRUE(cold.ok());
  EXPECT_EQ(r->projection_cache_stats().hits + r->projection_cache_stats().misses, 0u);
  // Scrolling changes the app, so the wrapper lays it out again (act uses the projection cache).
  RunCache outer(r->tokenizer());
  auto first = r->Act(scroll(5), &outer);
  auto warm = r->Act(scroll(6), &outer);
  ASSERT_TRUE(first.ok() && warm.ok());
  auto fresh = Load("views/demo/notebook_chat.tsx", "NotebookChat");
  ASSERT_NE(fresh, nullptr);
  ASSERT_TRUE(fresh->Render(state).ok());
  auto reference = fresh->Act(scroll(6));
  ASSERT_TRUE(reference.ok());
  EXPECT_EQ(warm->tokens, reference->tokens);
  const auto& p = r->projection_cache_stats();
  EXPECT_GT(p.misses, 0u);
  EXPECT_GE(p.hits, p.misses);  // the second render hit every run the first one missed
  EXPECT_GT(p.bytes, 0u);
  // The outer cache saw only the wrapper's own runs, counted separately.
  EXPECT_GT(outer.stats().hits, 0u);
  EXPECT_NE(outer.stats().misses, p.misses);
}

}  // namespace
}  // namespace affordance::render

namespace affordance::render {
namespace {

TEST(WrapperContract, LayoutErrorsInsideAsChatToolsKeepTheirCode) {
  auto r = Load("tests/contract/adapters/data/golden_view.tsx", "GoldenQwen");
  ASSERT_NE(r, nullptr);
  nlohmann::json body = {{{"type", "button"},
                          {"props", {{"label", "x"}, {"args_schema", "not an object"}}},
                          {"handlers", {"onClick"}}}};
  auto b = r->Render({{"c", {{"question", "q"}, {"body", body}}}});
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().code, "render.invalid_args_schema");
  // The view stays usable.
  body[0]["props"].erase("args_schema");
  EXPECT_TRUE(r->Render({{"c", {{"question", "q"}, {"body", body}}}}).ok());
}

}  // namespace
}  // namespace affordance::render

namespace affordance::render {
namespace {

// The Llama template's `trim` is Python's str.strip(): Unicode whitespace too (U+2003, U+3000,
// U+0085), on the question as on every message; the app's own text keeps its whitespace.
TEST(WrapperContract, Llama31TrimsTextOutsideTheAppLikeTheTemplate) {
  auto padded = Load("views/demo/notebook_llama31.tsx", "NotebookLlama31", kLlama);
  auto plain = Load("views/demo/notebook_llama31.tsx", "NotebookLlama31", kLlama);
  ASSERT_TRUE(padded && plain);
  auto a = padded->Render(
      {{"numbers", Numbers(5)}, {"question", "\u2003 Sum the numbers.\u3000\n\u0085"}});
  auto b = plain->Render({{"numbers", Numbers(5)}, {"question", "Sum the numbers."}});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->tokens, b->tokens);
  // A character Python does not count as whitespace stays (JavaScript's trim would drop U+FEFF).
  auto bom = padded->Render({{"numbers", Numbers(5)}, {"question", "\uFEFFSum the numbers."}});
  ASSERT_TRUE(bom.ok());
  EXPECT_NE(bom->tokens, b->tokens);
}

TEST(WrapperContract, Qwen3KeepsTheWhitespaceOfTheQuestionAsItsTemplateDoes) {
  auto padded = Load("views/demo/notebook_chat.tsx", "NotebookChat");
  auto plain = Load("views/demo/notebook_chat.tsx", "NotebookChat");
  ASSERT_TRUE(padded && plain);
  auto a = padded->Render({{"numbers", Numbers(5)}, {"question", " Sum the numbers.\n"}});
  auto b = plain->Render({{"numbers", Numbers(5)}, {"question", "Sum the numbers."}});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->tokens, b->tokens);
}

}  // namespace
}  // namespace affordance::render
