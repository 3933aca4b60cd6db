#include "connect/sql_guard.h"

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <filesystem>
#include <map>
#include <string_view>

namespace affordance::connect {

using nlohmann::json;

namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Pragmas that only describe the schema or the build, whatever their argument.
constexpr std::array<std::string_view, 12> kIntrospection = {
    "table_info",    "table_xinfo", "table_list",       "index_list",
    "index_info",    "index_xinfo", "foreign_key_list", "collation_list",
    "function_list", "module_list", "pragma_list",      "compile_options"};
// Pragmas that read state when given no argument (with an argument they change it).
constexpr std::array<std::string_view, 8> kReadWithoutArgument = {
    "user_version", "schema_version", "application_id", "page_count",
    "page_size",    "encoding",       "freelist_count", "data_version"};

template <size_t N>
bool In(const std::array<std::string_view, N>& set, const char* name) {
  if (!name) return false;
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return std::find(set.begin(), set.end(), lower) != set.end();
}

std::string ActionName(int action, const char* a, const char* b) {
  auto s = [](const char* p) { return std::string(p ? p : ""); };
  switch (action) {
    case SQLITE_INSERT:
      return "INSERT into " + s(a);
    case SQLITE_UPDATE:
      return "UPDATE of " + s(a);
    case SQLITE_DELETE:
      return "DELETE from " + s(a);
    case SQLITE_ATTACH:
      return "ATTACH";
    case SQLITE_DETACH:
      return "DETACH";
    case SQLITE_TRANSACTION:
      return "transaction control (" + s(a) + ")";
    case SQLITE_SAVEPOINT:
      return "SAVEPOINT";
    case SQLITE_PRAGMA:
      return "PRAGMA " + s(a) + (b ? "=" + s(b) : "");
    case SQLITE_ALTER_TABLE:
      return "ALTER TABLE";
    case SQLITE_ANALYZE:
      return "ANALYZE";
    case SQLITE_REINDEX:
      return "REINDEX";
    case SQLITE_CREATE_VTABLE:
    case SQLITE_DROP_VTABLE:
      return "virtual table DDL";
    default:
      break;
  }
  if (action >= SQLITE_CREATE_INDEX && action <= SQLITE_DROP_VIEW) return "schema change (DDL)";
  return "action " + std::to_string(action);
}

std::string Hex(const unsigned char* p, int n) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += digits[p[i] >> 4];
    out += digits[p[i] & 15];
  }
  return out;
}

