// The turn methods of the Store contract on both backends: one running turn per thread, leases
// and takeovers (exactly once across two stores), stops, the stream log's compare-and-set, and
// the wake-ups readers follow.
#include "contract.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <set>
#include <thread>

namespace affordance::store {
namespace {

using nlohmann::json;
using testing::StoreContract;

class TurnsContract : public StoreContract {
 protected:
  static std::vector<LoggedChunk> Chunks(const std::string& turn, int64_t from, int n) {
    std::vector<LoggedChunk> out;
    for (int i = 0; i < n; ++i) {
      out.push_back({turn, from + i, json({{"type", "text-delta"}, {"i", from + i}}).dump()});
    }
    return out;
  }
};

TEST_P(TurnsContract, OneRunningTurnPerThread) {
  STORE_ASSERT_OK(store_->BeginTurn(Turn("m_1", "t_1", "node-a", 1000)));
  auto second = store_->BeginTurn(Turn("m_2", "t_1", "node-b", 1000));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, "store.conflict");
  EXPECT_EQ(second.error().message,
            "the thread already has a running turn (or the turn id is taken)");
  EXPECT_EQ(second.error().detail, "t_1");
  STORE_EXPECT_ERROR(store_->BeginTurn(Turn("m_1", "t_2", "node-a", 1000)), "store.conflict");
  STORE_ASSERT_OK(store_->BeginTurn(Turn("m_3", "t_2", "node-a", 1000)));
  STORE_EXPECT_ERROR(store_->BeginTurn(Turn("", "t_3", "node-a", 1000)), "store.bad_input");

  auto running = store_->GetRunningTurn("t_1");
  ASSERT_TRUE(running.ok());
  EXPECT_EQ(running->id, "m_1");
  EXPECT_EQ(running->node, "node-a");
  EXPECT_EQ(running->status, "running");
  EXPECT_EQ(running->lease_until_ms, 1000);
  EXPECT_FALSE(running->stop_requested);
  EXPECT_GT(running->started_ms, 0);
  EXPECT_EQ(running->chunks, 0);

  auto wrong = store_->EndTurn("m_1", "node-b", "finished");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().code, "store.conflict");
  EXPECT_EQ(wrong.error().message, "turn m_1 is not running on node node-b");
  STORE_EXPECT_ERROR(store_->EndTurn("m_1", "node-a", "done"), "store.bad_input");
  STORE_ASSERT_OK(store_->EndTurn("m_1", "node-a", "finished"));
  STORE_EXPECT_ERROR(store_->EndTurn("m_1", "node-a", "finished"), "store.conflict");
  auto none = store_->GetRunningTurn("t_1");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, "store.not_found");
  STORE_ASSERT_OK(store_->BeginTurn(Turn("m_4", "t_1", "node-b", 1000)));  // the thread is free
  auto log = store_->ReadLog("m_1", -1);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log->turn.status, "finished");
}

TEST_P(TurnsContract, RenewLeasesMovesOnlyTheNodesRunningTurns) {
  STORE_ASSERT_OK(store_->BeginTurn(Turn("m_1", "t_1", "node-a", 1000)));
  STORE_ASSERT_OK(store_->BeginTurn(Turn("m_2", "t_2", "node-a", 1000)));
  STORE_ASSERT_OK(store_->BeginTurn(Turn("m_3", "t_3", "node-b", 1000)));
  STORE_ASSERT_OK(store_->EndTurn("m_2", "node-a", "aborted"));
  auto renewed = store_->RenewLeases("node-a", 5000);
  ASSERT_TRUE(renewed.ok());
  ASSERT_EQ(renewed->size(), 1u);
  EXPECT_EQ((*renewed)[0].id, "m_1");
  EXPECT_EQ((*renewed)[0].lease_until_ms, 5000);
  EXPECT_EQ(store_->GetRunningTurn("t_3")->lease_until_ms, 1000);
  EXPECT_TRUE(store_->RenewLeases("node-z", 5000)->empty());
}

