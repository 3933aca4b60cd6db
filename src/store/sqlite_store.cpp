// SqliteStore: opening, transactions, and the writes. Reads are in load.cpp, recovery in
// recover.cpp.
#include "store/internal/sqlite_store.h"

#include "base/private_files.h"
#include "store/internal/codec.h"
#include "store/internal/migrations.h"
#include "store/internal/validate.h"

#include <sys/random.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <random>

namespace affordance::store {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string NewId(std::string_view prefix) {
  // getrandom is fork-safe and process-unique; random_device is the fallback should the system
  // call be unavailable (old kernels, seccomp).
  uint64_t bits = 0;
  ssize_t got = -1;
  do {
    got = getrandom(&bits, sizeof bits, 0);
  } while (got < 0 && errno == EINTR);
  if (got != static_cast<ssize_t>(sizeof bits)) {
    std::random_device rd;
    bits = (uint64_t{rd()} << 32) ^ rd();
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id(prefix);
  for (int shift = 60; shift >= 0; shift -= 4) id += kHex[(bits >> shift) & 15];
  return id;
}

namespace internal {

Error NotFound(const char* what, const std::string& id) {
  return MakeError(ErrorKind::kNotFound, "store.not_found",
                   std::string("no ") + what + " \"" + id + "\" in the store");
}

SqliteStore::SqliteStore(std::unique_ptr<Connection> conn, int64_t touch)
    : conn_(std::move(conn)), touch_(touch) {}

// ---- transactions -------------------------------------------------------------------------------

Status SqliteStore::Run(std::string_view sql, const std::string& what) {
  auto prepared = conn_->Prepare(sql);
  if (!prepared) return prepared.error();
  Statement stmt(*prepared);
  if (stmt.Step() != SQLITE_DONE) return IoError(conn_->db(), what);
  return {};
}

namespace {

// SQLite rolls a whole transaction back by itself after some errors inside it (disk full, I/O
// error), which an inner scope may have reported and `writes` ignored.
Error RolledBackBySqlite() {
  return MakeError("store.io",
                   "the transaction was rolled back by SQLite after an earlier error; none of "
                   "its writes were kept");
}

}  // namespace

Status SqliteStore::Begin(bool write) {
  if (depth_ == 0) {
    if (auto s = Run(write ? "BEGIN IMMEDIATE" : "BEGIN", "cannot start a transaction"); !s) {
      return s;
    }
  } else if (sqlite3_get_autocommit(conn_->db())) {
    // Outside any transaction a SAVEPOINT would start a new one and its RELEASE would commit
    // half a batch.
    return RolledBackBySqlite();
  } else if (auto s = Run("SAVEPOINT scope", "cannot start a savepoint"); !s) {
    return s;
  }
  ++depth_;
  return {};
}

Status SqliteStore::Commit() {
  --depth_;
  if (depth_ > 0) return Run("RELEASE scope", "cannot release a savepoint");
  if (sqlite3_get_autocommit(conn_->db())) return RolledBackBySqlite();
  if (auto s = Run("COMMIT", "cannot commit"); !s) {
    if (!sqlite3_get_autocommit(conn_->db())) (void)Run("ROLLBACK", "rollback");
    return s;
  }
  return {};
}

void SqliteStore::Rollback() {
  --depth_;
  if (depth_ > 0) {
    (void)Run("ROLLBACK TO scope", "rollback to savepoint");
    (void)Run("RELEASE scope", "release savepoint");
  } else if (!sqlite3_get_autocommit(conn_->db())) {
    (void)Run("ROLLBACK", "rollback");
  }
}

Status SqliteStore::Batch(const std::function<Status()>& writes) {
  return Transact(true, [&] { return writes(); });
}

// ---- shared write steps -------------------------------------------------------------------------

Status SqliteStore::Touch(const std::string& thread_id, int64_t now) {
  auto prepared = conn_->Prepare("UPDATE threads SET updated_ms = ?1, touch = ?3 WHERE id = ?2");
  if (!prepared) return prepared.error();
  Statement stmt(*prepared);
  stmt.Bind(1, now).Bind(2, thread_id).Bind(3, ++touch_);
  if (stmt.Step() != SQLITE_DONE) return IoError(conn_->db(), "cannot update thread " + thread_id);
  if (sqlite3_changes(conn_->db()) == 0) return NotFound("thread", thread_id);
  return {};
}

Status SqliteStore::TouchThreadOf(const std::string& message_id, int64_t now) {
  auto prepared = conn_->Prepare(
      "UPDATE threads SET updated_ms = ?1, touch = ?2 "
      "WHERE id = (SELECT thread_id FROM messages WHERE id = ?3)");
  if (!prepared) return prepared.error();
  Statement stmt(*prepared);
  stmt.Bind(1, now).Bind(2, ++touch_).Bind(3, message_id);
  if (stmt.Step() != SQLITE_DONE) {
    return IoError(conn_->db(), "cannot update the thread of message " + message_id);
  }
  // messages.thread_id is a foreign key, so no change means no such message.
  if (sqlite3_changes(conn_->db()) == 0) return NotFound("message", message_id);
  return {};
}

Result<std::string> SqliteStore::ThreadOf(const std::string& message_id) {
  auto prepared = conn_->Prepare("SELECT thread_id FROM messages WHERE id = ?1");
  if (!prepared) return prepared.error();
  Statement stmt(*prepared);
  stmt.Bind(1, message_id);
  int rc = stmt.Step();
  if (rc == SQLITE_ROW) return std::string(stmt.Text(0));
  if (rc == SQLITE_DONE) return NotFound("message", message_id);
  return IoError(conn_->db(), "cannot read message " + message_id);
}

// ---- threads ------------------------------------------------------------------------------------

Result<ThreadInfo> SqliteStore::CreateThread(const std::string& title, const std::string& id) {
  return Transact(true, [&]() -> Result<ThreadInfo> {
    ThreadInfo info{id.empty() ? NewId("t_") : id, title, NowMs(), 0, 0};
    info.updated_ms = info.created_ms;
    auto prepared = conn_->Prepare(
        "INSERT INTO threads(id, title, created_ms, updated_ms, touch) "
        "VALUES (?1, ?2, ?3, ?3, ?4)");
    if (!prepared) return prepared.error();
    Statement stmt(*prepared);
    stmt.Bind(1, info.id).Bind(2, info.title).Bind(3, info.created_ms).Bind(4, ++touch_);
    if (const int rc = stmt.Step(); rc != SQLITE_DONE) {
      if ((rc & 0xff) == SQLITE_CONSTRAINT) {
        return MakeError("store.conflict", "a thread with this id exists", info.id);
      }
      return IoError(conn_->db(), "cannot create a thread");
    }
    return info;
  });
}

Status SqliteStore::RenameThread(const std::string& id, const std::string& title) {
  return Transact(true, [&]() -> Status {
    auto prepared = conn_->Prepare("UPDATE threads SET title = ?1 WHERE id = ?2");
    if (!prepared) return prepared.error();
    Statement stmt(*prepared);
    stmt.Bind(1, title).Bind(2, id);
    if (stmt.Step() != SQLITE_DONE) return IoError(conn_->db(), "cannot rename thread " + id);
    return Touch(id, NowMs());
  });
}

Status SqliteStore::DeleteThread(const std::string& id) {
  return Transact(true, [&]() -> Status {
    auto prepared = conn_->Prepare("DELETE FROM threads WHERE id = ?1");
    if (!prepared) return prepared.error();
    Statement stmt(*prepared);
    stmt.Bind(1, id);
    if (stmt.Step() != SQLITE_DONE) return IoError(conn_->db(), "cannot delete thread " + id);
    if (sqlite3_changes(conn_->db()) == 0) return NotFound("thread", id);
    return {};
  });
}

// ---- messages, parts, steps ---------------------------------------------------------------------

Result<MessageRecord> SqliteStore::AddMessage(const std::string& thread_id, const std::string& role,
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
    if (auto s = Touch(thread_id, m.created_ms); !s) return s.error();
    auto prepared = conn_->Prepare(
        "INSERT INTO messages(id, thread_id, seq, role, status, meta, created_ms, updated_ms) "
        "VALUES (?1, ?2, (SELECT coalesce(max(seq), -1) + 1 FROM messages WHERE thread_id = ?2), "
        "?3, ?4, ?5, ?6, ?6) RETURNING seq");
    if (!prepared) return prepared.error();
    Statement stmt(*prepared);
    stmt.Bind(1, m.id).Bind(2, thread_id).Bind(3, role).Bind(4, status).Bind(5, *meta_text);
    stmt.Bind(6, m.created_ms);
    if (const int rc = stmt.Step(); rc != SQLITE_ROW) {
      if ((rc & 0xff) == SQLITE_CONSTRAINT && !id.empty()) {
        return MakeError("store.conflict", "a message with this id exists", id);
      }
      return IoError(conn_->db(), "cannot add a message to thread " + thread_id);
    }
    m.seq = stmt.Int(0);
    if (stmt.Step() != SQLITE_DONE) {
      return IoError(conn_->db(), "cannot add a message to thread " + thread_id);
    }
    return m;
  });
}

Status SqliteStore::UpdateMessage(const std::string& message_id, const std::string& status,
                                  const nlohmann::json& meta) {
  if (auto s = OneOf(status, kMessageStatuses, "message status"); !s) return s;
  auto meta_text = EncodeJson(meta, "message meta");
  if (!meta_text) return meta_text.error();
  return Transact(true, [&]() -> Status {
    int64_t now = NowMs();
    if (auto s = TouchThreadOf(message_id, now); !s) return s;
    auto prepared =
        conn_->Prepare("UPDATE messages SET status = ?1, meta = ?2, updated_ms = ?3 WHERE id = ?4");
    if (!prepared) return prepared.error();
    Statement stmt(*prepared);
    stmt.Bind(1, status).Bind(2, *meta_text).Bind(3, now).Bind(4, message_id);
    if (stmt.Step() != SQLITE_DONE) {
      return IoError(conn_->db(), "cannot update message " + message_id);
    }
    return {};
  });
}

Status SqliteStore::PutPart(const std::string& message_id, const PartRecord& part) {
  std::string row = "part " + std::to_string(part.seq) + " of message " + message_id;
  if (part.seq < 0) return MakeError("store.bad_input", row + ": seq must not be negative");
  if (part.kind.empty()) return MakeError("store.bad_input", row + ": kind is empty");
  auto data = EncodeJson(part.data, row + ": data");
  if (!data) return data.error();
  return Transact(true, [&]() -> Status {
    if (auto s = TouchThreadOf(message_id, NowMs()); !s) return s;
    auto prepared = conn_->Prepare(
        "INSERT INTO parts(message_id, seq, step, kind, key, state, open, data) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (message_id, seq) DO UPDATE SET "
        "step = excluded.step, kind = excluded.kind, key = excluded.key, "
        "state = excluded.state, open = excluded.open, data = excluded.data");
    if (!prepared) return prepared.error();
    Statement stmt(*prepared);
    stmt.Bind(1, message_id).Bind(2, part.seq).Bind(3, int64_t{part.step}).Bind(4, part.kind);
    stmt.Bind(5, part.key).Bind(6, part.state).Bind(7, int64_t{part.open ? 1 : 0}).Bind(8, *data);
    if (stmt.Step() != SQLITE_DONE) return IoError(conn_->db(), "cannot write " + row);
    return {};
  });
}

Status SqliteStore::PutStep(const std::string& message_id, const StepRecord& step) {
  std::string row = "step " + std::to_string(step.index) + " of message " + message_id;
  if (step.index < 0) return MakeError("store.bad_input", row + ": index must not be negative");
  if (auto s = OneOf(step.status, kStepStatuses, "step status"); !s) return s;
  auto detail = EncodeJson(step.detail, row + ": detail");
  if (!detail) return detail.error();
  std::string tokens = EncodeTokens(step.tokens);
  return Transact(true, [&]() -> Status {
    if (auto s = TouchThreadOf(message_id, NowMs()); !s) return s;
    auto prepared = conn_->Prepare(
        "INSERT INTO steps(message_id, idx, status, finish_reason, prompt_tokens, "
        "cached_prompt_tokens, generated_tokens, tokens, started_ms, finished_ms, detail) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) "
        "ON CONFLICT (message_id, idx) DO UPDATE SET status = excluded.status, "
        "finish_reason = excluded.finish_reason, prompt_tokens = excluded.prompt_tokens, "
        "cached_prompt_tokens = excluded.cached_prompt_tokens, "
        "generated_tokens = excluded.generated_tokens, tokens = excluded.tokens, "
        "started_ms = excluded.started_ms, finished_ms = excluded.finished_ms, "
        "detail = excluded.detail");
    if (!prepared) return prepared.error();
    Statement stmt(*prepared);
    stmt.Bind(1, message_id).Bind(2, int64_t{step.index}).Bind(3, step.status);
    stmt.Bind(4, step.finish_reason).Bind(5, step.prompt_tokens).Bind(6, step.cached_prompt_tokens);
    stmt.Bind(7, step.generated_tokens).BindBlob(8, tokens.data(), tokens.size());
    stmt.Bind(9, step.started_ms).Bind(10, step.finished_ms).Bind(11, *detail);
    if (stmt.Step() != SQLITE_DONE) return IoError(conn_->db(), "cannot write " + row);
    return {};
  });
}

int SqliteStore::SchemaVersion() {
  std::lock_guard lock(mu_);
  auto version = conn_->QueryInt("PRAGMA user_version", "cannot read the schema version");
  return version ? static_cast<int>(*version) : -1;
}

}  // namespace internal