Status BindParams(sqlite3_stmt* stmt, const json& params) {
  int n = sqlite3_bind_parameter_count(stmt);
  for (int i = 1; i <= n; ++i) {
    const char* name = sqlite3_bind_parameter_name(stmt, i);
    if (!name || !params.is_object()) continue;  // positional '?' stays NULL
    auto it = params.find(name + 1);
    if (it == params.end()) continue;
    const json& v = *it;
    int rc = SQLITE_OK;
    if (v.is_string()) {
      const auto& s = v.get_ref<const std::string&>();
      rc = sqlite3_bind_text(stmt, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
    } else if (v.is_boolean()) {
      rc = sqlite3_bind_int(stmt, i, v.get<bool>() ? 1 : 0);
    } else if (v.is_number_integer()) {
      rc = sqlite3_bind_int64(stmt, i, v.get<int64_t>());
    } else if (v.is_number()) {
      rc = sqlite3_bind_double(stmt, i, v.get<double>());
    } else if (!v.is_null()) {
      std::string text = v.dump();
      rc = sqlite3_bind_text(stmt, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    }
    if (rc != SQLITE_OK) {
      return MakeError("connect.sql_too_big", "a query argument is too large", name);
    }
  }
  return {};
}

// SQLite's printf('%.Nc', ...) runs for time linear in N inside one VM step, where neither the
// progress handler nor the length limit can stop it. The guard's connection replaces printf and
// format with this wrapper: any width or precision over the length limit is refused as too big,
// everything else is delegated to the built-in printf on a private in-memory connection.
struct PrintfDelegate {
  sqlite3* mem = nullptr;
  std::map<int, sqlite3_stmt*> by_arity;
  int64_t limit = 0;
  ~PrintfDelegate() {
    for (auto& [n, st] : by_arity) sqlite3_finalize(st);
    sqlite3_close(mem);
  }
};

// The largest width or precision the format asks for (literal digits or '*' arguments).
int64_t LargestField(const std::string& fmt, sqlite3_value** argv, int argc) {
  int64_t largest = 0;
  int arg = 1;
  auto number = [&](size_t& i) -> int64_t {
    if (i < fmt.size() && fmt[i] == '*') {
      ++i;
      int64_t v = arg < argc ? sqlite3_value_int64(argv[arg]) : 0;
      ++arg;
      return v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v;
    }
    int64_t v = 0;
    while (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9') {
      v = std::min<int64_t>(v * 10 + (fmt[i] - '0'), int64_t{1} << 40);
      ++i;
    }
    return v;
  };
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') continue;
    ++i;
    if (i < fmt.size() && fmt[i] == '%') continue;
    while (i < fmt.size() && std::string_view("-+ 0#!,").find(fmt[i]) != std::string_view::npos)
      ++i;
    largest = std::max(largest, number(i));
    if (i < fmt.size() && fmt[i] == '.') {
      ++i;
      largest = std::max(largest, number(i));
    }
    while (i < fmt.size() && fmt[i] == 'l') ++i;
    ++arg;  // the conversion's own argument
  }
  return largest;
}

void GuardedPrintf(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  auto* d = static_cast<PrintfDelegate*>(sqlite3_user_data(ctx));
  if (argc < 1) return sqlite3_result_null(ctx);
  const char* fmt = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
  if (!fmt) return sqlite3_result_null(ctx);
  if (LargestField(fmt, argv, argc) > d->limit) return sqlite3_result_error_toobig(ctx);
  sqlite3_stmt*& st = d->by_arity[argc];
  if (!st) {
    std::string sql = "SELECT printf(";
    for (int i = 1; i <= argc; ++i) sql += (i > 1 ? ",?" : "?") + std::to_string(i);
    sql += ")";
    if (sqlite3_prepare_v2(d->mem, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
      return sqlite3_result_error(ctx, sqlite3_errmsg(d->mem), -1);
    }
  }
  sqlite3_reset(st);
  for (int i = 0; i < argc; ++i) sqlite3_bind_value(st, i + 1, argv[i]);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    sqlite3_result_value(ctx, sqlite3_column_value(st, 0));
  } else if ((rc & 0xff) == SQLITE_TOOBIG) {
    sqlite3_result_error_toobig(ctx);
  } else {
    sqlite3_result_error(ctx, sqlite3_errmsg(d->mem), -1);
  }
  sqlite3_reset(st);
}

void InstallGuardedPrintf(sqlite3* db, int64_t limit) {
  auto d = std::make_unique<PrintfDelegate>();
  d->limit = limit;
  sqlite3_open_v2(":memory:", &d->mem, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, nullptr);
  sqlite3_limit(d->mem, SQLITE_LIMIT_LENGTH, static_cast<int>(limit));
  PrintfDelegate* raw = d.release();
  int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC;
  sqlite3_create_function_v2(db, "format", -1, flags, raw, GuardedPrintf, nullptr, nullptr,
                             nullptr);
  sqlite3_create_function_v2(db, "printf", -1, flags, raw, GuardedPrintf, nullptr, nullptr,
                             [](void* p) { delete static_cast<PrintfDelegate*>(p); });
}

// Table-valued pragmas (`SELECT * FROM pragma_table_info('t')`) are eponymous virtual tables:
// the first statement that names one in a connection sets up its table in the in-memory schema,
// which SQLite authorizes as an UPDATE of sqlite_master, although nothing is written. Setting
// them all up here, before the authorizer is installed, leaves only what matters to authorize
// later: the pragma itself (name and argument), which the table runs when the query steps and
// which goes through the same rules as the PRAGMA statement form.
void ConnectPragmaTables(sqlite3* db) {
  std::vector<std::string> names;
  sqlite3_stmt* list = nullptr;
  if (sqlite3_prepare_v2(db, "PRAGMA pragma_list", -1, &list, nullptr) == SQLITE_OK) {
    while (sqlite3_step(list) == SQLITE_ROW) {
      const unsigned char* name = sqlite3_column_text(list, 0);
      if (name) names.emplace_back(reinterpret_cast<const char*>(name));
    }
  }
  sqlite3_finalize(list);
  for (const std::string& name : names) {
    // Pragmas that return no rows have no table; their prepare fails and that is fine.
    sqlite3_stmt* probe = nullptr;
    const std::string sql = "SELECT * FROM pragma_" + name;
    sqlite3_prepare_v2(db, sql.c_str(), -1, &probe, nullptr);
    sqlite3_finalize(probe);
  }
}

}  // namespace

