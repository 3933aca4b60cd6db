// harness::SessionFactory: the sessions every door makes share one store; with a per-turn provider
// (the server's way with a replay script) each turn plays the script from its first step. Replay
// provider and real tokenizers; no model.
#include "harness/session.h"

#include "support.h"

#include <gtest/gtest.h>

namespace affordance::harness {
namespace {

using testing::kQwen;
using testing::Source;
using testing::TempDir;
using testing::Tokenizer;

class SessionFactoryTest : public ::testing::Test {
 protected:
  std::unique_ptr<SessionFactory> Make(bool per_turn, std::shared_ptr<int> providers) {
    auto store = store::OpenSqlite(dir / "affordance.db");
    EXPECT_TRUE(store.ok());
    SessionRecipe recipe;
    recipe.frame.views_root = Source("views");
    recipe.frame.model = kQwen;
    recipe.frame.tokenizer = Tokenizer(kQwen);
    recipe.frame.work_dir = dir / "frames";
    recipe.options.clock = [] { return testing::kNow; };
    auto script = model::ParseReplayScript(
        R"({"format": "qwen3", "steps": ["First answer.", "Second answer."]})");
    EXPECT_TRUE(script.ok());
    recipe.provider = [script = *script,
                       providers](size_t played) -> Result<std::unique_ptr<model::Provider>> {
      ++*providers;
      auto p = model::ReplayProvider::Create(Tokenizer(kQwen), script);
      if (!p) return p.error();
      (*p)->SkipTo(played);
      return std::unique_ptr<model::Provider>(std::move(*p));
    };
    recipe.provider_per_turn = per_turn;
    return std::make_unique<SessionFactory>(std::move(*store), std::move(recipe));
  }

  std::string Answer(Session& s) {
    auto thread = s.store().CreateThread("");
    EXPECT_TRUE(thread.ok());
    auto report = s.RunTurn(thread->id, "hello", nullptr, model::CancelToken());
    EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.error().ToString());
    return report.ok() ? report->text : "";
  }

  TempDir dir;
};

TEST_F(SessionFactoryTest, SessionsShareTheFactorysStoreAndProviderAndEachOwnsItsFrameAndHarness) {
  auto providers = std::make_shared<int>(0);
  auto factory = Make(false, providers);
  auto a = factory->NewSession();
  auto b = factory->NewSession();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(&(*a)->store(), &factory->store());
  EXPECT_EQ(&(*b)->store(), &factory->store());
  EXPECT_NE(&(*a)->frame(), &(*b)->frame());
  EXPECT_NE(&(*a)->harness(), &(*b)->harness());
  EXPECT_EQ(*providers, 1);  // one provider (one engine connection pool, one loaded model)
  // The one provider plays the script through, whichever session runs the turn.
  EXPECT_EQ(Answer(**a), "First answer.");
  EXPECT_EQ(Answer(**b), "Second answer.");
  // Both sessions wrote the one store.
  auto threads = factory->store().ListThreads();
  ASSERT_TRUE(threads.ok());
  EXPECT_EQ(threads->size(), 2u);
  for (const auto& t : *threads) EXPECT_EQ(t.title, "hello");  // titled by the harness
}

TEST_F(SessionFactoryTest, APerTurnProviderPlaysTheScriptFromItsFirstStepOnEveryTurn) {
  auto providers = std::make_shared<int>(0);
  auto factory = Make(true, providers);
  auto s = factory->NewSession();
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(Answer(**s), "First answer.");
  EXPECT_EQ(Answer(**s), "First answer.");
  EXPECT_EQ(*providers, 3);  // the session's own, then one per turn
}

}  // namespace
}  // namespace affordance::harness
