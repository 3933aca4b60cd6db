// PgStore: the Store of store.h on PostgreSQL, for several `serve` nodes on one database. Private
// to src/store; callers get it from OpenPostgres() (or Open() with a postgresql:// URI).
//
// Same contract as SqliteStore (sqlite_store.h), method for method: the same errors, the same
// JSON text in the same columns, the same recovery. What differs is what several writers on
// several hosts need:
//
// Concurrency: one connection per store behind a recursive mutex, as SqliteStore; Batch holds it
// while `writes` runs. Across nodes, every compare-and-set is a single conditional UPDATE (READ
// COMMITTED re-checks its WHERE against the row a concurrent writer committed), so exactly one of
// two racing nodes wins UpdateApproval, EndTurn, an artifact head or a takeover; unique indexes
// report the other races (23505 is "store.conflict"). A message's seq is computed after its
// thread's row is locked (Touch), so two nodes appending to one thread serialize.
//
// Transactions: a write scope is BEGIN (READ COMMITTED) ... COMMIT; a read scope is one REPEATABLE
// READ READ ONLY snapshot (the several SELECTs of LoadThread or ReadLog see one state); a scope
// inside another is a SAVEPOINT, so a failed inner scope undoes only itself. PostgreSQL refuses
// every statement of a transaction after an error until it is rolled back, so an outermost scope
// whose transaction failed underneath (an error `writes` ignored) is reported, not committed.
//
// A broken connection (the server restarted) fails the statement with "store.io" (kind
// unavailable); the next outermost scope reconnects once (PQreset) before it begins, so the store
// recovers by itself once the server is back.
//
// Wake-ups: the turn writes send pg_notify(kPgChannel, topic) inside their transaction (delivered
// to every node at commit) and bump this process's Wakeups after the commit; PgListener delivers
// the other nodes'.
#pragma once

#include "store/internal/pg_conn.h"
#include "store/internal/pg_listener.h"
#include "store/internal/sqlite_store.h"  // NotFound(), the errors both backends share
#include "store/internal/wakeups.h"
#include "store/store.h"

#include <exception>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace affordance::store::internal {

class PgStore final : public Store {
 public:
  explicit PgStore(std::unique_ptr<PgConn> conn);
  // Starts the LISTEN connection; "store.open" when it cannot.
  Status StartListening(const std::string& uri);

  Result<ThreadInfo> CreateThread(const std::string& title, const std::string& id = "") override;
  Result<std::vector<ThreadInfo>> ListThreads() override;
  Result<ThreadInfo> GetThread(const std::string& id) override;
  Status RenameThread(const std::string& id, const std::string& title) override;
  Status DeleteThread(const std::string& id) override;

  Result<MessageRecord> AddMessage(const std::string& thread_id, const std::string& role,
                                   const std::string& status, const nlohmann::json& meta,
                                   const std::string& id = "") override;
  Status UpdateMessage(const std::string& message_id, const std::string& status,
                       const nlohmann::json& meta) override;
  Status PutPart(const std::string& message_id, const PartRecord& part) override;
  Status PutStep(const std::string& message_id, const StepRecord& step) override;

  Result<std::vector<MessageRecord>> LoadThread(const std::string& thread_id) override;
  Result<MessageRecord> LoadMessage(const std::string& message_id) override;

  Result<int64_t> RecoverInterrupted(const AbandonedFn& abandoned) override;

  Status PutGrant(const GrantRecord& grant) override;
  Result<std::vector<GrantRecord>> ListGrants() override;
  Status AddApproval(const ApprovalRecord& approval) override;
  Result<ApprovalRecord> GetApproval(const std::string& id) override;
  Result<std::vector<ApprovalRecord>> ListApprovals(const std::string& status,
                                                    const std::string& thread_id) override;
  Status UpdateApproval(const ApprovalRecord& approval,
                        const std::string& expected_status) override;
  Status PutReceipt(const ReceiptRecord& receipt) override;
  Result<std::vector<ReceiptRecord>> ReceiptsOf(const std::string& approval_id) override;
  Result<int64_t> AppendActivity(const ActivityRecord& entry) override;
  Result<std::vector<ActivityRecord>> ListActivity(const ActivityFilter& filter) override;
  Status SaveArtifactVersion(const ArtifactRecord& artifact,
                             const ArtifactVersionRecord& version) override;
  Result<ArtifactRecord> GetArtifact(const std::string& id_or_slug) override;
  Result<std::vector<ArtifactRecord>> ListArtifacts() override;
  Result<std::vector<ArtifactVersionRecord>> ArtifactVersions(
      const std::string& artifact_id) override;
  Result<ArtifactVersionRecord> GetArtifactVersion(const std::string& artifact_id,
                                                   int64_t version) override;
  Status Batch(const std::function<Status()>& writes) override;