TEST_P(TurnsContract, TakeExpiredTurnsTakesOnlyExpiredOnesAndInterruptsTheirMessages) {
  auto t = NewThread();
  auto m = NewMessage(t.id, "assistant", "running", {}, "m_dead");
  STORE_ASSERT_OK(store_->PutPart(m.id, Part(0, "half a sent", /*open=*/true)));
  StepRecord step;
  STORE_ASSERT_OK(store_->PutStep(m.id, step));
  STORE_ASSERT_OK(store_->BeginTurn(Turn("m_dead", t.id, "node-a", 100)));
  STORE_ASSERT_OK(store_->BeginTurn(Turn("m_alive", "t_other", "node-a", 10000)));
  STORE_ASSERT_OK(store_->BeginTurn(Turn("m_unwritten", "t_third", "node-a", 100)));
  const uint64_t seen = store_->Changes("m_dead");

  auto taken = store_->TakeExpiredTurns("node-b", 500, 9000);
  ASSERT_TRUE(taken.ok()) << taken.error().ToString();
  std::set<std::string> ids;
  for (const auto& turn : *taken) {
    ids.insert(turn.id);
    EXPECT_EQ(turn.node, "node-b");
    EXPECT_EQ(turn.lease_until_ms, 9000);
    EXPECT_EQ(turn.status, "running");
  }
  EXPECT_EQ(ids, (std::set<std::string>{"m_dead", "m_unwritten"}));
  EXPECT_NE(store_->Changes("m_dead"), seen);

  auto msg = store_->LoadMessage("m_dead");
  ASSERT_TRUE(msg.ok());
  EXPECT_EQ(msg->status, "interrupted");
  EXPECT_FALSE(msg->parts[0].open);
  EXPECT_EQ(msg->parts[0].state, "interrupted");
  EXPECT_EQ(msg->parts[0].data["interrupted"], true);
  EXPECT_EQ(msg->steps[0].status, "interrupted");
  EXPECT_EQ(store_->GetRunningTurn("t_other")->node, "node-a");
  EXPECT_TRUE(store_->TakeExpiredTurns("node-c", 500, 9000)->empty());  // taken once
  STORE_EXPECT_ERROR(store_->EndTurn("m_dead", "node-a", "finished"), "store.conflict");
  STORE_ASSERT_OK(store_->EndTurn("m_dead", "node-b", "interrupted"));
}

// A turn whose harness stopped writing (a store failure mid-turn) ends with its message still
// running: EndTurn recovers it. A finished message keeps its open parts (a call waiting for the
// person's decision).
TEST_P(TurnsContract, EndTurnInterruptsAMessageLeftRunningAndLeavesAFinishedOneAlone) {
  auto t = NewThread();
  auto stuck = NewMessage(t.id, "assistant", "running", {}, "m_stuck");
  STORE_ASSERT_OK(store_->PutPart(stuck.id, Part(0, "streamed so far", /*open=*/true)));
  STORE_ASSERT_OK(store_->BeginTurn(Turn("m_stuck", t.id, "node-a", 10000)));
  STORE_ASSERT_OK(store_->EndTurn("m_stuck", "node-a", "failed"));
  auto msg = store_->LoadMessage("m_stuck");
  ASSERT_TRUE(msg.ok());
  EXPECT_EQ(msg->status, "interrupted");
  EXPECT_FALSE(msg->parts[0].open);
  EXPECT_EQ(msg->parts[0].data["text"], "streamed so far");

  auto waiting =
      NewMessage(t.id, "assistant", "complete", {{"status", "awaiting_approval"}}, "m_waiting");
  STORE_ASSERT_OK(store_->PutPart(waiting.id, Part(0, "a staged write", /*open=*/true)));
  STORE_ASSERT_OK(store_->BeginTurn(Turn("m_waiting", t.id, "node-a", 10000)));
  STORE_ASSERT_OK(store_->EndTurn("m_waiting", "node-a", "finished"));
  auto kept = store_->LoadMessage("m_waiting");
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->status, "complete");
  EXPECT_TRUE(kept->parts[0].open);
}

TEST_P(TurnsContract, TwoStoresRacingForExpiredTurnsTakeEachExactlyOnce) {
  auto other = OpenStore();
  ASSERT_NE(other, nullptr);
  std::set<std::string> all;
  for (int i = 0; i < 20; ++i) {
    const std::string id = "m_" + std::to_string(i);
    all.insert(id);
    STORE_ASSERT_OK(store_->BeginTurn(Turn(id, "t_" + std::to_string(i), "node-dead", 100)));
  }
  std::atomic<int> ready{0};
  auto take = [&](Store* s, const std::string& node) {
    ++ready;
    while (ready < 2) std::this_thread::yield();
    std::vector<TurnRecord> mine;
    for (int round = 0; round < 5; ++round) {
      auto taken = s->TakeExpiredTurns(node, 1000, 100000);
      EXPECT_TRUE(taken.ok()) << taken.error().ToString();
      if (taken.ok()) mine.insert(mine.end(), taken->begin(), taken->end());
    }
    return mine;
  };
  auto a = std::async(std::launch::async, take, store_.get(), "node-a");
  auto b = std::async(std::launch::async, take, other.get(), "node-b");
  auto taken_a = a.get();
  auto taken_b = b.get();
  std::set<std::string> union_ids;
  for (const auto& t : taken_a) EXPECT_TRUE(union_ids.insert(t.id).second) << t.id;
  for (const auto& t : taken_b) EXPECT_TRUE(union_ids.insert(t.id).second) << t.id << " twice";
  EXPECT_EQ(union_ids, all);
  for (const auto& t : taken_a) EXPECT_EQ(store_->ReadLog(t.id, -1)->turn.node, "node-a");
}

