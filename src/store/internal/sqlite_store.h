// SqliteStore: the Store of store.h on one SQLite connection. Private to src/store; callers get it
// from OpenSqlite().
//
// Concurrency: one connection behind a recursive mutex. Every public method takes the mutex for
// its whole duration; Batch holds it while `writes` runs, so calls from `writes` (same thread)
// re-enter freely and calls from other threads wait until the batch has committed or rolled back.
//
// Transactions: every write method runs in a write scope. The outermost scope is
// BEGIN IMMEDIATE ... COMMIT (the write lock is taken up front, so two processes never deadlock
// upgrading a read lock); a scope opened inside another (a method inside Batch, a Batch inside a
// Batch) is a SAVEPOINT, so a failed inner scope undoes only itself and nothing is durable before
// the outermost scope commits. Reads run in a deferred read transaction (one snapshot for the
// several SELECTs of LoadThread) unless they are already inside a scope.
#pragma once

#include "store/internal/sqlite.h"
#include "store/internal/wakeups.h"
#include "store/store.h"

#include <exception>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace affordance::store::internal {

// "store.not_found": no `what` ("thread", "message") with that id.
Error NotFound(const char* what, const std::string& id);

class SqliteStore final : public Store {
 public:
  // `touch` is the largest threads.touch in the file.
  SqliteStore(std::unique_ptr<Connection> conn, int64_t touch);

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
  std::string_view Backend() const override { return "sqlite"; }
  int SchemaVersion() override;

 private:
  // Runs `body` (returning Result<T> or Status) in a write scope (see the file comment) or, with
  // write=false, a read snapshot; any error or exception from `body` rolls the scope back.
  template <class Body>
  auto Transact(bool write, Body&& body) -> decltype(body());

  Status Begin(bool write);
  Status Commit();
  void Rollback();
  // Runs a cached statement that returns no rows.
  Status Run(std::string_view sql, const std::string& what);
  // Binds every column of an approval to `stmt` (?1..?24, see authority_store.cpp).
  Status BindApproval(Statement& stmt, const ApprovalRecord& a);

  // Marks the thread written at `now` (updated_ms and the ordering counter); "store.not_found"
  // when there is no such thread.
  Status Touch(const std::string& thread_id, int64_t now);
  // Touch() for the thread of a message; "store.not_found" when there is no such message. It is
  // the existence check of the message writes too (one statement instead of two).
  Status TouchThreadOf(const std::string& message_id, int64_t now);
  // The thread a message belongs to; "store.not_found" when there is no such message.
  Result<std::string> ThreadOf(const std::string& message_id);

  Result<ThreadInfo> ReadThread(const std::string& id);
  // Marks those of `messages` still running interrupted with their running steps, and closes their
  // open parts (RecoverInterrupted, a turn taken over after its lease expired, a turn ended with
  // its message still running); adds each it marked to `touched`.
  Status InterruptMessages(const std::vector<std::string>& messages, int64_t now,
                           std::set<std::string>& touched);
  // The turn rows `sql` selects (its columns: kTurnColumns in turn_store.cpp), bound to `key`.
  Result<std::vector<TurnRecord>> ReadTurns(std::string_view sql, const std::string& key,
                                            int64_t a = 0, int64_t b = 0);
  // The parts and steps of `messages` (rows of one thread, or one message, in seq order).
  Status FillParts(std::vector<MessageRecord>& messages, std::string_view sql,
                   const std::string& key);
  Status FillSteps(std::vector<MessageRecord>& messages, std::string_view sql,
                   const std::string& key);

  std::recursive_mutex mu_;
  std::unique_ptr<Connection> conn_;
  int depth_ = 0;      // open scopes on this connection (guarded by mu_)
  int64_t touch_ = 0;  // the last threads.touch this store wrote or saw at open
  Wakeups wakeups_;    // this process's changes (other processes' are seen by polling)
};

template <class Body>
auto SqliteStore::Transact(bool write, Body&& body) -> decltype(body()) {
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
