#include "store/internal/pg_conn.h"

#include <optional>
#include <vector>

namespace affordance::store::internal {

namespace {

constexpr char kHex[] = "0123456789abcdef";

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Keywords given before the URI are defaults its own settings override (expand_dbname):
// connect_timeout keeps a call from hanging on an unreachable host; the application name shows
// the store's connections in pg_stat_activity. After it, what the store needs: UTF-8 text both
// ways, whatever the URI or the environment says (the store's strings are UTF-8).
constexpr const char* kKeywords[] = {"connect_timeout", "application_name", "dbname",
                                     "client_encoding", nullptr};

std::array<const char*, 5> Values(const std::string& uri) {
  return {"10", "affordance", uri.c_str(), "UTF8", nullptr};
}

// Server notices (a NOTICE from CREATE ... IF NOT EXISTS, the FATAL of a terminated connection
// arriving while idle) would go to stderr by default: the store reports through its errors only.
void Quiet(PGconn* conn) {
  if (conn)
    PQsetNoticeProcessor(
        conn, [](void*, const char*) {}, nullptr);
}

std::string TrimmedMessage(const char* text) {
  std::string s = text ? text : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s.empty() ? "no message from the server" : s;
}

}  // namespace

int64_t PgRows::affected() const {
  const char* n = result_ ? PQcmdTuples(result_.get()) : "";
  int64_t v = 0;
  std::from_chars(n, n + std::char_traits<char>::length(n), v);
  return v;
}

int64_t PgRows::Int(int row, int col) const {
  std::string_view t = Text(row, col);
  int64_t v = 0;
  std::from_chars(t.data(), t.data() + t.size(), v);
  return v;
}

std::string PgRows::Bytes(int row, int col) const {
  std::string_view t = Text(row, col);
  if (t.size() < 2 || t[0] != '\\' || t[1] != 'x') return {};  // bytea_output is hex (default)
  std::string out;
  out.reserve((t.size() - 2) / 2);
  for (size_t i = 2; i + 1 < t.size(); i += 2) {
    out += static_cast<char>(HexDigit(t[i]) << 4 | HexDigit(t[i + 1]));
  }
  return out;
}

std::string PgBytesParam(std::string_view bytes) {
  std::string out = "\\x";
  out.reserve(2 + bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

std::string RedactUri(const std::string& uri) {
  std::string out = uri;
  // user:password@ in the authority part.
  if (size_t scheme = out.find("://"); scheme != std::string::npos) {
    size_t start = scheme + 3;
    size_t end = out.find_first_of("/?", start);
    size_t at = out.rfind('@', end == std::string::npos ? out.size() : end);
    if (at != std::string::npos && at >= start) {
      size_t colon = out.find(':', start);
      if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
    }
  }
  // password=... as a query parameter.
  for (size_t p = out.find("password="); p != std::string::npos; p = out.find("password=", p + 1)) {
    size_t value = p + 9;
    size_t end = out.find_first_of("& ", value);  // URI parameter or conninfo keyword
    out.replace(value, (end == std::string::npos ? out.size() : end) - value, "***");
  }
  return out;
}

std::string_view SqlState(const PGresult* result) {
  const char* state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  return state ? state : "";
}

Result<std::unique_ptr<PgConn>> PgConn::Connect(const std::string& uri) {
  auto values = Values(uri);
  PgConnPtr conn(PQconnectdbParams(kKeywords, values.data(), /*expand_dbname=*/1));
  if (!conn) return MakeError("store.open", "cannot connect to PostgreSQL: out of memory");
  Quiet(conn.get());
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    return MakeError("store.open",
                     "cannot connect to PostgreSQL: " + TrimmedMessage(PQerrorMessage(conn.get())),
                     RedactUri(uri));
  }
  return std::make_unique<PgConn>(std::move(conn));
}

PgConnPtr PgConn::StartConnect(const std::string& uri) {
  auto values = Values(uri);
  PgConnPtr conn(PQconnectStartParams(kKeywords, values.data(), /*expand_dbname=*/1));
  Quiet(conn.get());
  return conn;
}

std::string PgConn::LastError() const { return TrimmedMessage(PQerrorMessage(conn_.get())); }

bool PgConn::Reset() {
  prepared_.clear();
  PQreset(conn_.get());
  return PQstatus(conn_.get()) == CONNECTION_OK;
}

bool PgConn::InTransaction() const {
  auto s = PQtransactionStatus(conn_.get());
  return s == PQTRANS_INTRANS || s == PQTRANS_INERROR || s == PQTRANS_ACTIVE;
}

bool PgConn::TransactionFailed() const {
  return PQtransactionStatus(conn_.get()) == PQTRANS_INERROR;
}

Error PgConn::ErrorOf(const PGresult* result, const std::string& what) const {
  std::string text = TrimmedMessage(result ? PQresultErrorMessage(result) : nullptr);
  if (!result || text == "no message from the server") {
    text = LastError();
  }
  std::string_view state = SqlState(result);
  std::string message = what + ": " + text;
  if (state == "23505") return MakeError(ErrorKind::kConflict, "store.conflict", message);
  if (state == "22021" || state == "22P05" || state == "54000") {
    return MakeError(ErrorKind::kInvalid, "store.bad_input", message);
  }
  // A broken connection (the server restarted, the network dropped) is worth retrying later.
  ErrorKind kind =
      PQstatus(conn_.get()) == CONNECTION_BAD ? ErrorKind::kUnavailable : ErrorKind::kInternal;
  return MakeError(kind, "store.io", message, std::string(state));
}

Status PgConn::Exec(const std::string& sql, const std::string& what) {
  PgResultPtr result(PQexec(conn_.get(), sql.c_str()));
  auto status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) return ErrorOf(result.get(), what);
  return {};
}

namespace {

// The parameters as libpq takes them; "store.bad_input" when one holds a NUL byte (see the header).
Result<std::vector<const char*>> ParamValues(std::span<const std::string> params,
                                             const std::string& what) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const std::string& p : params) {
    if (p.find('\0') != std::string::npos) {
      return MakeError(ErrorKind::kInvalid, "store.bad_input",
                       what + ": a text value holds a NUL byte, which PostgreSQL cannot store");
    }
    values.push_back(p.c_str());
  }
  return values;
}

