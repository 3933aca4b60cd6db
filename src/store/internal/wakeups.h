// Wakeups: the per-topic change counters behind Store::Changes / WaitChanges, shared by both
// backends. A writer (or PostgreSQL's LISTEN thread) calls Bump(topic); a reader remembers the
// counter it saw and waits for it to move. Topics of ended turns are dropped by Forget() once no
// reader waits on them, and idle topics past kMaxTopics on the next Bump.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace affordance::store::internal {

class Wakeups {
 public:
  void Bump(const std::string& topic) {
    {
      std::lock_guard lock(mu_);
      // Bounded: past kMaxTopics, the topics nobody waits on are dropped. A reader that comes back
      // to one sees its counter moved (0), re-reads and waits again: a spurious wake-up, never a
      // missed one.
      if (counters_.size() >= kMaxTopics) {
        std::erase_if(counters_, [](const auto& kv) { return kv.second.waiters == 0; });
      }
      ++counters_[topic].value;
    }
    changed_.notify_all();
  }
  uint64_t Changes(const std::string& topic) {
    std::lock_guard lock(mu_);
    auto it = counters_.find(topic);
    return it == counters_.end() ? 0 : it->second.value;
  }
  uint64_t Wait(const std::string& topic, uint64_t seen, int timeout_ms) {
    std::unique_lock lock(mu_);
    Counter& c = counters_[topic];
    ++c.waiters;
    changed_.wait_for(lock, std::chrono::milliseconds(timeout_ms > 0 ? timeout_ms : 0),
                      [&] { return c.value != seen; });
    const uint64_t now = c.value;
    // A topic nobody bumped (a reader of an ended turn) or one forgotten: nothing to keep.
    if (--c.waiters == 0 && (c.forget || c.value == 0)) counters_.erase(topic);
    return now;
  }
  // The topic will not change again (its turn ended): drop it once nobody waits on it. A reader
  // arriving later sees 0 and re-reads, which is what it does after any wake-up.
  void Forget(const std::string& topic) {
    std::lock_guard lock(mu_);
    auto it = counters_.find(topic);
    if (it == counters_.end()) return;
    if (it->second.waiters == 0) {
      counters_.erase(it);
    } else {
      it->second.forget = true;
    }
  }

 private:
  static constexpr size_t kMaxTopics = 4096;
  struct Counter {
    uint64_t value = 0;
    int waiters = 0;
    bool forget = false;
  };
  std::mutex mu_;
  std::condition_variable changed_;
  std::map<std::string, Counter> counters_;  // node-based: references stay valid across inserts
};

}  // namespace affordance::store::internal
