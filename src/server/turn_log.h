// TurnLog: a node's side of turns shared through the store (store.h "turns and their stream
// log"), so several `affordance serve` nodes on one database act as one server (docs/SCALE.md).
//
// - Durable streams. Every event of a turn this node runs is appended to the turn's log, as its
//   UI chunk (protocol.h UiChunk), before any client sees it: Publish() queues the event, one
//   writer thread appends whatever is queued, of every turn, in one transaction (group commit),
//   then delivers those events to the turn's local subscribers. A client that reconnects to any
//   node replays the log and follows it live (Follow()), woken by the store's change topics
//   (LISTEN/NOTIFY on PostgreSQL) with polling as the fallback.
// - Ownership. Begin() writes the turn's row (one running turn per thread across all nodes: a
//   second is "server.turn_active") with a lease that the lease thread renews every lease/3. A
//   node that stops renewing (killed, partitioned) loses its turns once the lease has expired:
//   another node's lease thread takes each over (a compare-and-set in the store), which marks
//   its message interrupted, appends `data-turn` (status "interrupted") and `abort` to its log
//   and ends it. A node that finds a turn of its own taken over cancels it and stops logging it.
// - Stops. RequestStop() marks the thread's running turn wherever it runs; the node running it
//   hears the "stops" topic and cancels the turn.
// - Retention. Logs of turns that ended more than `retention_ms` ago are deleted (the messages
//   themselves are the permanent record; the log only serves resuming streams).
//
// When the store fails (a database restart), appends are retried for `outage_ms`, with the
// turn's clients waiting; after that the turn's events go to its local clients unlogged (stderr
// says so once) rather than being held back forever.
//
// Thread safety: every method may be called from any thread.
#pragma once

#include "base/result.h"
#include "harness/event.h"
#include "store/store.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace affordance::server {

class ActiveTurn;

struct TurnLogOptions {
  std::string node;               // this node's name (required)
  int64_t lease_ms = 10000;       // a running turn's lease; renewed every lease_ms / 3
  int64_t retention_ms = 600000;  // logs of turns ended longer ago are pruned
  int64_t outage_ms = 15000;      // how long appends are retried while the store fails
  int poll_ms = 500;              // the followers' polling fallback
  int max_followers = 256;        // streams followed from other nodes at once
};

struct TurnLogStats {
  int64_t appended = 0, batches = 0, unlogged = 0, taken_over = 0, followers = 0;
};

class TurnLog {
 public:
  // Takes over at once the running turns of an earlier process with this node's name (a
  // restarted node). `leases`: a connection of its own for the lease thread (renewals,
  // takeovers, stops), so a node whose store connection is queued with turns' writes still renews
  // in time (nullptr: `store`). Errors: "server.bad_option" (no node name).
  static Result<std::unique_ptr<TurnLog>> Create(store::Store& store, TurnLogOptions options,
                                                 store::Store* leases = nullptr);
  ~TurnLog();  // delivers what is queued, then stops the threads (followers end their streams)

  const std::string& node() const { return options_.node; }
  int64_t lease_ms() const { return options_.lease_ms; }
  std::string_view backend() const { return store_.Backend(); }
  TurnLogStats stats() const;

  // Writes `turn`'s row. Errors: "server.turn_active" (the thread has a running turn on some
  // node), the store's.
  Status Begin(const std::shared_ptr<ActiveTurn>& turn);
  // Queues an event of a turn that Begin() accepted (delivered once appended).
  void Publish(const std::shared_ptr<ActiveTurn>& turn, harness::Event event);
  // Queues the end of the turn: once its events are delivered its row ends (finished, aborted or
  // failed by its last events) and its subscribers hear OnEnd.
  void End(const std::shared_ptr<ActiveTurn>& turn);

  // The thread's running turn on any node; "store.not_found" when none.
  Result<store::TurnRecord> Running(const std::string& thread_id);
  // A turn running elsewhere, as a local ActiveTurn fed from its log: its chunks so far, then the
  // live ones, then the end. Errors: "server.busy" (max_followers streams are followed).
  Result<std::shared_ptr<ActiveTurn>> Follow(const store::TurnRecord& turn);
  // Asks the node running the thread's turn to stop it. Errors: "store.not_found" (none).
  Status RequestStop(const std::string& thread_id);

 private:
  struct Item {
    std::shared_ptr<ActiveTurn> turn;
    std::optional<harness::Event> event;  // nullopt: the end of the turn
  };
  struct Local {
    std::weak_ptr<ActiveTurn> turn;
    int64_t next_seq = 0;  // writer thread only
    bool logged = true;    // false once the log cannot take its chunks (lost or outage)
    std::string status = "finished";
  };

  TurnLog(store::Store& store, store::Store& leases, TurnLogOptions options)
      : store_(store), leases_(leases), options_(std::move(options)) {}
  void WriterLoop();
  void LeaseLoop();
  void Follower(std::shared_ptr<ActiveTurn> mirror, store::TurnRecord turn);
  // Appends `chunks` (retrying through an outage); a turn whose chunks cannot be logged streams
  // unlogged from then on.
  void Append(std::vector<store::LoggedChunk>& chunks);
  void Sweep();
  void TakeOver(const store::TurnRecord& turn);
  // Whether the turn's log ends with its end already (finish or abort).
  bool LogEnded(const store::TurnRecord& turn);

  store::Store& store_;   // the log: appends, ends, reads
  store::Store& leases_;  // the lease thread's
  const TurnLogOptions options_;

  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Item> queue_;
  std::map<std::string, Local> local_;  // turns this node runs, by id
  std::map<std::string, bool> taken_;   // taken over, not ended yet: its last chunks logged?
  TurnLogStats stats_;
  std::atomic<bool> stopping_ = false;
  int followers_ = 0;
  std::condition_variable followers_done_;
  std::thread writer_, lease_;
};

}  // namespace affordance::server