TEST_P(TurnsContract, RequestStopMarksTheRunningTurnAndWakesStops) {
  STORE_EXPECT_ERROR(store_->RequestStop("t_1"), "store.not_found");
  STORE_ASSERT_OK(store_->BeginTurn(Turn("m_1", "t_1", "node-a", 1000)));
  const uint64_t stops = store_->Changes("stops");
  const uint64_t turn = store_->Changes("m_1");
  auto stopped = store_->RequestStop("t_1");
  ASSERT_TRUE(stopped.ok());
  EXPECT_EQ(stopped->id, "m_1");
  EXPECT_TRUE(stopped->stop_requested);
  EXPECT_TRUE(store_->GetRunningTurn("t_1")->stop_requested);
  EXPECT_NE(store_->Changes("stops"), stops);
  EXPECT_NE(store_->Changes("m_1"), turn);
}

TEST_P(TurnsContract, AppendChunksIsACompareAndSetAllOrNone) {
  STORE_ASSERT_OK(store_->BeginTurn(Turn("m_1", "t_1", "node-a", 1000)));
  STORE_ASSERT_OK(store_->BeginTurn(Turn("m_2", "t_2", "node-a", 1000)));
  STORE_ASSERT_OK(store_->AppendChunks(Chunks("m_1", 0, 3)));
  STORE_ASSERT_OK(store_->AppendChunks({}));

  auto gap = store_->AppendChunks(Chunks("m_1", 4, 1));
  ASSERT_FALSE(gap.ok());
  EXPECT_EQ(gap.error().code, "store.conflict");
  EXPECT_EQ(gap.error().message, "chunk 4 of turn m_1 is not the next one (the log holds 3)");
  auto dup = store_->AppendChunks(Chunks("m_1", 2, 1));
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().code, "store.conflict");
  auto unknown = store_->AppendChunks(Chunks("m_nope", 0, 1));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, "store.not_found");

  // Two turns in one call; the last chunk is wrong, so nothing of the call is kept.
  auto mixed = Chunks("m_2", 0, 2);
  auto more = Chunks("m_1", 3, 2);
  mixed.insert(mixed.end(), more.begin(), more.end());
  mixed.push_back({"m_2", 5, "{}"});
  STORE_EXPECT_ERROR(store_->AppendChunks(mixed), "store.conflict");
  EXPECT_EQ(store_->ReadLog("m_1", -1)->turn.chunks, 3);
  EXPECT_EQ(store_->ReadLog("m_2", -1)->chunks.size(), 0u);
  mixed.pop_back();
  STORE_ASSERT_OK(store_->AppendChunks(mixed));
  EXPECT_EQ(store_->ReadLog("m_1", -1)->turn.chunks, 5);
  EXPECT_EQ(store_->ReadLog("m_2", -1)->turn.chunks, 2);
}

TEST_P(TurnsContract, ReadLogAfterAndLimit) {
  STORE_EXPECT_ERROR(store_->ReadLog("m_nope", -1), "store.not_found");
  STORE_ASSERT_OK(store_->BeginTurn(Turn("m_1", "t_1", "node-a", 1000)));
  auto chunks = Chunks("m_1", 0, 10);
  chunks[3].chunk = R"({"type":"text-delta","delta":"héllo \"✓\""})";
  STORE_ASSERT_OK(store_->AppendChunks(chunks));
  auto all = store_->ReadLog("m_1", -1);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->chunks.size(), 10u);
  EXPECT_EQ(all->turn.chunks, 10);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(all->chunks[i].seq, i);
    EXPECT_EQ(all->chunks[i].chunk, chunks[i].chunk);
    EXPECT_EQ(all->chunks[i].turn_id, "m_1");
  }
  auto page = store_->ReadLog("m_1", 3, 4);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->chunks.size(), 4u);
  EXPECT_EQ(page->chunks.front().seq, 4);
  EXPECT_EQ(page->chunks.back().seq, 7);
  EXPECT_TRUE(store_->ReadLog("m_1", 9)->chunks.empty());
}

