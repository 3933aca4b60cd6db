// PgStore: the reads (threads, and messages with their parts and steps), as load.cpp.
#include "store/internal/codec.h"
#include "store/internal/pg_store.h"

namespace affordance::store::internal {

namespace {

constexpr std::string_view kThreadColumns =
    "SELECT t.id, t.title, t.created_ms, t.updated_ms, "
    "(SELECT count(*) FROM messages m WHERE m.thread_id = t.id) FROM threads t ";

ThreadInfo ThreadRow(const PgRows& rows, int r) {
  return ThreadInfo{rows.Str(r, 0), rows.Str(r, 1), rows.Int(r, 2), rows.Int(r, 3), rows.Int(r, 4)};
}

// Columns: id, thread_id, seq, role, status, meta, created_ms, updated_ms.
Result<MessageRecord> MessageRow(const PgRows& rows, int r) {
  MessageRecord m;
  m.id = rows.Str(r, 0);
  m.thread_id = rows.Str(r, 1);
  m.seq = rows.Int(r, 2);
  m.role = rows.Str(r, 3);
  m.status = rows.Str(r, 4);
  auto meta = DecodeJson(rows.Text(r, 5), "the meta of message " + m.id);
  if (!meta) return meta.error();
  m.meta = std::move(*meta);
  m.created_ms = rows.Int(r, 6);
  m.updated_ms = rows.Int(r, 7);
  return m;
}

// Columns: message_id, then seq, step, kind, key, state, open, data.
Result<PartRecord> PartRow(const PgRows& rows, int r) {
  PartRecord p;
  p.seq = rows.Int(r, 1);
  p.step = static_cast<int>(rows.Int(r, 2));
  p.kind = rows.Str(r, 3);
  p.key = rows.Str(r, 4);
  p.state = rows.Str(r, 5);
  p.open = rows.Int(r, 6) != 0;
  auto data = DecodeJson(rows.Text(r, 7), "the data of part " + std::to_string(p.seq) +
                                              " of message " + rows.Str(r, 0));
  if (!data) return data.error();
  p.data = std::move(*data);
  return p;
}

// Columns: message_id, then idx, status, finish_reason, prompt_tokens, cached_prompt_tokens,
// generated_tokens, tokens, started_ms, finished_ms, detail.
Result<StepRecord> StepRow(const PgRows& rows, int r) {
  StepRecord s;
  s.index = static_cast<int>(rows.Int(r, 1));
  std::string row = "step " + std::to_string(s.index) + " of message " + rows.Str(r, 0);
  s.status = rows.Str(r, 2);
  s.finish_reason = rows.Str(r, 3);
  s.prompt_tokens = rows.Int(r, 4);
  s.cached_prompt_tokens = rows.Int(r, 5);
  s.generated_tokens = rows.Int(r, 6);
  auto tokens = DecodeTokens(rows.Bytes(r, 7), row);
  if (!tokens) return tokens.error();
  s.tokens = std::move(*tokens);
  s.started_ms = rows.Int(r, 8);
  s.finished_ms = rows.Int(r, 9);
  auto detail = DecodeJson(rows.Text(r, 10), "the detail of " + row);
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

constexpr std::string_view kMessageColumns =
    "SELECT id, thread_id, seq, role, status, meta, created_ms, updated_ms FROM messages ";

}  // namespace

Result<ThreadInfo> PgStore::ReadThread(const std::string& id) {
  static const std::string sql = std::string(kThreadColumns) + "WHERE t.id = $1";
  auto rows = Query(sql, "cannot read thread " + id, id);
  if (!rows) return rows.error();
  if (rows->empty()) return NotFound("thread", id);
  return ThreadRow(*rows, 0);
}

Result<ThreadInfo> PgStore::GetThread(const std::string& id) {
  return Transact(false, [&] { return ReadThread(id); });
}

Result<std::vector<ThreadInfo>> PgStore::ListThreads() {
  return Transact(false, [&]() -> Result<std::vector<ThreadInfo>> {
    static const std::string sql =
        std::string(kThreadColumns) + "ORDER BY t.updated_ms DESC, t.touch DESC";
    auto rows = Query(sql, "cannot list threads");
    if (!rows) return rows.error();
    std::vector<ThreadInfo> out;
    out.reserve(static_cast<size_t>(rows->size()));
    for (int r = 0; r < rows->size(); ++r) out.push_back(ThreadRow(*rows, r));
    return out;
  });
}

Status PgStore::FillParts(std::vector<MessageRecord>& messages, std::string_view sql,
                          const std::string& key) {
  auto rows = Query(sql, "cannot read the parts of " + key, key);
  if (!rows) return rows.error();
  size_t cursor = 0;
  for (int r = 0; r < rows->size(); ++r) {
    auto owner = Owner(messages, cursor, rows->Text(r, 0));
    if (!owner) return owner.error();
    auto part = PartRow(*rows, r);
    if (!part) return part.error();
    (*owner)->parts.push_back(std::move(*part));
  }
  return {};
}

Status PgStore::FillSteps(std::vector<MessageRecord>& messages, std::string_view sql,
                          const std::string& key) {
  auto rows = Query(sql, "cannot read the steps of " + key, key);
  if (!rows) return rows.error();
  size_t cursor = 0;
  for (int r = 0; r < rows->size(); ++r) {
    auto owner = Owner(messages, cursor, rows->Text(r, 0));
    if (!owner) return owner.error();
    auto step = StepRow(*rows, r);
    if (!step) return step.error();
    (*owner)->steps.push_back(std::move(*step));
  }
  return {};
}

Result<std::vector<MessageRecord>> PgStore::LoadThread(const std::string& thread_id) {
  return Transact(false, [&]() -> Result<std::vector<MessageRecord>> {
    if (auto thread = ReadThread(thread_id); !thread) return thread.error();
    static const std::string sql =
        std::string(kMessageColumns) + "WHERE thread_id = $1 ORDER BY seq";
    auto rows = Query(sql, "cannot read the messages of thread " + thread_id, thread_id);
    if (!rows) return rows.error();
    std::vector<MessageRecord> messages;
    for (int r = 0; r < rows->size(); ++r) {
      auto m = MessageRow(*rows, r);
      if (!m) return m.error();
      messages.push_back(std::move(*m));
    }
    if (auto s = FillParts(messages,
                           "SELECT p.message_id, p.seq, p.step, p.kind, p.key, p.state, p.open, "
                           "p.data FROM messages m JOIN parts p ON p.message_id = m.id "
                           "WHERE m.thread_id = $1 ORDER BY m.seq, p.seq",
                           thread_id);
        !s) {
      return s.error();
    }
    if (auto s = FillSteps(messages,
                           "SELECT s.message_id, s.idx, s.status, s.finish_reason, "
                           "s.prompt_tokens, s.cached_prompt_tokens, s.generated_tokens, s.tokens, "
                           "s.started_ms, s.finished_ms, s.detail FROM messages m JOIN steps s "
                           "ON s.message_id = m.id WHERE m.thread_id = $1 ORDER BY m.seq, s.idx",
                           thread_id);
        !s) {
      return s.error();
    }
    return messages;
  });
}

Result<MessageRecord> PgStore::LoadMessage(const std::string& message_id) {
  return Transact(false, [&]() -> Result<MessageRecord> {
    static const std::string sql = std::string(kMessageColumns) + "WHERE id = $1";
    auto rows = Query(sql, "cannot read message " + message_id, message_id);
    if (!rows) return rows.error();
    if (rows->empty()) return NotFound("message", message_id);
    std::vector<MessageRecord> messages;
    auto m = MessageRow(*rows, 0);
    if (!m) return m.error();
    messages.push_back(std::move(*m));
    if (auto s = FillParts(messages,
                           "SELECT message_id, seq, step, kind, key, state, open, data FROM parts "
                           "WHERE message_id = $1 ORDER BY seq",
                           message_id);
        !s) {
      return s.error();
    }
    if (auto s = FillSteps(messages,
                           "SELECT message_id, idx, status, finish_reason, prompt_tokens, "
                           "cached_prompt_tokens, generated_tokens, tokens, started_ms, "
                           "finished_ms, detail FROM steps WHERE message_id = $1 ORDER BY idx",
                           message_id);
        !s) {
      return s.error();
    }
    return std::move(messages.front());
  });
}

}  // namespace affordance::store::internal