bool Succeeded(const PGresult* result) {
  auto status = result ? PQresultStatus(result) : PGRES_FATAL_ERROR;
  return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
}

}  // namespace

Result<PgRows> PgConn::Run(std::string_view sql, std::span<const std::string> params,
                           const std::string& what) {
  auto values = ParamValues(params, what);
  if (!values) return values.error();
  std::string text(sql);
  auto it = prepared_.find(text);
  if (it == prepared_.end()) {
    std::string name = "affordance_" + std::to_string(names_++);
    PgResultPtr made(PQprepare(conn_.get(), name.c_str(), text.c_str(),
                               static_cast<int>(values->size()), nullptr));
    if (!made || PQresultStatus(made.get()) != PGRES_COMMAND_OK) return ErrorOf(made.get(), what);
    it = prepared_.emplace(std::move(text), std::move(name)).first;
  }
  PgResultPtr result(PQexecPrepared(conn_.get(), it->second.c_str(),
                                    static_cast<int>(values->size()), values->data(), nullptr,
                                    nullptr, /*resultFormat=*/0));
  if (!Succeeded(result.get())) return ErrorOf(result.get(), what);
  return PgRows(std::move(result));
}

std::vector<Result<PgRows>> PgConn::RunAll(std::span<const PgStatement> statements) {
  std::vector<Result<PgRows>> results;
  if (statements.empty()) return results;
  if (PQenterPipelineMode(conn_.get()) != 1) {
    for (const PgStatement& st : statements) results.push_back(ErrorOf(nullptr, st.what));
    return results;
  }
  // What was sent, in order: a PQsendPrepare (its SQL, to remember the name once it succeeds) or
  // the execution of statement i.
  struct Sent {
    size_t statement;
    std::string prepared;  // the SQL of a PQsendPrepare; empty for an execution
    std::string name;
  };
  std::vector<Sent> sent;
  std::unordered_map<std::string, std::string> naming;  // SQL -> name, prepared in this flight
  const Error skipped = MakeError("store.io", "not run: an earlier statement failed");
  std::optional<Error> stopped;  // why statement `count` was not sent
  size_t count = 0;              // statements sent
  for (; count < statements.size(); ++count) {
    const PgStatement& st = statements[count];
    auto values = ParamValues(st.params, st.what);
    if (!values) {
      stopped = values.error();
      break;
    }
    std::string text(st.sql);
    std::string name;
    if (auto it = prepared_.find(text); it != prepared_.end()) {
      name = it->second;
    } else if (auto it = naming.find(text); it != naming.end()) {
      name = it->second;
    } else {
      name = "affordance_" + std::to_string(names_++);
      if (PQsendPrepare(conn_.get(), name.c_str(), text.c_str(), static_cast<int>(values->size()),
                        nullptr) != 1) {
        stopped = ErrorOf(nullptr, st.what);
        break;
      }
      sent.push_back({count, text, name});
      naming.emplace(text, name);
    }
    if (PQsendQueryPrepared(conn_.get(), name.c_str(), static_cast<int>(values->size()),
                            values->data(), nullptr, nullptr, /*resultFormat=*/0) != 1) {
      stopped = ErrorOf(nullptr, st.what);
      break;
    }
    sent.push_back({count, "", ""});
  }
  // The sync point ends the flight: the server answers everything before it, skipping what
  // follows a failed statement.
  const bool synced = PQpipelineSync(conn_.get()) == 1;
  for (size_t i = 0; i < statements.size(); ++i) {
    results.push_back(stopped && i == count ? *stopped : skipped);
  }
  bool lost = !synced;
  std::vector<bool> failed(statements.size(), false);
  for (const Sent& s : sent) {
    const std::string& what = statements[s.statement].what;
    PgResultPtr result(lost ? nullptr : PQgetResult(conn_.get()));
    if (!result) {
      lost = true;  // the connection broke: no more results come
      if (!failed[s.statement]) results[s.statement] = ErrorOf(nullptr, what);
      failed[s.statement] = true;
      continue;
    }
    while (PGresult* extra = PQgetResult(conn_.get())) PQclear(extra);  // to its end (a NULL)
    if (!Succeeded(result.get())) {
      // A statement the server skipped keeps `skipped`: the failure before it is its cause.
      if (!failed[s.statement] && PQresultStatus(result.get()) != PGRES_PIPELINE_ABORTED) {
        results[s.statement] = ErrorOf(result.get(), what);
      }
      failed[s.statement] = true;
    } else if (!s.prepared.empty()) {
      prepared_.emplace(s.prepared, s.name);
    } else if (!failed[s.statement]) {
      results[s.statement] = PgRows(std::move(result));
    }
  }
  if (!lost) {
    PgResultPtr sync(PQgetResult(conn_.get()));  // PGRES_PIPELINE_SYNC
  }
  (void)PQexitPipelineMode(conn_.get());  // fails only on a broken connection; Reset clears it
  return results;
}

}  // namespace affordance::store::internal
