// SqliteStore::RecoverInterrupted: what a process killed mid-turn left "running" becomes
// "interrupted", in one transaction, deleting nothing.
#include "store/internal/codec.h"
#include "store/internal/sqlite_store.h"

#include <set>
#include <utility>

namespace affordance::store::internal {

Status SqliteStore::InterruptMessages(const std::vector<std::string>& candidates, int64_t now,
                                      std::set<std::string>& touched) {
  sqlite3* db = conn_->db();
  // Only messages still running: a finished one keeps its open parts (a call waiting for the
  // person's decision is open in a complete message).
  std::vector<std::string> messages;
  {
    auto status = conn_->Prepare("SELECT 1 FROM messages WHERE id = ?1 AND status = 'running'");
    if (!status) return status.error();
    for (const std::string& id : candidates) {
      Statement stmt(*status);
      stmt.Bind(1, id);
      const int rc = stmt.Step();
      if (rc == SQLITE_ROW) messages.push_back(id);
      if (rc != SQLITE_ROW && rc != SQLITE_DONE) return IoError(db, "cannot read message " + id);
    }
  }
  auto mark = conn_->Prepare(
      "UPDATE messages SET status = 'interrupted', updated_ms = ?2 WHERE id = ?1 AND status = "
      "'running'");
  if (!mark) return mark.error();
  for (const std::string& id : messages) {
    Statement stmt(*mark);
    stmt.Bind(1, id).Bind(2, now);
    if (stmt.Step() != SQLITE_DONE)
      return IoError(db, "cannot mark message " + id + " interrupted");
  }

  auto open_parts =
      conn_->Prepare("SELECT seq, data FROM parts WHERE message_id = ?1 AND open = 1");
  auto close_part = conn_->Prepare(
      "UPDATE parts SET open = 0, state = 'interrupted', data = ?3 "
      "WHERE message_id = ?1 AND seq = ?2");
  if (!open_parts) return open_parts.error();
  if (!close_part) return close_part.error();
  for (const std::string& id : messages) {
    touched.insert(id);
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
      "UPDATE steps SET status = 'interrupted' WHERE status = 'running' AND message_id = ?1");
  if (!steps) return steps.error();
  for (const std::string& id : messages) {
    Statement stmt(*steps);
    stmt.Bind(1, id);
    if (stmt.Step() != SQLITE_DONE)
      return IoError(db, "cannot mark the steps of " + id + " interrupted");
    touched.insert(id);
  }
  return {};
}

Result<int64_t> SqliteStore::RecoverInterrupted(const AbandonedFn& abandoned) {
  return Transact(true, [&]() -> Result<int64_t> {
    sqlite3* db = conn_->db();
    int64_t now = NowMs();
    std::set<std::string> touched_messages;

    // The running messages, and of those the ones whose writer is gone.
    auto running = conn_->Prepare("SELECT id, meta FROM messages WHERE status = 'running'");
    if (!running) return running.error();
    std::vector<std::string> messages;
    {
      Statement stmt(*running);
      int rc;
      while ((rc = stmt.Step()) == SQLITE_ROW) {
        std::string id(stmt.Text(0));
        if (abandoned) {
          auto meta = DecodeJson(stmt.Text(1), "the meta of message " + id);
          if (!meta) return meta.error();
          if (!abandoned(*meta)) continue;
        }
        messages.push_back(std::move(id));
      }
      if (rc != SQLITE_DONE) return IoError(db, "cannot read the running messages");
    }
    if (auto s = InterruptMessages(messages, now, touched_messages); !s) return s.error();
    // A step left running in a message that is no longer running has no writer either.
    auto stray = conn_->Prepare(
        "UPDATE steps SET status = 'interrupted' WHERE status = 'running' AND message_id IN "
        "(SELECT id FROM messages WHERE status != 'running') RETURNING message_id");
    if (!stray) return stray.error();
    {
      Statement stmt(*stray);
      int rc;
      while ((rc = stmt.Step()) == SQLITE_ROW) touched_messages.insert(std::string(stmt.Text(0)));
      if (rc != SQLITE_DONE) return IoError(db, "cannot mark running steps interrupted");
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