TEST_P(TurnsContract, PruneLogsDeletesOnlyEndedTurnsLogs) {
  STORE_ASSERT_OK(store_->BeginTurn(Turn("m_old", "t_1", "node-a", 1000)));
  STORE_ASSERT_OK(store_->BeginTurn(Turn("m_running", "t_2", "node-a", 1000)));
  STORE_ASSERT_OK(store_->AppendChunks(Chunks("m_old", 0, 4)));
  STORE_ASSERT_OK(store_->AppendChunks(Chunks("m_running", 0, 3)));
  STORE_ASSERT_OK(store_->EndTurn("m_old", "node-a", "finished"));
  auto none = store_->PruneLogs(1);  // ended after 1 ms since the epoch
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, 0);
  auto pruned = store_->PruneLogs(NowMs() + 1000);
  ASSERT_TRUE(pruned.ok());
  EXPECT_EQ(*pruned, 4);
  EXPECT_TRUE(store_->ReadLog("m_old", -1)->chunks.empty());
  EXPECT_EQ(store_->ReadLog("m_old", -1)->turn.status, "finished");  // the row stays
  EXPECT_EQ(store_->ReadLog("m_running", -1)->chunks.size(), 3u);
}

TEST_P(TurnsContract, WaitChangesWakesOnThisStoresWrites) {
  STORE_ASSERT_OK(store_->BeginTurn(Turn("m_1", "t_1", "node-a", 1000)));
  const uint64_t seen = store_->Changes("m_1");
  auto started = std::chrono::steady_clock::now();
  auto waiter =
      std::async(std::launch::async, [&] { return store_->WaitChanges("m_1", seen, 10000); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  STORE_ASSERT_OK(store_->AppendChunks(Chunks("m_1", 0, 2)));
  EXPECT_NE(waiter.get(), seen);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));

  // Nothing changes: the wait ends at its timeout with the same counter.
  const uint64_t now = store_->Changes("m_1");
  started = std::chrono::steady_clock::now();
  EXPECT_EQ(store_->WaitChanges("m_1", now, 100), now);
  EXPECT_GE(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(90));

  const uint64_t before_end = store_->Changes("m_1");
  STORE_ASSERT_OK(store_->EndTurn("m_1", "node-a", "finished"));
  EXPECT_NE(store_->WaitChanges("m_1", before_end, 5000), before_end);
}

// Another Store object is another node: PostgreSQL delivers its writes by LISTEN/NOTIFY. SQLite
// sees only its own store's writes (store.h), so readers there rely on the timeout.
TEST_P(TurnsContract, WaitChangesWakesOnAnotherStoresWrites) {
  if (!postgres()) GTEST_SKIP() << "SQLite wakes only its own store's readers (store.h)";
  auto other = OpenStore();
  ASSERT_NE(other, nullptr);
  STORE_ASSERT_OK(other->BeginTurn(Turn("m_1", "t_1", "node-b", 1000)));
  for (const std::string topic : {"m_1", "stops"}) {
    const uint64_t seen = store_->Changes(topic);
    auto started = std::chrono::steady_clock::now();
    auto waiter =
        std::async(std::launch::async, [&] { return store_->WaitChanges(topic, seen, 10000); });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (topic == "stops") {
      STORE_ASSERT_OK(other->RequestStop("t_1"));
    } else {
      STORE_ASSERT_OK(other->AppendChunks(Chunks("m_1", 0, 1)));
    }
    EXPECT_NE(waiter.get(), seen) << topic;
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5)) << topic;
  }
  // A rolled-back write notifies nobody (after the notifications above have all arrived).
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const uint64_t seen = store_->Changes("m_1");
  (void)other->Batch([&]() -> Status {
    (void)other->AppendChunks(Chunks("m_1", 1, 1));
    return MakeError("test.rollback", "undo");
  });
  EXPECT_EQ(store_->WaitChanges("m_1", seen, 300), seen);
  EXPECT_EQ(store_->ReadLog("m_1", -1)->turn.chunks, 1);
}

INSTANTIATE_TEST_SUITE_P(Backends, TurnsContract, ::testing::Values("sqlite", "postgresql"),
                         testing::BackendName);

}  // namespace
}  // namespace affordance::store