  Status BeginTurn(const TurnRecord& turn) override;
  Result<TurnRecord> GetRunningTurn(const std::string& thread_id) override;
  Result<std::vector<TurnRecord>> RenewLeases(const std::string& node, int64_t until_ms) override;
  Result<std::vector<TurnRecord>> TakeExpiredTurns(const std::string& node, int64_t now_ms,
                                                   int64_t until_ms) override;
  Result<TurnRecord> RequestStop(const std::string& thread_id) override;
  Status EndTurn(const std::string& turn_id, const std::string& node,
                 const std::string& status) override;
  Status AppendChunks(const std::vector<LoggedChunk>& chunks) override;
  Result<TurnLog> ReadLog(const std::string& turn_id, int64_t after, int64_t limit) override;
  Result<int64_t> PruneLogs(int64_t ended_before_ms) override;
  uint64_t Changes(const std::string& topic) override { return wakeups_.Changes(topic); }
  uint64_t WaitChanges(const std::string& topic, uint64_t seen, int timeout_ms) override {
    return wakeups_.Wait(topic, seen, timeout_ms);
  }
  std::string_view Backend() const override { return "postgresql"; }
  int SchemaVersion() override;

 private:
  // Runs `body` (returning Result<T> or Status) in a write scope or, with write=false, a read
  // snapshot (see the file comment); any error or exception from `body` rolls the scope back.
  template <class Body>
  auto Transact(bool write, Body&& body) -> decltype(body());

  Status Begin(bool write);
  // PQreset, and tells the listener the new backend; false when the server is still unreachable.
  bool Reconnect();
  Status Commit();
  void Rollback();
  // One statement on the connection (inside a scope).
  template <class... Args>
  Result<PgRows> Query(std::string_view sql, const std::string& what, const Args&... args) {
    return conn_->Query(sql, what, args...);
  }

  // Marks the thread written at `now` (updated_ms, and touch from the threads_touch sequence),
  // locking its row until the scope ends; "store.not_found" when there is no such thread.
  Status Touch(const std::string& thread_id, int64_t now);
  // Touch() for the thread of a message; "store.not_found" when there is no such message.
  Status TouchThreadOf(const std::string& message_id, int64_t now);

  Result<ThreadInfo> ReadThread(const std::string& id);
  // The parts and steps of `messages` (rows of one thread, or one message, in seq order).
  Status FillParts(std::vector<MessageRecord>& messages, std::string_view sql,
                   const std::string& key);
  Status FillSteps(std::vector<MessageRecord>& messages, std::string_view sql,
                   const std::string& key);

  // Marks `messages` (running ones) interrupted with their running steps, and closes their open
  // parts (RecoverInterrupted, and a turn taken over after its lease expired); adds each to
  // `touched`. Then touches the thread of every message in `touched`.
  Status InterruptMessages(const std::vector<std::string>& messages, int64_t now,
                           std::set<std::string>& touched);
  Status TouchThreadsOf(const std::set<std::string>& messages, int64_t now);

  // Sends `topic` to every node at commit, and bumps it here once the outermost scope commits.
  Status Notify(const std::string& topic);
  // Notify's statement, to send in a flight (PgConn::RunAll); once it ran, the caller adds
  // `topic` to notified_.
  static PgStatement NotifyStatement(const std::string& topic);

  std::recursive_mutex mu_;
  std::unique_ptr<PgConn> conn_;
  int depth_ = 0;                      // open scopes on this connection (guarded by mu_)
  std::vector<std::string> notified_;  // topics to bump after the commit (guarded by mu_)
  std::vector<std::string> ended_;     // turns ended: forgotten after the commit (guarded by mu_)
  Wakeups wakeups_;
  std::unique_ptr<PgListener> listener_;  // after wakeups_: stopped before wakeups_ goes
};

template <class Body>
auto PgStore::Transact(bool write, Body&& body) -> decltype(body()) {
  std::lock_guard lock(mu_);
  if (auto s = Begin(write); !s) return s.error();
  decltype(body()) result = MakeError("store.io", "the store's operation did not run");
  try {
    result = body();
  } catch (const std::exception& e) {
    result = MakeError("store.io", std::string("the store's operation failed: ") + e.what());
  } catch (...) {
    result = MakeError("store.io", "the store's operation failed with an unknown exception");
  }
  if (!result) {
    Rollback();
    return result;
  }
  if (auto s = Commit(); !s) return s.error();
  return result;
}

}  // namespace affordance::store::internal