// ---- opening ------------------------------------------------------------------------------------

Result<std::unique_ptr<Store>> OpenSqlite(const std::string& path) {
  using internal::Connection;
  if (path.empty()) return MakeError("store.open", "no path given for the store");
  bool memory = path == ":memory:";
  if (!memory) {
    // The folder is the person's data folder and the file their threads: private before SQLite
    // opens it (SQLite gives the -wal and -shm files the database file's mode).
    auto folder = std::filesystem::path(path).parent_path();
    if (!folder.empty()) {
      if (Status s = EnsurePrivateDir(folder, "store.open"); !s) return s.error();
    }
    if (Status s = EnsurePrivateFile(path, "store.open"); !s) return s.error();
  }
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  auto conn = std::make_unique<Connection>(db);  // owns `db` from here, even on failure
  if (rc != SQLITE_OK) {
    return MakeError(
        "store.open",
        std::string("cannot open the store: ") + (db ? sqlite3_errmsg(db) : "no memory"), path);
  }
  sqlite3_busy_timeout(db, 5000);
  // The first statement that reads the file tells a database from anything else.
  rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
  if (rc == SQLITE_NOTADB) {
    return MakeError("store.open", path + " is not a SQLite database", sqlite3_errmsg(db));
  }
  if (rc != SQLITE_OK) {
    return MakeError("store.open", std::string("cannot read the store: ") + sqlite3_errmsg(db),
                     path);
  }
  std::string mode;
  rc = sqlite3_exec(
      db, "PRAGMA journal_mode=WAL",
      [](void* out, int, char** values, char**) {
        *static_cast<std::string*>(out) = values[0] ? values[0] : "";
        return 0;
      },
      &mode, nullptr);
  if (rc != SQLITE_OK || (!memory && mode != "wal")) {
    return MakeError("store.open",
                     "cannot switch the store to WAL mode (journal mode is \"" + mode +
                         "\"): " + sqlite3_errmsg(db),
                     path);
  }
  if (auto s = conn->Exec("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;",
                          "cannot configure the store");
      !s) {
    return MakeError("store.open", s.error().message, path);
  }
  if (auto s = internal::Migrate(*conn, path); !s) return s.error();
  auto touch =
      conn->QueryInt("SELECT coalesce(max(touch), 0) FROM threads", "cannot read the threads");
  if (!touch) return MakeError("store.open", touch.error().message, path);
  return std::unique_ptr<Store>(std::make_unique<internal::SqliteStore>(std::move(conn), *touch));
}

}  // namespace affordance::store
