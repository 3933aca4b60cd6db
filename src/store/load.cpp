// SqliteStore: the reads (threads, and messages with their parts and steps).
#include "store/internal/codec.h"
#include "store/internal/sqlite_store.h"

namespace affordance::store::internal {

namespace {

constexpr std::string_view kThreadColumns =
    "SELECT t.id, t.title, t.created_ms, t.updated_ms, "
    "(SELECT count(*) FROM messages m WHERE m.thread_id = t.id) FROM threads t ";

ThreadInfo ThreadRow(const Statement& stmt) {
  return ThreadInfo{std::string(stmt.Text(0)), std::string(stmt.Text(1)), stmt.Int(2), stmt.Int(3),
                    stmt.Int(4)};
}

// Columns: id, thread_id, seq, role, status, meta, created_ms, updated_ms.
Result<MessageRecord> MessageRow(const Statement& stmt) {
  MessageRecord m;
  m.id = stmt.Text(0);
  m.thread_id = stmt.Text(1);
  m.seq = stmt.Int(2);
  m.role = stmt.Text(3);
  m.status = stmt.Text(4);
  auto meta = DecodeJson(stmt.Text(5), "the meta of message " + m.id);
  if (!meta) return meta.error();
  m.meta = std::move(*meta);
  m.created_ms = stmt.Int(6);
  m.updated_ms = stmt.Int(7);
  return m;
}

// Columns: message_id, then seq, step, kind, key, state, open, data.
Result<PartRecord> PartRow(const Statement& stmt) {
  PartRecord p;
  p.seq = stmt.Int(1);
  p.step = static_cast<int>(stmt.Int(2));
  p.kind = stmt.Text(3);
  p.key = stmt.Text(4);
  p.state = stmt.Text(5);
  p.open = stmt.Int(6) != 0;
  auto data = DecodeJson(stmt.Text(7), "the data of part " + std::to_string(p.seq) +
                                           " of message " + std::string(stmt.Text(0)));
  if (!data) return data.error();
  p.data = std::move(*data);
  return p;
}

// Columns: message_id, then idx, status, finish_reason, prompt_tokens, cached_prompt_tokens,
// generated_tokens, tokens, started_ms, finished_ms, detail.
Result<StepRecord> StepRow(const Statement& stmt) {
  StepRecord s;
  s.index = static_cast<int>(stmt.Int(1));
  std::string row = "step " + std::to_string(s.index) + " of message " + std::string(stmt.Text(0));
  s.status = stmt.Text(2);
  s.finish_reason = stmt.Text(3);
  s.prompt_tokens = stmt.Int(4);
  s.cached_prompt_tokens = stmt.Int(5);
  s.generated_tokens = stmt.Int(6);
  auto tokens = DecodeTokens(stmt.Blob(7), row);
  if (!tokens) return tokens.error();
  s.tokens = std::move(*tokens);
  s.started_ms = stmt.Int(8);
  s.finished_ms = stmt.Int(9);
  auto detail = DecodeJson(stmt.Text(10), "the detail of " + row);
  if (!detail) return detail.error();
  s.detail = std::move(*detail);
  return s;
}

// Rows arrive grouped by message in the order of `messages`; `cursor` walks along with them.
Result<MessageRecord*> Owner(std::vector<MessageRecord>& messages, size_t& cursor,
                             std::string_view message_id) {
  while (cursor < messages.size() && messages[cursor].id != message_id) ++cursor;
  if (cursor == messages.size()) {
    return MakeError("store.io", "a row belongs to message " + std::string(message_id) +
                                     ", which the same read did not return");
  }
  return &messages[cursor];
}

}  // namespace

Result<ThreadInfo> SqliteStore::ReadThread(const std::string& id) {
  static const std::string sql = std::string(kThreadColumns) + "WHERE t.id = ?1";
  auto prepared = conn_->Prepare(sql);
  if (!prepared) return prepared.error();
  Statement stmt(*prepared);
  stmt.Bind(1, id);
  int rc = stmt.Step();
  if (rc == SQLITE_ROW) return ThreadRow(stmt);
  if (rc == SQLITE_DONE) {
    return NotFound("thread", id);
  }
  return IoError(conn_->db(), "cannot read thread " + id);
}

Result<ThreadInfo> SqliteStore::GetThread(const std::string& id) {
  return Transact(false, [&] { return ReadThread(id); });
}

Result<std::vector<ThreadInfo>> SqliteStore::ListThreads() {
  return Transact(false, [&]() -> Result<std::vector<ThreadInfo>> {
    static const std::string sql =
        std::string(kThreadColumns) + "ORDER BY t.updated_ms DESC, t.touch DESC";
    auto prepared = conn_->Prepare(sql);
    if (!prepared) return prepared.error();
    Statement stmt(*prepared);
    std::vector<ThreadInfo> out;
    int rc;
    while ((rc = stmt.Step()) == SQLITE_ROW) out.push_back(ThreadRow(stmt));
    if (rc != SQLITE_DONE) return IoError(conn_->db(), "cannot list threads");
    return out;
  });
}

Status SqliteStore::FillParts(std::vector<MessageRecord>& messages, std::string_view sql,
                              const std::string& key) {
  auto prepared = conn_->Prepare(sql);
  if (!prepared) return prepared.error();
  Statement stmt(*prepared);
  stmt.Bind(1, key);
  size_t cursor = 0;
  int rc;
  while ((rc = stmt.Step()) == SQLITE_ROW) {
    auto owner = Owner(messages, cursor, stmt.Text(0));
    if (!owner) return owner.error();
    auto part = PartRow(stmt);
    if (!part) return part.error();
    (*owner)->parts.push_back(std::move(*part));
  }
  if (rc != SQLITE_DONE) return IoError(conn_->db(), "cannot read the parts of " + key);
  return {};
}

Status SqliteStore::FillSteps(std::vector<MessageRecord>& messages, std::string_view sql,
                              const std::string& key) {
  auto prepared = conn_->Prepare(sql);
  if (!prepared) return prepared.error();
  Statement stmt(*prepared);
  stmt.Bind(1, key);
  size_t cursor = 0;
  int rc;
  while ((rc = stmt.Step()) == SQLITE_ROW) {
    auto owner = Owner(messages, cursor, stmt.Text(0));
    if (!owner) return owner.error();
    auto step = StepRow(stmt);
    if (!step) return step.error();
    (*owner)->steps.push_back(std::move(*step));
  }
  if (rc != SQLITE_DONE) return IoError(conn_->db(), "cannot read the steps of " + key);
  return {};
}

Result<std::vector<MessageRecord>> SqliteStore::LoadThread(const std::string& thread_id) {
  return Transact(false, [&]() -> Result<std::vector<MessageRecord>> {
    if (auto thread = ReadThread(thread_id); !thread) return thread.error();
    auto prepared = conn_->Prepare(
        "SELECT id, thread_id, seq, role, status, meta, created_ms, updated_ms FROM messages "
        "WHERE thread_id = ?1 ORDER BY seq");
    if (!prepared) return prepared.error();
    std::vector<MessageRecord> messages;
    {
      Statement stmt(*prepared);
      stmt.Bind(1, thread_id);
      int rc;
      while ((rc = stmt.Step()) == SQLITE_ROW) {
        auto m = MessageRow(stmt);
        if (!m) return m.error();
        messages.push_back(std::move(*m));
      }
      if (rc != SQLITE_DONE) {
        return IoError(conn_->db(), "cannot read the messages of thread " + thread_id);
      }
    }
    if (auto s = FillParts(messages,
                           "SELECT p.message_id, p.seq, p.step, p.kind, p.key, p.state, p.open, "
                           "p.data FROM messages m JOIN parts p ON p.message_id = m.id "
                           "WHERE m.thread_id = ?1 ORDER BY m.seq, p.seq",
                           thread_id);
        !s) {
      return s.error();
    }
    if (auto s = FillSteps(messages,
                           "SELECT s.message_id, s.idx, s.status, s.finish_reason, "
                           "s.prompt_tokens, s.cached_prompt_tokens, s.generated_tokens, s.tokens, "
                           "s.started_ms, s.finished_ms, s.detail FROM messages m JOIN steps s "
                           "ON s.message_id = m.id WHERE m.thread_id = ?1 ORDER BY m.seq, s.idx",
                           thread_id);
        !s) {
      return s.error();
    }
    return messages;
  });
}

Result<MessageRecord> SqliteStore::LoadMessage(const std::string& message_id) {
  return Transact(false, [&]() -> Result<MessageRecord> {
    auto prepared = conn_->Prepare(
        "SELECT id, thread_id, seq, role, status, meta, created_ms, updated_ms FROM messages "
        "WHERE id = ?1");
    if (!prepared) return prepared.error();
    std::vector<MessageRecord> messages;
    {
      Statement stmt(*prepared);
      stmt.Bind(1, message_id);
      int rc = stmt.Step();
      if (rc == SQLITE_DONE) {
        return NotFound("message", message_id);
      }
      if (rc != SQLITE_ROW) return IoError(conn_->db(), "cannot read message " + message_id);
      auto m = MessageRow(stmt);
      if (!m) return m.error();
      messages.push_back(std::move(*m));
    }
    if (auto s = FillParts(messages,
                           "SELECT message_id, seq, step, kind, key, state, open, data FROM parts "
                           "WHERE message_id = ?1 ORDER BY seq",
                           message_id);
        !s) {
      return s.error();
    }
    if (auto s = FillSteps(messages,
                           "SELECT message_id, idx, status, finish_reason, prompt_tokens, "
                           "cached_prompt_tokens, generated_tokens, tokens, started_ms, "
                           "finished_ms, detail FROM steps WHERE message_id = ?1 ORDER BY idx",
                           message_id);
        !s) {
      return s.error();
    }
    return std::move(messages.front());
  });
}

}  // namespace affordance::store::internal
