#include "server/turn_hub.h"

#include "store/store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
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

// ---- several nodes on one store (TurnLog): two hubs, each with its own log and store connection,
// on one real SQLite file. SQLite has no LISTEN/NOTIFY between connections: these also prove the
// polling fallback. (PostgreSQL runs the same paths in tests/integration/server/multinode.)

class TwoNodes : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/affordance-turnlog-XXXXXX";
    dir_ = mkdtemp(tmpl);
    for (auto* s : {&store_a_, &store_b_}) {
      auto opened = store::OpenSqlite(dir_ + "/shared.db");
      ASSERT_TRUE(opened.ok()) << opened.error().ToString();
      *s = std::move(*opened);
    }
  }
  void TearDown() override {
    hub_a_.reset();
    hub_b_.reset();
    log_a_.reset();
    log_b_.reset();
    std::filesystem::remove_all(dir_);
  }
  void StartNodes() {
    auto a = TurnLog::Create(*store_a_, {.node = "A", .lease_ms = 600, .poll_ms = 50});
    auto b = TurnLog::Create(*store_b_, {.node = "B", .lease_ms = 600, .poll_ms = 50});
    ASSERT_TRUE(a.ok() && b.ok());
    log_a_ = std::move(*a);
    log_b_ = std::move(*b);
    auto ha = TurnHub::Create(std::make_unique<GatedRunner>(go_a_), {.log = log_a_.get()});
    auto hb = TurnHub::Create(std::make_unique<GatedRunner>(go_b_), {.log = log_b_.get()});
    ASSERT_TRUE(ha.ok() && hb.ok());
    hub_a_ = std::move(*ha);
    hub_b_ = std::move(*hb);
  }

  std::string dir_;
  std::unique_ptr<store::Store> store_a_, store_b_;
  std::unique_ptr<TurnLog> log_a_, log_b_;
  std::atomic<bool> go_a_{false}, go_b_{false};
  std::unique_ptr<TurnHub> hub_a_, hub_b_;
};

TEST_F(TwoNodes, AStreamResumedOnAnotherNodeReplaysTheLogThenFollowsItToTheEnd) {
  StartNodes();
  auto turn = hub_a_->Submit("t1", "hi");
  ASSERT_TRUE(turn.ok());
  // One running turn per thread across nodes.
  auto again = hub_b_->Submit("t1", "again");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, "server.turn_active");
  EXPECT_TRUE(hub_b_->Running("t1"));

  auto on_a = std::make_shared<Collector>();
  (*turn)->Subscribe(on_a);
  while ((*turn)->events() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  auto mirror = hub_b_->Watch("t1");
  ASSERT_TRUE(mirror.ok()) << mirror.error().ToString();
  ASSERT_NE(*mirror, nullptr);
  auto on_b = std::make_shared<Collector>();
  (*mirror)->Subscribe(on_b);
  go_a_ = true;
  on_a->Wait();
  on_b->Wait();
  EXPECT_EQ(on_b->types, on_a->types);
  EXPECT_EQ(on_b->types.back(), "finish");
  // Ended in the store too: nothing runs, and a new turn may start on either node.
  auto row = store_b_->ReadLog((*turn)->id(), -1);
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->turn.status, "finished");
  EXPECT_EQ(row->chunks.size(), on_a->types.size());
  EXPECT_FALSE(hub_b_->Running("t1"));
  auto none = hub_b_->Watch("t1");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, nullptr);
}

TEST_F(TwoNodes, AStopPostedToOneNodeCancelsTheTurnRunningOnTheOther) {
  StartNodes();
  auto turn = hub_a_->Submit("t1", "hi");
  ASSERT_TRUE(turn.ok());
  auto on_a = std::make_shared<Collector>();
  (*turn)->Subscribe(on_a);
  while ((*turn)->events() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(hub_b_->Stop("t1").ok());
  on_a->Wait();  // within the lease thread's period (lease / 3), not the turn's length
  EXPECT_EQ(on_a->types.back(), "abort");
  auto row = store_a_->ReadLog((*turn)->id(), -1);
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->turn.status, "aborted");
  EXPECT_TRUE(row->turn.stop_requested);
  auto stop_none = hub_b_->Stop("t1");
  ASSERT_FALSE(stop_none.ok());
  EXPECT_EQ(stop_none.error().code, "server.no_active_turn");
}

TEST_F(TwoNodes, ATurnWhoseNodeDiedIsTakenOverAfterItsLeaseAndEndsInterrupted) {
  // A node that died mid-turn: its row, its message and two logged chunks, no renewals.
  auto thread = store_a_->CreateThread("t", "t1");
  ASSERT_TRUE(thread.ok());
  auto message = store_a_->AddMessage("t1", "assistant", "running", {}, "m_dead");
  ASSERT_TRUE(message.ok());
  store::PartRecord open;
  open.seq = 0;
  open.step = 0;
  open.kind = "text";
  open.state = "emitted";
  open.open = true;
  open.data = {{"text", "half"}};
  ASSERT_TRUE(store_a_->PutPart("m_dead", open).ok());
  ASSERT_TRUE(store_a_
                  ->BeginTurn({.id = "m_dead",
                               .thread_id = "t1",
                               .node = "dead",
                               .lease_until_ms = store::NowMs() + 300})
                  .ok());
  ASSERT_TRUE(store_a_
                  ->AppendChunks({{"m_dead", 0, R"({"type":"start","messageId":"m_dead"})"},
                                  {"m_dead", 1, R"({"type":"text-start","id":"x"})"}})
                  .ok());
  StartNodes();
  auto mirror = hub_b_->Watch("t1");  // a client resuming before the takeover
  ASSERT_TRUE(mirror.ok());
  ASSERT_NE(*mirror, nullptr);
  auto seen = std::make_shared<Collector>();
  (*mirror)->Subscribe(seen);
  seen->Wait();
  EXPECT_EQ(seen->types, (std::vector<std::string>{"start", "text-start", "data-turn", "abort"}));
  auto row = store_b_->ReadLog("m_dead", 1);
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->turn.status, "interrupted");
  ASSERT_EQ(row->chunks.size(), 2u);
  EXPECT_NE(row->chunks[0].chunk.find(R"("status":"interrupted")"), std::string::npos);
  auto after = store_b_->LoadMessage("m_dead");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->status, "interrupted");
  ASSERT_EQ(after->parts.size(), 1u);
  EXPECT_FALSE(after->parts[0].open);
  EXPECT_EQ(after->parts[0].data["text"], "half");  // nothing persisted is lost
  // The thread continues: a new turn starts.
  auto next = hub_a_->Submit("t1", "again");
  ASSERT_TRUE(next.ok()) << next.error().ToString();
  go_a_ = true;
}

}  // namespace
}  // namespace affordance::server
