// <TurnStrategy callable={false}> (views/lib/turn_strategy.tsx) through the real Qwen3 wrapper and
// tokenizer: the same tokens, names and schemas as the callable app, no handler references, and
// calls refused; callable true or left out changes nothing.
#include "render/renderer.h"

#include <gtest/gtest.h>

namespace affordance::render {
namespace {

const std::string kRoot = AFFORDANCE_SOURCE_DIR;

std::unique_ptr<Renderer> Load(const std::string& entry) {
  view::ViewOptions o;
  o.lib_root = kRoot + "/views/lib";
  o.cache_dir = "-";
  auto r = Renderer::Load(kRoot + "/tests/contract/adapters/data/turn_strategy_view.tsx", entry,
                          "Qwen__Qwen3-4B-Instruct-2507", o);
  EXPECT_TRUE(r.ok()) << r.error().code << ": " << r.error().ToString();
  return r.ok() ? std::move(r).value() : nullptr;
}

nlohmann::ordered_json Props(nlohmann::ordered_json callable = nullptr) {
  nlohmann::ordered_json p = {{"numbers", {3, 14, 15, 92, 65}}, {"question", "Sum them."}};
  if (!callable.is_null()) p["callable"] = callable;
  return p;
}

TEST(TurnStrategy, CallableFalseKeepsTokensAndSchemasButDropsHandlers) {
  auto callable = Load("Callable");
  auto preview = Load("Strategy");
  ASSERT_TRUE(callable && preview);
  auto a = callable->Render(Props());
  auto b = preview->Render(Props(false));
  ASSERT_TRUE(a.ok()) << a.error().ToString();
  ASSERT_TRUE(b.ok()) << b.error().ToString();
  EXPECT_EQ(b->tokens, a->tokens);
  EXPECT_EQ(b->ToolsJson(), a->ToolsJson());
  ASSERT_EQ(b->tools.size(), 2u);
  for (const auto& t : b->tools) {
    EXPECT_EQ(t.handler, 0u) << t.name;
    EXPECT_FALSE(t.callable) << t.name;
  }
  for (const auto& s : b->spans) {
    if (s.kind == Span::Kind::kAction) {
      EXPECT_EQ(s.handler, 0u) << s.name;
    }
  }
  // The model cannot call them; the view is unchanged afterwards.
  auto call = preview->Act({{"name", "change__notes"}, {"arguments", {{"value", "x"}}}});
  ASSERT_FALSE(call.ok());
  EXPECT_EQ(call.error().code, "render.not_callable");
  auto again = preview->Render(Props(false));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->tokens, a->tokens);
}

TEST(TurnStrategy, CallableTrueOrLeftOutChangesNothing) {
  auto callable = Load("Callable");
  ASSERT_NE(callable, nullptr);
  auto a = callable->Render(Props());
  ASSERT_TRUE(a.ok());
  for (const auto& setting : {nlohmann::ordered_json(true), nlohmann::ordered_json()}) {
    auto strategy = Load("Strategy");
    ASSERT_NE(strategy, nullptr);
    auto b = strategy->Render(Props(setting));
    ASSERT_TRUE(b.ok()) << b.error().ToString();
    EXPECT_EQ(b->tokens, a->tokens);
    EXPECT_EQ(b->ToolsJson(), a->ToolsJson());
    auto acted = strategy->Act({{"name", "change__notes"}, {"arguments", {{"value", "32"}}}});
    ASSERT_TRUE(acted.ok()) << acted.error().ToString();
    auto text = strategy->tokenizer().Decode(acted->tokens);
    ASSERT_TRUE(text.ok());
    EXPECT_NE(text->find("notes: 32"), std::string::npos);
  }
}

TEST(TurnStrategy, ANonBooleanCallableIsARenderError) {
  auto strategy = Load("Strategy");
  ASSERT_NE(strategy, nullptr);
  auto b = strategy->Render(Props("no"));
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().code, "view.render");
  EXPECT_NE(b.error().message.find("TurnStrategy: callable must be true or false"),
            std::string::npos)
      << b.error().message;
}

}  // namespace
}  // namespace affordance::render