int GuardAuthorizer(void* self, int action, const char* a, const char* b, const char*,
                    const char*) {
  auto* guard = static_cast<SqlGuard*>(self);
  switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_FUNCTION:
    case SQLITE_RECURSIVE:
      return SQLITE_OK;
    case SQLITE_PRAGMA:
      if (In(kIntrospection, a) || (b == nullptr && In(kReadWithoutArgument, a))) return SQLITE_OK;
      break;
    default:
      break;
  }
  if (guard->denied_.empty()) guard->denied_ = ActionName(action, a, b);
  return SQLITE_DENY;
}

int GuardProgress(void* self) {
  auto* guard = static_cast<SqlGuard*>(self);
  if (guard->deadline_ns_ != 0 && NowNs() > guard->deadline_ns_) {
    guard->timed_out_ = true;
    return 1;
  }
  return 0;
}

std::string ValidUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = len > 0 && i + len <= s.size();
    uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
    for (size_t k = 1; ok && k < len; ++k) {
      unsigned char d = static_cast<unsigned char>(s[i + k]);
      ok = (d & 0xC0) == 0x80;
      cp = (cp << 6) | (d & 0x3F);
    }
    if (ok && len > 1) {
      static const uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
      ok = cp >= kMin[len] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
    }
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      i += 1;
    }
  }
  return out;
}

struct SqlGuard::Prepared {
  sqlite3_stmt* stmt = nullptr;
  ~Prepared() { sqlite3_finalize(stmt); }
  Prepared() = default;
  Prepared(Prepared&& o) noexcept : stmt(o.stmt) { o.stmt = nullptr; }
  Prepared& operator=(Prepared&&) = delete;
};

Result<std::unique_ptr<SqlGuard>> SqlGuard::Open(const std::string& path, GuardLimits limits) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return MakeError("connect.mirror_missing", "the mirror database does not exist", path);
  }
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return MakeError("connect.mirror_unreadable", "cannot open the mirror: " + msg, path);
  }
  std::unique_ptr<SqlGuard> guard(new SqlGuard(db, limits));
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, 2000);
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, static_cast<int>(limits.max_value_bytes));
  sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, static_cast<int>(limits.max_sql_bytes));
  sqlite3_limit(db, SQLITE_LIMIT_EXPR_DEPTH, 200);
  sqlite3_limit(db, SQLITE_LIMIT_COMPOUND_SELECT, 100);
  sqlite3_limit(db, SQLITE_LIMIT_FUNCTION_ARG, 100);
  sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 10000);
  InstallGuardedPrintf(db, limits.max_value_bytes);
  // Read the schema once so a broken or non-SQLite file fails here, not at the first query.
  rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) {
    return MakeError("connect.mirror_unreadable",
                     std::string("cannot read the mirror: ") + sqlite3_errmsg(db), path);
  }
  ConnectPragmaTables(db);
  sqlite3_set_authorizer(db, GuardAuthorizer, guard.get());
  sqlite3_progress_handler(db, 1000, GuardProgress, guard.get());
  return guard;
}

SqlGuard::~SqlGuard() { sqlite3_close_v2(db_); }

Result<SqlGuard::Prepared> SqlGuard::Prepare(const std::string& sql) {
  if (static_cast<int64_t>(sql.size()) > limits_.max_sql_bytes) {
    return MakeError("connect.sql_too_long", "the statement is longer than " +
                                                 std::to_string(limits_.max_sql_bytes) + " bytes");
  }
  Prepared p;
  const char* tail = nullptr;
  denied_.clear();
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), 0, &p.stmt, &tail);
  if (rc != SQLITE_OK) {
    if (!denied_.empty()) {
      return MakeError("connect.sql_denied",
                       "only SELECT is allowed against a mirror; refused " + denied_);
    }
    if ((rc & 0xff) == SQLITE_TOOBIG) {
      return MakeError("connect.sql_too_big", "the statement exceeds SQLite's limits",
                       sqlite3_errmsg(db_));
    }
    return MakeError("connect.sql_error", std::string("SQL error: ") + sqlite3_errmsg(db_));
  }
  if (!p.stmt) return MakeError("connect.sql_empty", "the SQL text holds no statement");
  // Anything after the first statement must prepare to nothing (whitespace or comments).
  if (tail && *tail) {
    sqlite3_stmt* next = nullptr;
    size_t rest = sql.size() - static_cast<size_t>(tail - sql.data());
    denied_.clear();
    int rc2 = sqlite3_prepare_v3(db_, tail, static_cast<int>(rest), 0, &next, nullptr);
    sqlite3_finalize(next);
    if (rc2 != SQLITE_OK || next != nullptr) {
      return MakeError("connect.sql_multiple_statements",
                       "exactly one statement is allowed per query; remove the text after the "
                       "first statement");
    }
  }
  // A query returns columns; DDL that turned out to be a no-op (DROP ... IF EXISTS of nothing),
  // transaction control and settings do not.
  if (sqlite3_column_count(p.stmt) == 0) {
    return MakeError("connect.sql_denied",
                     "only SELECT is allowed against a mirror; the statement returns no rows");
  }
  if (!sqlite3_stmt_readonly(p.stmt)) {
    return MakeError("connect.sql_not_read_only",
                     "only read-only statements are allowed against a mirror");
  }
  return p;
}

