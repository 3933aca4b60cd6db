// harness::TurnService: turns in flight are not bounded by the runtimes. One runtime serves many
// turns at once, each persisted in its own thread with its own text; a cancelled turn ends
// `cancelled` while the others are unaffected. Replay provider (the stand-in for a model, paced),
// real tokenizers and SQLite; no model.
#include "harness/turn_service.h"

#include "support.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <future>
#include <map>
#include <mutex>

namespace affordance::harness {
namespace {

using testing::kQwen;
using testing::Source;
using testing::TempDir;
using testing::Tokenizer;

constexpr char kAnswer[] = "One two three four five six seven eight nine ten.";

class TurnServiceTest : public ::testing::Test {
 protected:
  std::unique_ptr<SessionFactory> Make() {
    auto store = store::OpenSqlite(dir / "affordance.db");
    EXPECT_TRUE(store.ok());
    SessionRecipe recipe;
    recipe.frame.views_root = Source("views");
    recipe.frame.model = kQwen;
    recipe.frame.tokenizer = Tokenizer(kQwen);
    recipe.frame.work_dir = dir / "frames";
    recipe.options.clock = [] { return testing::kNow; };
    auto script = model::ParseReplayScript(std::string(R"({"format": "qwen3", "token_delay_ms": 15,
                                                           "steps": [")") +
                                           kAnswer + "\"]}");
    EXPECT_TRUE(script.ok());
    recipe.provider = [script =
                           *script](size_t played) -> Result<std::unique_ptr<model::Provider>> {
      auto p = model::ReplayProvider::Create(Tokenizer(kQwen), script);
      if (!p) return p.error();
      (*p)->SkipTo(played);
      return std::unique_ptr<model::Provider>(std::move(*p));
    };
    recipe.provider_per_turn = true;
    return std::make_unique<SessionFactory>(std::move(*store), std::move(recipe));
  }

  TempDir dir;
};

struct Watch {
  std::mutex mu;
  std::condition_variable cv;
  int streaming = 0, most_streaming = 0, ended = 0;
  std::map<std::string, std::string> text;            // thread -> its deltas
  std::map<std::string, Result<TurnReport>> reports;  // thread -> how it ended
};

TEST_F(TurnServiceTest, OneRuntimeServesManyTurnsAtOnceEachInItsOwnThread) {
  auto factory = Make();
  auto service = TurnService::Create(*factory, {.runtimes = 1});
  ASSERT_TRUE(service.ok()) << service.error().ToString();
  constexpr int kTurns = 12;
  Watch w;
  std::vector<std::string> threads;
  model::CancelToken cancel_one;
  for (int i = 0; i < kTurns; ++i) {
    auto t = factory->store().CreateThread("");
    ASSERT_TRUE(t.ok());
    threads.push_back(t->id);
  }
  for (int i = 0; i < kTurns; ++i) {
    const std::string id = threads[i];
    auto sink = [&w, id](const Event& e) {
      std::lock_guard l(w.mu);
      if (e.kind == EventKind::kTextStart)
        w.most_streaming = std::max(w.most_streaming, ++w.streaming);
      if (e.kind == EventKind::kTextEnd) --w.streaming;
      if (e.kind == EventKind::kTextDelta) w.text[id] += e.text;
    };
    auto done = [&w, id](Result<TurnReport> r) {
      std::lock_guard l(w.mu);
      w.reports.emplace(id, std::move(r));
      ++w.ended;
      w.cv.notify_all();
    };
    (*service)->Start({id, "Count to ten."}, sink, i == 0 ? cancel_one : model::CancelToken(),
                      done);
  }
  {
    // Cancel the first turn once it streams.
    std::unique_lock l(w.mu);
    ASSERT_TRUE(w.cv.wait_for(l, std::chrono::seconds(20), [&] {
      return !w.text[threads[0]].empty();
    }) || !w.text[threads[0]].empty());
  }
  cancel_one.Cancel();
  {
    std::unique_lock l(w.mu);
    ASSERT_TRUE(w.cv.wait_for(l, std::chrono::seconds(60), [&] { return w.ended == kTurns; }));
  }
  EXPECT_EQ((*service)->open(), 0u);
  // Every turn streamed while the others did: the one runtime is not what bounds them.
  EXPECT_GE(w.most_streaming, kTurns / 2);
  for (int i = 0; i < kTurns; ++i) {
    const auto& r = w.reports.at(threads[i]);
    ASSERT_TRUE(r.ok()) << r.error().ToString();
    auto messages = factory->store().LoadThread(threads[i]);
    ASSERT_TRUE(messages.ok());
    ASSERT_EQ(messages->size(), 2u);  // user, assistant: each turn in its own thread
    EXPECT_EQ(messages->back().id, r->message_id);
    if (i == 0) {
      EXPECT_EQ(r->status, TurnStatus::kCancelled);
      continue;
    }
    EXPECT_EQ(r->status, TurnStatus::kAnswered) << threads[i];
    EXPECT_EQ(r->text, kAnswer);
    EXPECT_EQ(w.text[threads[i]], kAnswer);  // no chunk lost, duplicated or from another turn
    EXPECT_EQ(messages->back().meta.value("status", ""), "answered");
  }
}

TEST_F(TurnServiceTest, AnAnnouncedMessageIdIsTheAssistantMessagesAndBadTurnsSayWhy) {
  auto factory = Make();
  auto service = TurnService::Create(*factory, {.runtimes = 2});
  ASSERT_TRUE(service.ok());
  auto t = factory->store().CreateThread("");
  ASSERT_TRUE(t.ok());
  std::promise<Result<TurnReport>> a, b, c;
  std::vector<EventKind> kinds;
  const std::string announced = store::NewId("m_");
  (*service)->Start(
      {t->id, "Count.", announced}, [&](const Event& e) { kinds.push_back(e.kind); }, {},
      [&](Result<TurnReport> r) { a.set_value(std::move(r)); });
  auto ra = a.get_future().get();
  ASSERT_TRUE(ra.ok()) << ra.error().ToString();
  EXPECT_EQ(ra->message_id, announced);
  ASSERT_FALSE(kinds.empty());
  EXPECT_NE(kinds.front(), EventKind::kStart);  // the door announced it already
  (*service)->Start({"t_missing", "hello"}, nullptr, {},
                    [&](Result<TurnReport> r) { b.set_value(std::move(r)); });
  auto rb = b.get_future().get();
  ASSERT_FALSE(rb.ok());
  EXPECT_EQ(rb.error().code, "store.not_found");
  (*service)->Start({t->id, " \n "}, nullptr, {},
                    [&](Result<TurnReport> r) { c.set_value(std::move(r)); });
  auto rc = c.get_future().get();
  ASSERT_FALSE(rc.ok());
  EXPECT_EQ(rc.error().code, "harness.empty_message");
}

TEST(TurnServiceOptions, NoRuntimeIsRefused) {
  TempDir dir;
  auto store = store::OpenSqlite(dir / "a.db");
  ASSERT_TRUE(store.ok());
  SessionFactory factory(std::move(*store), SessionRecipe{});
  auto service = TurnService::Create(factory, {.runtimes = 0});
  ASSERT_FALSE(service.ok());
  EXPECT_EQ(service.error().code, "harness.bad_option");
}

}  // namespace
}  // namespace affordance::harness
