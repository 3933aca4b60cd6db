// The thin layer between the store and the SQLite C API: an owned connection, a cache of prepared
// statements, and a borrowed statement that resets itself when it goes out of scope. Private to
// src/store.
#pragma once

#include "base/result.h"

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace affordance::store::internal {

// "store.io" with `what` and SQLite's own text for the last failure on `db`.
Error IoError(sqlite3* db, const std::string& what);

// A prepared statement borrowed from the connection's cache. Binding indices are 1-based, column
// indices 0-based (as in SQLite). Destruction resets the statement and clears its bindings, so
// the next user finds it fresh and no read transaction is kept open by a half-stepped SELECT.
class Statement {
 public:
  explicit Statement(sqlite3_stmt* stmt) : stmt_(stmt) {}
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& Bind(int i, int64_t value);
  Statement& Bind(int i, std::string_view text);
  Statement& BindBlob(int i, const void* data, size_t size);

  // SQLITE_ROW, SQLITE_DONE or an error code.
  int Step() { return sqlite3_step(stmt_); }

  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  std::string_view Text(int col) const;
  std::string_view Blob(int col) const;

 private:
  sqlite3_stmt* stmt_;
};

// Owns one sqlite3 connection and its prepared statements. Not thread-safe: the store serializes
// every use behind its own mutex.
class Connection {
 public:
  Connection() = default;
  explicit Connection(sqlite3* db) : db_(db) {}
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  sqlite3* db() const { return db_; }

  // Runs one or more statements that return no rows we need (DDL, pragmas, BEGIN/COMMIT).
  Status Exec(const std::string& sql, const std::string& what);

  // The cached statement for `sql`, preparing it on first use. `sql` must outlive the connection
  // (the cache keys on it; string literals are the intended use).
  Result<sqlite3_stmt*> Prepare(std::string_view sql);

  // A single integer result (PRAGMA user_version, SELECT count(*) ...).
  Result<int64_t> QueryInt(std::string_view sql, const std::string& what);

 private:
  sqlite3* db_ = nullptr;
  std::unordered_map<std::string_view, sqlite3_stmt*> cache_;
};

}  // namespace affordance::store::internal
