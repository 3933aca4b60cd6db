// SqliteStore::RecoverInterrupted: what a process killed mid-turn left "running" becomes
// "interrupted", in one transaction, deleting nothing.
#include "store/internal/codec.h"
#include "store/internal/sqlite_store.h"

#include <set>
#include <utility>

namespace affordance::store::internal {

namespace {

// Runs `stmt` to the end, collecting its first column.
Result<std::vector<std::string>> FirstColumn(Statement& stmt, sqlite3* db,
                                             const std::string& what) {
  std::vector<std::string> out;
  int rc;
  while ((rc = stmt.Step()) == SQLITE_ROW) out.emplace_back(stmt.Text(0));
  if (rc != SQLITE_DONE) return IoError(db, what);
  return out;
}

}  // namespace

Result<int64_t> SqliteStore::RecoverInterrupted() {
  return Transact(true, [&]() -> Result<int64_t> {
    sqlite3* db = conn_->db();
    int64_t now = NowMs();
    std::set<std::string> touched_messages;

    auto marked = conn_->Prepare(
        "UPDATE messages SET status = 'interrupted', updated_ms = ?1 WHERE status = 'running' "
        "RETURNING id");
    if (!marked) return marked.error();
    std::vector<std::string> messages;
    {
      Statement stmt(*marked);
      stmt.Bind(1, now);
      auto ids = FirstColumn(stmt, db, "cannot mark running messages interrupted");
      if (!ids) return ids.error();
      messages = std::move(*ids);
    }

    auto open_parts =
        conn_->Prepare("SELECT seq, data FROM parts WHERE message_id = ?1 AND open = 1");
    auto close_part = conn_->Prepare(
        "UPDATE parts SET open = 0, state = 'interrupted', data = ?3 "
        "WHERE message_id = ?1 AND seq = ?2");
    if (!open_parts) return open_parts.error();
    if (!close_part) return close_part.error();
    for (const std::string& id : messages) {
      touched_messages.insert(id);
      std::vector<std::pair<int64_t, std::string>> closed;  // seq, new data
      {
        Statement stmt(*open_parts);
        stmt.Bind(1, id);
        int rc;
        while ((rc = stmt.Step()) == SQLITE_ROW) {
          int64_t seq = stmt.Int(0);
          auto data = DecodeJson(stmt.Text(1),
                                 "the data of part " + std::to_string(seq) + " of message " + id);
          if (!data) return data.error();
          (*data)["interrupted"] = true;
          closed.emplace_back(seq, data->dump());
        }
        if (rc != SQLITE_DONE) return IoError(db, "cannot read the open parts of message " + id);
      }
      for (const auto& [seq, data] : closed) {
        Statement stmt(*close_part);
        stmt.Bind(1, id).Bind(2, seq).Bind(3, data);
        if (stmt.Step() != SQLITE_DONE) {
          return IoError(db, "cannot close part " + std::to_string(seq) + " of message " + id);
        }
      }
    }

    auto steps = conn_->Prepare(
        "UPDATE steps SET status = 'interrupted' WHERE status = 'running' RETURNING message_id");
    if (!steps) return steps.error();
    {
      Statement stmt(*steps);
      auto ids = FirstColumn(stmt, db, "cannot mark running steps interrupted");
      if (!ids) return ids.error();
      touched_messages.insert(ids->begin(), ids->end());
    }

    // The thread of every message that changed (its status, a part or a step) counts as written.
    std::set<std::string> threads;
    for (const std::string& id : touched_messages) {
      auto thread = ThreadOf(id);
      if (!thread) return thread.error();
      threads.insert(std::move(*thread));
    }
    for (const std::string& thread : threads) {
      if (auto s = Touch(thread, now); !s) return s.error();
    }
    return static_cast<int64_t>(messages.size());
  });
}

}  // namespace affordance::store::internal
