// SELECT-only SQL against a connector's mirror, enforced by SQLite itself.
//
// A SqlGuard owns one read-only connection (SQLITE_OPEN_READONLY, defensive mode, no extension
// loading, untrusted schema, ATTACH limit 0). Every statement is prepared under an authorizer that
// allows only reads, functions, recursive CTEs and introspection pragmas, in the PRAGMA statement
// form or as table-valued functions (pragma_table_info('t')) alike (state-changing pragmas,
// writes, DDL, ATTACH/DETACH, transactions and savepoints are denied); the prepared statement must
// also pass sqlite3_stmt_readonly. Exactly one statement per call: trailing text that prepares to
// another statement is refused. Execution is bounded by a progress-handler time limit, a row limit,
// a byte budget on collected values and SQLite's own length limits (huge blobs/strings fail with
// "connect.sql_too_big"). Nothing here inspects the SQL text itself; SQLite decides.
//
// Error codes: connect.sql_empty, connect.sql_too_long, connect.sql_multiple_statements,
// connect.sql_denied (authorizer; the message names what was denied), connect.sql_not_read_only,
// connect.sql_timeout, connect.sql_too_big, connect.sql_error (syntax, unknown table, ...),
// connect.mirror_missing, connect.mirror_unreadable.
//
// Thread safety: a SqlGuard is used by one thread at a time; open one per worker.
#pragma once

#include "base/result.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct sqlite3;

namespace affordance::connect {

struct GuardLimits {
  int64_t max_rows = 1000;             // rows collected; more sets `truncated`
  int64_t time_limit_ms = 2000;        // wall clock per statement (progress handler)
  int64_t max_sql_bytes = 100000;      // statement text
  int64_t max_value_bytes = 1 << 20;   // SQLITE_LIMIT_LENGTH: any string or blob
  int64_t max_result_bytes = 8 << 20;  // collected cell bytes; more sets `truncated`
};

struct QueryRows {
  std::vector<std::string> columns;  // unique names, in order ("a", "a:2" for duplicates)
  std::vector<nlohmann::json> rows;  // one JSON object per row
  bool truncated = false;            // stopped by max_rows or max_result_bytes
  std::string truncated_reason;      // "max_rows" | "max_result_bytes"
};

class SqlGuard {
 public:
  // Opens `path` read-only. The file must exist ("connect.mirror_missing").
  static Result<std::unique_ptr<SqlGuard>> Open(const std::string& path, GuardLimits limits = {});
  ~SqlGuard();
  SqlGuard(const SqlGuard&) = delete;
  SqlGuard& operator=(const SqlGuard&) = delete;

  // Runs one SELECT. Named parameters (:name, @name, $name) are bound from `params` (an object;
  // JSON strings, numbers, booleans and null); unbound parameters are NULL. Text that is not valid
  // UTF-8 comes back with U+FFFD; blobs come back as {"blob_bytes": n, "hex": <first 32 bytes>}.
  Result<QueryRows> Run(const std::string& sql,
                        const nlohmann::json& params = nlohmann::json::object());

  // Prepares `sql` under the same rules without running it (used before handing SQL to a printed
  // CLI's own `sql` verb).
  Status Check(const std::string& sql);

  const GuardLimits& limits() const { return limits_; }

 private:
  SqlGuard(sqlite3* db, GuardLimits limits) : db_(db), limits_(limits) {}
  struct Prepared;
  Result<Prepared> Prepare(const std::string& sql);

  sqlite3* db_;
  GuardLimits limits_;
  std::string denied_;       // what the authorizer refused during the last prepare
  int64_t deadline_ns_ = 0;  // steady clock; 0 = none
  bool timed_out_ = false;
  friend int GuardAuthorizer(void*, int, const char*, const char*, const char*, const char*);
  friend int GuardProgress(void*);
};

// Replaces invalid UTF-8 sequences with U+FFFD so the text always serializes as JSON.
std::string ValidUtf8(std::string_view text);

}  // namespace affordance::connect
