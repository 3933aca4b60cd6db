#include "server/turn_hub.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <thread>

namespace affordance::server {
namespace {

using harness::Event;
using harness::EventKind;

Event Ev(EventKind kind, std::string id = "", std::string text = "") {
  Event e = Event::Of(kind);
  e.id = std::move(id);
  e.text = std::move(text);
  return e;
}

// A runner with a thread per turn: n deltas (waiting for a go signal after the first), then
// finish; honours cancel. The hub announced `start` already.
class GatedRunner : public TurnRunner {
 public:
  explicit GatedRunner(std::atomic<bool>& go) : go_(go) {}
  ~GatedRunner() override {
    for (auto& t : threads_) t.join();
  }
  void Start(const ActiveTurn& turn, harness::EventSink sink, Done done) override {
    model::CancelToken cancel = turn.cancel_token();
    threads_.emplace_back([this, sink, done, cancel] {
      for (int i = 0; i < 5; ++i) {
        sink(Ev(EventKind::kTextDelta, "t", std::to_string(i)));
        while (i == 0 && !go_ && !cancel.cancelled())
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
        if (cancel.cancelled()) {
          sink(Ev(EventKind::kAbort, "", "cancelled"));
          return done(harness::TurnReport{});
        }
      }
      sink(Ev(EventKind::kFinish));
      done(harness::TurnReport{});
    });
  }
  int runtimes() const override { return 1; }

 private:
  std::atomic<bool>& go_;
  std::vector<std::thread> threads_;
};

struct Collector : TurnSubscriber {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> types;
  bool ended = false;
  void OnEvent(const Event& e) override {
    std::lock_guard l(mu);
    types.push_back(std::string(harness::ChunkType(e.kind)) +
                    (e.kind == EventKind::kTextDelta ? e.text : ""));
  }
  void OnEnd() override {
    std::lock_guard l(mu);
    ended = true;
    cv.notify_all();
  }
  void Wait() {
    std::unique_lock l(mu);
    ASSERT_TRUE(cv.wait_for(l, std::chrono::seconds(10), [&] { return ended; }));
  }
};

TEST(ServerTurnHub, LateSubscribersGetTheWholeTurnInOrderAndDroppedOnesDoNotStopIt) {
  std::atomic<bool> go{false};
  auto hub = TurnHub::Create(std::make_unique<GatedRunner>(go));
  ASSERT_TRUE(hub.ok());
  auto turn = (*hub)->Submit("t1", "hi");
  ASSERT_TRUE(turn.ok());
  auto again = (*hub)->Submit("t1", "again");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, "server.turn_active");

  auto early = std::make_shared<Collector>();
  (*turn)->Subscribe(early);
  while ((*turn)->events() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  // Announced at once, with the id the turn's assistant message will have.
  EXPECT_EQ((*turn)->message_id().rfind("m_", 0), 0u);
  (*turn)->Unsubscribe(early.get());  // a dropped connection
  auto late = std::make_shared<Collector>();
  (*turn)->Subscribe(late);  // a reload: buffered chunks first, then live
  go = true;
  late->Wait();
  EXPECT_EQ(late->types,
            (std::vector<std::string>{"start", "text-delta0", "text-delta1", "text-delta2",
                                      "text-delta3", "text-delta4", "finish"}));
  EXPECT_FALSE(early->ended);
  EXPECT_EQ((*hub)->Active("t1"), nullptr);
  auto after = std::make_shared<Collector>();
  (*turn)->Subscribe(after);  // a finished turn replays and ends at once
  EXPECT_TRUE(after->ended);
  EXPECT_EQ((*hub)->stats().finished, 1);
}

TEST(ServerTurnHub, CancelStopsARunningTurnAndTurnsInFlightAreBounded) {
  std::atomic<bool> go{false};
  auto hub = TurnHub::Create(std::make_unique<GatedRunner>(go), {.max_active = 2});
  ASSERT_TRUE(hub.ok());
  auto a = (*hub)->Submit("a", "x");
  ASSERT_TRUE(a.ok());
  while ((*a)->events() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  auto b = (*hub)->Submit("b", "x");  // in flight beside a: no worker bounds it
  ASSERT_TRUE(b.ok());
  while ((*b)->events() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  auto c = (*hub)->Submit("c", "x");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, "server.busy");
  auto seen = std::make_shared<Collector>();
  (*a)->Subscribe(seen);
  (*a)->Cancel();
  seen->Wait();
  EXPECT_EQ(seen->types.back(), "abort");
  (*b)->Cancel();
  auto seen_b = std::make_shared<Collector>();
  (*b)->Subscribe(seen_b);
  seen_b->Wait();
  EXPECT_EQ(seen_b->types.back(), "abort");
}

TEST(ServerTurnHub, ARunnerErrorReachesTheClientAsAnErrorChunk) {
  struct Failing : TurnRunner {
    void Start(const ActiveTurn&, harness::EventSink, Done done) override {
      done(MakeError("store.not_found", "no thread", "t_x"));
    }
    int runtimes() const override { return 1; }
  };
  auto hub = TurnHub::Create(std::make_unique<Failing>());
  ASSERT_TRUE(hub.ok());
  auto t = (*hub)->Submit("t_x", "x");
  ASSERT_TRUE(t.ok());
  auto seen = std::make_shared<Collector>();
  (*t)->Subscribe(seen);
  seen->Wait();
  ASSERT_EQ(seen->types.size(), 2u);
  EXPECT_EQ(seen->types[0], "start");
  EXPECT_EQ(seen->types[1], "error");
  EXPECT_EQ((*hub)->stats().failed, 1);
}

}  // namespace
}  // namespace affordance::server
