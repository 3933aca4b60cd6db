// PgStore: opening, transactions, and the writes of threads, messages, parts and steps. Reads are
// in pg_load.cpp, recovery in pg_recover.cpp, the authority tables in pg_authority.cpp, artifacts
// in pg_artifacts.cpp, turns in pg_turns.cpp. Each mirrors its SQLite twin (sqlite_store.cpp,
// load.cpp, ...) statement for statement where PostgreSQL allows.
#include "store/internal/pg_store.h"

#include "store/internal/codec.h"
#include "store/internal/pg_migrations.h"
#include "store/internal/validate.h"

#include <array>

namespace affordance::store {
namespace internal {

namespace {

// The transaction underneath a scope is gone or failed: an error `writes` ignored left it failed
// (PostgreSQL refuses every later statement), or the connection broke.
Error TransactionLost(bool failed) {
  return failed ? MakeError("store.io",
                            "the transaction failed after an earlier error; none of its writes "
                            "were kept")
                : MakeError(ErrorKind::kUnavailable, "store.io",
                            "the connection to PostgreSQL was lost inside a transaction; none of "
                            "its writes were kept");
}

bool IsConflict(const Error& e) { return e.code == "store.conflict"; }

}  // namespace

PgStore::PgStore(std::unique_ptr<PgConn> conn) : conn_(std::move(conn)) {}

Status PgStore::StartListening(const std::string& uri) {
  auto listener = PgListener::Start(uri, wakeups_);
  if (!listener) return listener.error();
  listener_ = std::move(*listener);
  listener_->IgnoreBackend(PQbackendPID(conn_->get()));
  return {};
}

// ---- transactions -------------------------------------------------------------------------------

Status PgStore::Begin(bool write) {
  if (depth_ == 0) {
    // Reconnect once: after a server restart the first statement finds the socket closed.
    if (conn_->broken() && !Reconnect()) {
      return MakeError(ErrorKind::kUnavailable, "store.io",
                       "cannot reach PostgreSQL: " + conn_->LastError());
    }
    const std::string begin = write ? "BEGIN" : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";
    Status s = conn_->Exec(begin, "cannot start a transaction");
    if (!s && conn_->broken() && Reconnect()) s = conn_->Exec(begin, "cannot start a transaction");
    if (!s) return s;
  } else if (!conn_->InTransaction() || conn_->TransactionFailed()) {
    // A SAVEPOINT outside a transaction would fail; inside a failed one it is refused.
    return TransactionLost(conn_->TransactionFailed());
  } else if (auto s = conn_->Exec("SAVEPOINT scope", "cannot start a savepoint"); !s) {
    return s;
  }
  ++depth_;
  return {};
}

bool PgStore::Reconnect() {
  if (!conn_->Reset()) return false;
  if (listener_) listener_->IgnoreBackend(PQbackendPID(conn_->get()));
  return true;
}

Status PgStore::Commit() {
  if (conn_->TransactionFailed() || !conn_->InTransaction()) {
    const bool failed = conn_->TransactionFailed();
    Rollback();
    return TransactionLost(failed);
  }
  --depth_;
  if (depth_ > 0) return conn_->Exec("RELEASE SAVEPOINT scope", "cannot release a savepoint");
  Status s = conn_->Exec("COMMIT", "cannot commit");
  std::vector<std::string> topics = std::move(notified_);
  notified_.clear();
  if (!s) {
    if (conn_->InTransaction()) (void)conn_->Exec("ROLLBACK", "rollback");
    return s;
  }
  for (const std::string& topic : topics) wakeups_.Bump(topic);
  return {};
}

void PgStore::Rollback() {
  --depth_;
  if (depth_ > 0) {
    if (conn_->InTransaction()) {
      (void)conn_->Exec("ROLLBACK TO SAVEPOINT scope", "rollback to savepoint");
      (void)conn_->Exec("RELEASE SAVEPOINT scope", "release savepoint");
    }
  } else {
    notified_.clear();
    if (conn_->InTransaction()) (void)conn_->Exec("ROLLBACK", "rollback");
  }
}

Status PgStore::Batch(const std::function<Status()>& writes) {
  return Transact(true, [&] { return writes(); });
}

PgStatement PgStore::NotifyStatement(const std::string& topic) {
  return {"SELECT pg_notify($1, $2)", {kPgChannel, topic}, "cannot notify other nodes"};
}

Status PgStore::Notify(const std::string& topic) {
  PgStatement st = NotifyStatement(topic);
  auto sent = conn_->Run(st.sql, st.params, st.what);
  if (!sent) return sent.error();
  notified_.push_back(topic);
  return {};
}

// ---- shared write steps -------------------------------------------------------------------------

Status PgStore::Touch(const std::string& thread_id, int64_t now) {
  auto rows =
      Query("UPDATE threads SET updated_ms = $1, touch = nextval('threads_touch') WHERE id = $2",
            "cannot update thread " + thread_id, now, thread_id);
  if (!rows) return rows.error();
  if (rows->affected() == 0) return NotFound("thread", thread_id);
  return {};
}

Status PgStore::TouchThreadOf(const std::string& message_id, int64_t now) {
  auto rows = Query(
      "UPDATE threads SET updated_ms = $1, touch = nextval('threads_touch') "
      "WHERE id = (SELECT thread_id FROM messages WHERE id = $2)",
      "cannot update the thread of message " + message_id, now, message_id);
  if (!rows) return rows.error();
  // messages.thread_id is a foreign key, so no change means no such message.
  if (rows->affected() == 0) return NotFound("message", message_id);
  return {};
}

// ---- threads ------------------------------------------------------------------------------------

Result<ThreadInfo> PgStore::CreateThread(const std::string& title, const std::string& id) {
  return Transact(true, [&]() -> Result<ThreadInfo> {
    ThreadInfo info{id.empty() ? NewId("t_") : id, title, NowMs(), 0, 0};
    info.updated_ms = info.created_ms;
    auto rows = Query(
        "INSERT INTO threads(id, title, created_ms, updated_ms, touch) "
        "VALUES ($1, $2, $3, $3, nextval('threads_touch'))",
        "cannot create a thread", info.id, info.title, info.created_ms);
    if (!rows) {
      if (IsConflict(rows.error())) {
        return MakeError("store.conflict", "a thread with this id exists", info.id);
      }
      return rows.error();
    }
    return info;
  });
}

Status PgStore::RenameThread(const std::string& id, const std::string& title) {
  return Transact(true, [&]() -> Status {
    auto rows = Query("UPDATE threads SET title = $1 WHERE id = $2", "cannot rename thread " + id,
                      title, id);
    if (!rows) return rows.error();
    return Touch(id, NowMs());
  });
}

Status PgStore::DeleteThread(const std::string& id) {
  return Transact(true, [&]() -> Status {
    auto rows = Query("DELETE FROM threads WHERE id = $1", "cannot delete thread " + id, id);
    if (!rows) return rows.error();
    if (rows->affected() == 0) return NotFound("thread", id);
    return {};
  });
}

// ---- messages, parts, steps ---------------------------------------------------------------------

Result<MessageRecord> PgStore::AddMessage(const std::string& thread_id, const std::string& role,
                                          const std::string& status, const nlohmann::json& meta,
                                          const std::string& id) {
  if (auto s = OneOf(role, kRoles, "message role"); !s) return s.error();
  if (auto s = OneOf(status, kMessageStatuses, "message status"); !s) return s.error();
  auto meta_text = EncodeJson(meta, "message meta");
  if (!meta_text) return meta_text.error();
  return Transact(true, [&]() -> Result<MessageRecord> {
    MessageRecord m;
    m.id = id.empty() ? NewId("m_") : id;
    m.thread_id = thread_id;
    m.role = role;
    m.status = status;
    m.meta = meta.is_null() ? nlohmann::json::object() : meta;
    m.created_ms = m.updated_ms = NowMs();
    // Touch first: it locks the thread's row, so the max(seq) below sees every message another
    // node committed to the thread before.
    if (auto s = Touch(thread_id, m.created_ms); !s) return s.error();
    auto rows = Query(
        "INSERT INTO messages(id, thread_id, seq, role, status, meta, created_ms, updated_ms) "
        "VALUES ($1, $2, (SELECT coalesce(max(seq), -1) + 1 FROM messages WHERE thread_id = $2), "
        "$3, $4, $5, $6, $6) RETURNING seq",
        "cannot add a message to thread " + thread_id, m.id, thread_id, role, status, *meta_text,
        m.created_ms);
    if (!rows) {
      if (IsConflict(rows.error()) && !id.empty()) {
        return MakeError("store.conflict", "a message with this id exists", id);
      }
      return rows.error();
    }
    m.seq = rows->Int(0, 0);
    return m;
  });
}

Status PgStore::UpdateMessage(const std::string& message_id, const std::string& status,
                              const nlohmann::json& meta) {
  if (auto s = OneOf(status, kMessageStatuses, "message status"); !s) return s;
  auto meta_text = EncodeJson(meta, "message meta");
  if (!meta_text) return meta_text.error();
  return Transact(true, [&]() -> Status {
    int64_t now = NowMs();
    if (auto s = TouchThreadOf(message_id, now); !s) return s;
    auto rows = Query("UPDATE messages SET status = $1, meta = $2, updated_ms = $3 WHERE id = $4",
                      "cannot update message " + message_id, status, *meta_text, now, message_id);
    if (!rows) return rows.error();
    return {};
  });
}

Status PgStore::PutPart(const std::string& message_id, const PartRecord& part) {
  std::string row = "part " + std::to_string(part.seq) + " of message " + message_id;
  if (part.seq < 0) return MakeError("store.bad_input", row + ": seq must not be negative");
  if (part.kind.empty()) return MakeError("store.bad_input", row + ": kind is empty");
  auto data = EncodeJson(part.data, row + ": data");
  if (!data) return data.error();
  return Transact(true, [&]() -> Status {
    if (auto s = TouchThreadOf(message_id, NowMs()); !s) return s;
    auto rows = Query(
        "INSERT INTO parts(message_id, seq, step, kind, key, state, open, data) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (message_id, seq) DO UPDATE SET "
        "step = excluded.step, kind = excluded.kind, key = excluded.key, "
        "state = excluded.state, open = excluded.open, data = excluded.data",
        "cannot write " + row, message_id, part.seq, part.step, part.kind, part.key, part.state,
        part.open, *data);
    if (!rows) return rows.error();
    return {};
  });
}

Status PgStore::PutStep(const std::string& message_id, const StepRecord& step) {
  std::string row = "step " + std::to_string(step.index) + " of message " + message_id;
  if (step.index < 0) return MakeError("store.bad_input", row + ": index must not be negative");
  if (auto s = OneOf(step.status, kStepStatuses, "step status"); !s) return s;
  auto detail = EncodeJson(step.detail, row + ": detail");
  if (!detail) return detail.error();
  std::string tokens = PgBytesParam(EncodeTokens(step.tokens));
  return Transact(true, [&]() -> Status {
    if (auto s = TouchThreadOf(message_id, NowMs()); !s) return s;
    auto rows = Query(
        "INSERT INTO steps(message_id, idx, status, finish_reason, prompt_tokens, "
        "cached_prompt_tokens, generated_tokens, tokens, started_ms, finished_ms, detail) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) "
        "ON CONFLICT (message_id, idx) DO UPDATE SET status = excluded.status, "
        "finish_reason = excluded.finish_reason, prompt_tokens = excluded.prompt_tokens, "
        "cached_prompt_tokens = excluded.cached_prompt_tokens, "
        "generated_tokens = excluded.generated_tokens, tokens = excluded.tokens, "
        "started_ms = excluded.started_ms, finished_ms = excluded.finished_ms, "
        "detail = excluded.detail",
        "cannot write " + row, message_id, step.index, step.status, step.finish_reason,
        step.prompt_tokens, step.cached_prompt_tokens, step.generated_tokens, tokens,
        step.started_ms, step.finished_ms, *detail);
    if (!rows) return rows.error();
    return {};
  });
}

int PgStore::SchemaVersion() {
  auto version = Transact(false, [&] { return PostgresSchemaVersion(*conn_); });
  return version ? static_cast<int>(*version) : -1;
}

}  // namespace internal

// ---- opening ------------------------------------------------------------------------------------

Result<std::unique_ptr<Store>> OpenPostgres(const std::string& uri) {
  if (uri.empty()) return MakeError("store.open", "no PostgreSQL URI given for the store");
  auto conn = internal::PgConn::Connect(uri);
  if (!conn) return conn.error();
  if (auto s = internal::MigratePostgres(**conn, internal::RedactUri(uri)); !s) return s.error();
  auto store = std::make_unique<internal::PgStore>(std::move(*conn));
  if (auto s = store->StartListening(uri); !s) return s.error();
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace affordance::store