Status SqlGuard::Check(const std::string& sql) {
  auto p = Prepare(sql);
  if (!p) return p.error();
  return {};
}

Result<QueryRows> SqlGuard::Run(const std::string& sql, const json& params) {
  auto prepared = Prepare(sql);
  if (!prepared) return prepared.error();
  sqlite3_stmt* stmt = prepared->stmt;
  if (auto s = BindParams(stmt, params); !s) return s.error();

  QueryRows out;
  int ncol = sqlite3_column_count(stmt);
  for (int c = 0; c < ncol; ++c) {
    const char* raw = sqlite3_column_name(stmt, c);
    std::string name = ValidUtf8(raw ? raw : "column" + std::to_string(c + 1));
    std::string unique = name;
    for (int k = 2; std::find(out.columns.begin(), out.columns.end(), unique) != out.columns.end();
         ++k) {
      unique = name + ":" + std::to_string(k);
    }
    out.columns.push_back(unique);
  }
  timed_out_ = false;
  denied_.clear();
  deadline_ns_ = NowNs() + limits_.time_limit_ms * 1000000;
  int64_t bytes = 0;
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    if (static_cast<int64_t>(out.rows.size()) >= limits_.max_rows) {
      out.truncated = true;
      out.truncated_reason = "max_rows";
      break;
    }
    if (bytes > limits_.max_result_bytes) {
      out.truncated = true;
      out.truncated_reason = "max_result_bytes";
      break;
    }
    json row = json::object();
    for (int c = 0; c < ncol; ++c) {
      json& cell = row[out.columns[c]];
      switch (sqlite3_column_type(stmt, c)) {
        case SQLITE_INTEGER:
          cell = sqlite3_column_int64(stmt, c);
          bytes += 8;
          break;
        case SQLITE_FLOAT:
          cell = sqlite3_column_double(stmt, c);
          bytes += 8;
          break;
        case SQLITE_TEXT: {
          auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
          int n = sqlite3_column_bytes(stmt, c);
          cell = ValidUtf8(std::string_view(p ? p : "", static_cast<size_t>(n)));
          bytes += n;
          break;
        }
        case SQLITE_BLOB: {
          auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(stmt, c));
          int n = sqlite3_column_bytes(stmt, c);
          cell = json{{"blob_bytes", n}, {"hex", Hex(p, std::min(n, 32))}};
          bytes += 64;
          break;
        }
        default:
          cell = nullptr;
          break;
      }
    }
    out.rows.push_back(std::move(row));
  }
  deadline_ns_ = 0;
  if (rc == SQLITE_DONE || rc == SQLITE_ROW) return out;
  if (timed_out_ || (rc & 0xff) == SQLITE_INTERRUPT) {
    return MakeError("connect.sql_timeout", "the query ran past its time limit of " +
                                                std::to_string(limits_.time_limit_ms) + " ms");
  }
  if ((rc & 0xff) == SQLITE_TOOBIG) {
    return MakeError("connect.sql_too_big", "a value grew past the limit of " +
                                                std::to_string(limits_.max_value_bytes) + " bytes");
  }
  if ((rc & 0xff) == SQLITE_NOMEM) {
    return MakeError("connect.sql_too_big", "the query ran out of memory");
  }
  if (!denied_.empty()) {  // a table-valued pragma runs its pragma while the query steps
    return MakeError("connect.sql_denied",
                     "only SELECT is allowed against a mirror; refused " + denied_);
  }
  return MakeError("connect.sql_error", std::string("SQL error: ") + sqlite3_errmsg(db_));
}

}  // namespace affordance::connect
