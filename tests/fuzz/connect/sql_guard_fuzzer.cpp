// Arbitrary statements through the SQL guard: each is answered or refused with a connect.* error,
// never crashes, and never changes the mirror (checked with PRAGMA data_version and a canary on a
// separate connection after every input).
#include "connect/sql_guard.h"

#include <sqlite3.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

namespace {

using affordance::connect::GuardLimits;
using affordance::connect::SqlGuard;

struct Mirror {
  std::string path;
  sqlite3* checker = nullptr;
  std::unique_ptr<SqlGuard> guard;
  int64_t version = 0;

  Mirror() {
    char dir[] = "/tmp/affordance-fuzz-sql-XXXXXX";
    path = std::string(mkdtemp(dir)) + "/mirror.db";
    sqlite3_open(path.c_str(), &checker);
    sqlite3_exec(checker,
                 "PRAGMA journal_mode=WAL;"
                 "CREATE TABLE events(id TEXT PRIMARY KEY, summary TEXT, start_ts INTEGER,"
                 " end_ts INTEGER);"
                 "CREATE TABLE canary(note TEXT); INSERT INTO canary VALUES ('untouched');"
                 "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 40)"
                 " INSERT INTO events SELECT 'e' || x, 'Event ' || x, x * 60, x * 60 + 90 FROM c;",
                 nullptr, nullptr, nullptr);
    GuardLimits limits;
    limits.time_limit_ms = 20;
    limits.max_rows = 50;
    limits.max_value_bytes = 100000;
    guard = std::move(SqlGuard::Open(path, limits).value());
    version = DataVersion();
  }
  int64_t DataVersion() {
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(checker, "PRAGMA data_version", -1, &st, nullptr);
    sqlite3_step(st);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
  }
  bool CanaryIntact() {
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(checker, "SELECT group_concat(note) FROM canary", -1, &st, nullptr);
    bool ok = sqlite3_step(st) == SQLITE_ROW &&
              std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 0))) == "untouched";
    sqlite3_finalize(st);
    return ok;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Mirror* mirror = new Mirror();
  std::string sql(reinterpret_cast<const char*>(data), size);
  auto rows = mirror->guard->Run(sql);
  if (!rows.ok()) {
    const auto& e = rows.error();
    if (e.code.rfind("connect.", 0) != 0 || e.message.empty()) std::abort();
  } else {
    if (static_cast<int64_t>(rows->rows.size()) > 50) std::abort();
    for (const auto& row : rows->rows) (void)row.dump();  // always serializable
  }
  if (mirror->DataVersion() != mirror->version || !mirror->CanaryIntact()) std::abort();
  return 0;
}
