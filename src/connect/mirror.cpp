#include "connect/mirror.h"

#include "base/private_files.h"

#include <sqlite3.h>

#include <filesystem>

namespace affordance::connect {

namespace {
constexpr const char* kSyncTable =
    "CREATE TABLE IF NOT EXISTS affordance_sync(id INTEGER PRIMARY KEY CHECK (id = 1), "
    "synced_at INTEGER NOT NULL, rows INTEGER NOT NULL, source TEXT NOT NULL, "
    "duration_ms INTEGER NOT NULL);";
}  // namespace

Status Exec(sqlite3* db, const std::string& sql) {
  char* msg = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
    std::string text = msg ? msg : sqlite3_errmsg(db);
    sqlite3_free(msg);
    return MakeError("connect.mirror_write_failed", "cannot write the mirror: " + text);
  }
  return {};
}

SyncRecord ReadSyncRecord(const std::string& path) {
  SyncRecord record;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return record;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 2000);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT synced_at, rows, source, duration_ms FROM affordance_sync",
                           -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
      record.synced = true;
      record.synced_at = sqlite3_column_int64(stmt, 0);
      record.rows = sqlite3_column_int64(stmt, 1);
      auto* src = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 2));
      record.source = src ? src : "";
      record.duration_ms = sqlite3_column_int64(stmt, 3);
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return record;
}

Result<MirrorWriter> MirrorWriter::Open(const std::string& path, const std::string& schema) {
  // A mirror holds the connector's rows: private like the rest of the data folder, before SQLite
  // opens it (its -wal and -shm take the database file's mode).
  auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    if (Status s = EnsurePrivateDir(parent, "connect.mirror_write_failed"); !s) return s.error();
  }
  if (Status s = EnsurePrivateFile(path, "connect.mirror_write_failed"); !s) return s.error();
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return MakeError("connect.mirror_write_failed", "cannot open the mirror for writing: " + msg,
                     path);
  }
  MirrorWriter writer(db);
  sqlite3_busy_timeout(db, 10000);
  if (auto s = Exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"); !s)
    return s.error();
  if (auto s = Exec(db, std::string(kSyncTable) + schema); !s) return s.error();
  return writer;
}

MirrorWriter::MirrorWriter(MirrorWriter&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }

MirrorWriter::~MirrorWriter() {
  if (db_) sqlite3_close_v2(db_);
}

Result<int64_t> MirrorWriter::Replace(const std::function<Result<int64_t>(sqlite3*)>& fill,
                                      int64_t synced_at, const std::string& source,
                                      std::chrono::steady_clock::time_point started) {
  if (auto s = Exec(db_, "BEGIN IMMEDIATE"); !s) return s.error();
  Result<int64_t> rows = MakeError("connect.sync_failed", "sync did not run");
  try {
    rows = fill(db_);
  } catch (const std::exception& e) {
    rows = MakeError("connect.sync_failed", std::string("sync failed: ") + e.what());
  }
  if (!rows) {
    (void)Exec(db_, "ROLLBACK");
    return rows.error();
  }
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db_,
                     "INSERT OR REPLACE INTO affordance_sync(id, synced_at, rows, source, "
                     "duration_ms) VALUES (1, ?, ?, ?, ?)",
                     -1, &stmt, nullptr);
  sqlite3_bind_int64(stmt, 1, synced_at);
  sqlite3_bind_int64(stmt, 2, *rows);
  sqlite3_bind_text(stmt, 3, source.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(stmt, 4,
                     std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::steady_clock::now() - started)
                         .count());
  int rc = sqlite3_step(stmt);
  sqlite3_finalize(stmt);
  if (rc != SQLITE_DONE) {
    (void)Exec(db_, "ROLLBACK");
    return MakeError("connect.mirror_write_failed", "cannot record the sync", sqlite3_errmsg(db_));
  }
  if (auto s = Exec(db_, "COMMIT"); !s) {
    (void)Exec(db_, "ROLLBACK");
    return s.error();
  }
  return rows;
}

}  // namespace affordance::connect
