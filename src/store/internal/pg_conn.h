// The thin layer between the PostgreSQL store and libpq: an owned connection, the rows of one
// result, and parameterized queries with text parameters (PQexecParams, so values never become
// SQL). Private to src/store.
//
// Errors: a failed statement is "store.io" with `what` and the server's text, except where the
// SQLSTATE names a cause the caller can act on: a unique violation (23505) is "store.conflict",
// text the database cannot hold (22021 invalid UTF-8, 22P05, 54000 too large) is
// "store.bad_input". A parameter holding a NUL byte is "store.bad_input" before anything is sent:
// PostgreSQL's TEXT cannot hold one, and libpq would cut the value at it.
#pragma once

#include "base/result.h"

#include <libpq-fe.h>

#include <array>
#include <charconv>
#include <concepts>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace affordance::store::internal {

struct PgResultFree {
  void operator()(PGresult* r) const { PQclear(r); }
};
struct PgConnFinish {
  void operator()(PGconn* c) const { PQfinish(c); }
};
using PgResultPtr = std::unique_ptr<PGresult, PgResultFree>;
using PgConnPtr = std::unique_ptr<PGconn, PgConnFinish>;

// The rows a statement returned (text format). Column indices are 0-based.
class PgRows {
 public:
  PgRows() = default;
  explicit PgRows(PgResultPtr result) : result_(std::move(result)) {}

  int size() const { return result_ ? PQntuples(result_.get()) : 0; }
  bool empty() const { return size() == 0; }
  // Rows an UPDATE / DELETE / INSERT touched.
  int64_t affected() const;

  std::string_view Text(int row, int col) const {
    return {PQgetvalue(result_.get(), row, col),
            static_cast<size_t>(PQgetlength(result_.get(), row, col))};
  }
  std::string Str(int row, int col) const { return std::string(Text(row, col)); }
  bool Null(int row, int col) const { return PQgetisnull(result_.get(), row, col) != 0; }
  int64_t Int(int row, int col) const;
  // A BYTEA column (text format "\x0a1b..."), decoded.
  std::string Bytes(int row, int col) const;

 private:
  PgResultPtr result_;
};

// A parameter's text: integers in decimal, bools as 1 / 0 (the INT flag columns).
inline std::string PgParam(std::string_view text) { return std::string(text); }
inline std::string PgParam(const char* text) { return std::string(text); }
template <std::integral T>
std::string PgParam(T value) {
  if constexpr (std::same_as<T, bool>) {
    return value ? "1" : "0";
  } else {
    return std::to_string(value);
  }
}

// BYTEA as a text parameter ("\x" + hex).
std::string PgBytesParam(std::string_view bytes);

// The connection URI with its password (user:password@, password=...) replaced by "***": what
// errors may show.
std::string RedactUri(const std::string& uri);

// The SQLSTATE of a failed result, "" when there is none (the connection broke).
std::string_view SqlState(const PGresult* result);

// One statement of a flight (PgConn::RunAll): its SQL, its text parameters, and what its error
// says it was doing.
struct PgStatement {
  std::string_view sql;
  std::vector<std::string> params;
  std::string what;
};

// Owns one libpq connection. Not thread-safe: the store serializes every use behind its mutex.
class PgConn {
 public:
  // Connects (blocking, at most 10 seconds unless the URI sets connect_timeout). Errors:
  // "store.open" with libpq's text; the URI is shown without its password.
  static Result<std::unique_ptr<PgConn>> Connect(const std::string& uri);
  // The same connection parameters, started without blocking (PQconnectStart); nullptr when
  // libpq is out of memory. The LISTEN thread drives it with PQconnectPoll.
  static PgConnPtr StartConnect(const std::string& uri);

  explicit PgConn(PgConnPtr conn) : conn_(std::move(conn)) {}

  PGconn* get() const { return conn_.get(); }
  // Gives the connection up (the LISTEN thread drives it with libpq's own calls).
  PgConnPtr Release() { return std::move(conn_); }
  bool broken() const { return PQstatus(conn_.get()) == CONNECTION_BAD; }
  // libpq's last error on this connection, without its trailing newline.
  std::string LastError() const;
  // Reconnects with the same parameters (PQreset); false when the server is still unreachable.
  bool Reset();
  // Inside a transaction block (idle or failed), or not.
  bool InTransaction() const;
  bool TransactionFailed() const;

  // Runs one or more statements without parameters (BEGIN, COMMIT, DDL).
  Status Exec(const std::string& sql, const std::string& what);

  // Runs one statement with text parameters $1..$n. Each distinct `sql` is prepared once per
  // session (PQprepare) and executed by name after that, so the server parses and plans the
  // store's statements once, not on every call.
  Result<PgRows> Run(std::string_view sql, std::span<const std::string> params,
                     const std::string& what);
  template <class... Args>
  Result<PgRows> Query(std::string_view sql, const std::string& what, const Args&... args) {
    std::array<std::string, sizeof...(Args)> params{PgParam(args)...};
    return Run(sql, params, what);
  }

  // Runs `statements` in order in one round trip (libpq pipeline mode), each prepared as Run's
  // are; one result per statement, in order. Every statement is sent before any result is read,
  // so a later one runs whatever an earlier one returned: use it inside a transaction that the
  // caller rolls back when a result says the work must not stand. After a failed statement the
  // server skips the rest (their results are "store.io", not run); a statement with a NUL
  // parameter fails as Run's does, and nothing from it on is sent.
  std::vector<Result<PgRows>> RunAll(std::span<const PgStatement> statements);

 private:
  // The error for a failed `result` (or none: the connection broke), per the file comment.
  Error ErrorOf(const PGresult* result, const std::string& what) const;

  PgConnPtr conn_;
  // SQL text -> the name it was prepared under in this session (cleared by Reset: a new session
  // has none). The store's statements are a fixed set, so this stays small.
  std::unordered_map<std::string, std::string> prepared_;
  int64_t names_ = 0;  // statements named so far in this process (names stay unique across Reset)
};

}  // namespace affordance::store::internal
