// Batch (one transaction, nested batches, re-entrant calls) and writers on several threads.
#include "support.h"

#include <atomic>
#include <condition_variable>
#include <set>
#include <stdexcept>
#include <thread>

namespace affordance::store {
namespace {

using nlohmann::json;
using testing::StoreFixture;

class StoreBatch : public StoreFixture {};

TEST_F(StoreBatch, CommitsAllWrites) {
  auto t = NewThread();
  std::string id;
  STORE_ASSERT_OK(store_->Batch([&]() -> Status {
    auto m = store_->AddMessage(t.id, "assistant", "running", {});
    if (!m) return m.error();
    id = m->id;
    for (int i = 0; i < 10; ++i) {
      if (auto s = store_->PutPart(id, Part(i, "p" + std::to_string(i))); !s) return s;
    }
    // Reads inside the batch see its own writes.
    auto loaded = store_->LoadMessage(id);
    if (!loaded) return loaded.error();
    EXPECT_EQ(loaded->parts.size(), 10u);
    return store_->UpdateMessage(id, "complete", {{"n", 10}});
  }));
  Reopen();
  auto loaded = store_->LoadMessage(id);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->status, "complete");
  EXPECT_EQ(loaded->parts.size(), 10u);
}

TEST_F(StoreBatch, ErrorRollsBackAllWritesAndIsReturned) {
  auto t = NewThread();
  auto before = store_->GetThread(t.id);
  auto status = store_->Batch([&]() -> Status {
    auto m = store_->AddMessage(t.id, "assistant", "running", {});
    if (!m) return m.error();
    if (auto s = store_->PutPart(m->id, Part(0, "x")); !s) return s;
    if (auto s = store_->RenameThread(t.id, "renamed"); !s) return s;
    return store_->PutPart("m_missing", Part(0, "y"));  // fails: the whole batch goes
  });
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, "store.not_found");
  EXPECT_EQ(status.error().message, "no message \"m_missing\" in the store");
  auto after = store_->GetThread(t.id);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->title, "t");
  EXPECT_EQ(after->messages, 0);
  EXPECT_EQ(after->updated_ms, before->updated_ms);
  EXPECT_EQ(Raw("SELECT count(*) FROM parts"), "0");
  // The store is usable afterwards, and the next message still gets seq 0.
  EXPECT_EQ(NewMessage(t.id).seq, 0);
}

TEST_F(StoreBatch, CallerErrorRollsBack) {
  auto t = NewThread();
  auto status = store_->Batch([&]() -> Status {
    (void)store_->AddMessage(t.id, "user", "complete", {});
    return MakeError("harness.cancelled", "the user stopped the turn");
  });
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, "harness.cancelled");
  EXPECT_EQ(store_->GetThread(t.id)->messages, 0);
}

TEST_F(StoreBatch, ExceptionFromWritesIsAnErrorAndRollsBack) {
  auto t = NewThread();
  auto status = store_->Batch([&]() -> Status {
    (void)store_->AddMessage(t.id, "user", "complete", {});
    throw std::runtime_error("boom");
  });
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, "store.io");
  EXPECT_EQ(status.error().message, "the store's operation failed: boom");
  EXPECT_EQ(store_->GetThread(t.id)->messages, 0);
  EXPECT_EQ(NewMessage(t.id).seq, 0);
}

TEST_F(StoreBatch, NestedBatchJoinsTheOuterTransaction) {
  auto t = NewThread();
  // Inner succeeds, outer fails: nothing of either is kept.
  auto status = store_->Batch([&]() -> Status {
    auto inner = store_->Batch([&]() -> Status {
      return store_->AddMessage(t.id, "user", "complete", {}).ok()
                 ? Status()
                 : MakeError("test", "add failed");
    });
    if (!inner) return inner;
    return MakeError("test.outer", "outer fails after the inner batch succeeded");
  });
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, "test.outer");
  EXPECT_EQ(store_->GetThread(t.id)->messages, 0);

  // Inner fails and the outer carries on: only the inner writes are undone.
  std::string kept;
  STORE_ASSERT_OK(store_->Batch([&]() -> Status {
    auto m = store_->AddMessage(t.id, "user", "complete", {});
    if (!m) return m.error();
    kept = m->id;
    auto inner = store_->Batch([&]() -> Status {
      (void)store_->AddMessage(t.id, "assistant", "running", {});
      (void)store_->PutPart(kept, Part(0, "inner"));
      return MakeError("test.inner", "inner fails");
    });
    EXPECT_FALSE(inner.ok());
    return store_->PutPart(kept, Part(1, "outer"));
  }));
  auto loaded = store_->LoadThread(t.id);
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->size(), 1u);
  EXPECT_EQ((*loaded)[0].id, kept);
  ASSERT_EQ((*loaded)[0].parts.size(), 1u);
  EXPECT_EQ((*loaded)[0].parts[0].data["text"], "outer");
}

