#include "store/internal/sqlite.h"

namespace affordance::store::internal {

Error IoError(sqlite3* db, const std::string& what) {
  return MakeError("store.io", what + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

Statement::~Statement() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

Statement& Statement::Bind(int i, int64_t value) {
  sqlite3_bind_int64(stmt_, i, value);
  return *this;
}

Statement& Statement::Bind(int i, std::string_view text) {
  // A non-null pointer even for "" so the column holds '' and not NULL.
  sqlite3_bind_text(stmt_, i, text.empty() ? "" : text.data(), static_cast<int>(text.size()),
                    SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::BindBlob(int i, const void* data, size_t size) {
  if (size == 0) {
    sqlite3_bind_zeroblob(stmt_, i, 0);  // x'' rather than NULL
  } else {
    sqlite3_bind_blob(stmt_, i, data, static_cast<int>(size), SQLITE_TRANSIENT);
  }
  return *this;
}

std::string_view Statement::Text(int col) const {
  auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
  if (!p) return {};
  return {p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col))};
}

std::string_view Statement::Blob(int col) const {
  auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, col));
  if (!p) return {};
  return {p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col))};
}

Connection::~Connection() {
  for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
  if (db_) sqlite3_close_v2(db_);
}

Status Connection::Exec(const std::string& sql, const std::string& what) {
  char* msg = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
    std::string text = msg ? msg : sqlite3_errmsg(db_);
    sqlite3_free(msg);
    return MakeError("store.io", what + ": " + text);
  }
  return {};
}

Result<sqlite3_stmt*> Connection::Prepare(std::string_view sql) {
  if (auto it = cache_.find(sql); it != cache_.end()) return it->second;
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                         &stmt, nullptr) != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return IoError(db_, "cannot prepare \"" + std::string(sql) + "\"");
  }
  cache_.emplace(sql, stmt);
  return stmt;
}

Result<int64_t> Connection::QueryInt(std::string_view sql, const std::string& what) {
  auto prepared = Prepare(sql);
  if (!prepared) return prepared.error();
  Statement stmt(*prepared);
  if (stmt.Step() != SQLITE_ROW) return IoError(db_, what);
  return stmt.Int(0);
}

}  // namespace affordance::store::internal