TEST_F(StoreBatch, OtherThreadsWaitUntilTheBatchCommits) {
  auto t = NewThread();
  auto m = NewMessage(t.id);
  std::mutex mu;
  std::condition_variable cv;
  bool started = false;
  size_t seen = 0;
  std::thread reader([&] {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return started; });
    lock.unlock();
    auto loaded = store_->LoadMessage(m.id);  // blocks until the batch is done
    ASSERT_TRUE(loaded.ok());
    seen = loaded->parts.size();
  });
  STORE_ASSERT_OK(store_->Batch([&]() -> Status {
    if (auto s = store_->PutPart(m.id, Part(0, "a")); !s) return s;
    {
      std::lock_guard lock(mu);
      started = true;
    }
    cv.notify_all();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return store_->PutPart(m.id, Part(1, "b"));
  }));
  reader.join();
  EXPECT_EQ(seen, 2u);  // never half a batch
}

TEST_F(StoreBatch, FourConcurrentWritersLoseNothing) {
  auto t = NewThread();
  constexpr int kWriters = 4;
  constexpr int kEach = 50;
  std::atomic<int> errors{0};
  std::vector<std::thread> writers;
  std::mutex ids_mu;
  std::vector<std::string> ids;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < kEach; ++i) {
        auto m = store_->AddMessage(t.id, "assistant", "running", {{"writer", w}, {"i", i}});
        if (!m) {
          ++errors;
          ADD_FAILURE() << m.error().ToString();
          continue;
        }
        {
          std::lock_guard lock(ids_mu);
          ids.push_back(m->id);
        }
        for (int p = 0; p < 3; ++p) {
          if (!store_->PutPart(m->id, Part(p, std::to_string(w) + "/" + std::to_string(i)))) {
            ++errors;
          }
        }
        auto batch = store_->Batch([&]() -> Status {
          StepRecord s;
          s.status = "finished";
          s.tokens = {w, i};
          if (auto r = store_->PutStep(m->id, s); !r) return r;
          return store_->UpdateMessage(m->id, "complete", {{"writer", w}, {"i", i}});
        });
        if (!batch) {
          ++errors;
          ADD_FAILURE() << batch.error().ToString();
        }
        if (i % 10 == 0 && !store_->ListThreads()) ++errors;
      }
    });
  }
  for (auto& th : writers) th.join();
  EXPECT_EQ(errors.load(), 0);
  auto loaded = store_->LoadThread(t.id);
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->size(), static_cast<size_t>(kWriters * kEach));
  std::set<std::string> loaded_ids;
  for (size_t i = 0; i < loaded->size(); ++i) {
    const MessageRecord& m = (*loaded)[i];
    EXPECT_EQ(m.seq, static_cast<int64_t>(i));  // 0..199, no gaps, no duplicates
    EXPECT_EQ(m.status, "complete");
    ASSERT_EQ(m.parts.size(), 3u);
    std::string expect =
        std::to_string(m.meta["writer"].get<int>()) + "/" + std::to_string(m.meta["i"].get<int>());
    for (const auto& p : m.parts) EXPECT_EQ(p.data["text"], expect);
    ASSERT_EQ(m.steps.size(), 1u);
    EXPECT_EQ(m.steps[0].tokens,
              (std::vector<int32_t>{m.meta["writer"].get<int>(), m.meta["i"].get<int>()}));
    loaded_ids.insert(m.id);
  }
  EXPECT_EQ(loaded_ids, std::set<std::string>(ids.begin(), ids.end()));
  EXPECT_EQ(store_->GetThread(t.id)->messages, kWriters * kEach);
}

TEST_F(StoreBatch, TwoStoresOnOneFileSerializeTheirWrites) {
  // Two connections (as two processes would have): BEGIN IMMEDIATE and the busy timeout make
  // their write transactions queue instead of failing.
  auto second = Open();
  ASSERT_TRUE(second);
  auto t = NewThread();
  std::atomic<int> errors{0};
  auto write = [&](Store* s) {
    for (int i = 0; i < 50; ++i) {
      if (!s->AddMessage(t.id, "user", "complete", {})) ++errors;
    }
  };
  std::thread a(write, store_.get());
  std::thread b(write, second.get());
  a.join();
  b.join();
  EXPECT_EQ(errors.load(), 0);
  auto loaded = store_->LoadThread(t.id);
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->size(), 100u);
  for (size_t i = 0; i < loaded->size(); ++i) EXPECT_EQ((*loaded)[i].seq, static_cast<int64_t>(i));
}

}  // namespace
}  // namespace affordance::store
