// An MCP connector's mirror: live reads kept per (operation, args), read back through SqlGuard.
#include "connect/internal/mcp_mirror.h"

#include "base/json_limits.h"
#include "connect/mirror.h"

#include <sqlite3.h>

#include <filesystem>

namespace affordance::connect {

using nlohmann::json;

namespace {

constexpr const char* kSchema =
    "CREATE TABLE IF NOT EXISTS mcp_reads(operation TEXT NOT NULL, args TEXT NOT NULL, "
    "served_fields TEXT NOT NULL, read_at INTEGER NOT NULL, rows INTEGER NOT NULL, "
    "PRIMARY KEY(operation, args));"
    "CREATE TABLE IF NOT EXISTS mcp_rows(operation TEXT NOT NULL, args TEXT NOT NULL, "
    "seq INTEGER NOT NULL, row TEXT NOT NULL, read_at INTEGER NOT NULL, "
    "PRIMARY KEY(operation, args, seq));";

Error WriteFailed(sqlite3* db, const std::string& what) {
  return MakeError("connect.mirror_write_failed", what + ": " + sqlite3_errmsg(db));
}

// Runs `sql` with text/integer bindings, once.
Status Step(sqlite3* db, const char* sql, const std::vector<json>& binds) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) return WriteFailed(db, "prepare");
  for (size_t i = 0; i < binds.size(); ++i) {
    int at = static_cast<int>(i + 1);
    if (binds[i].is_number_integer()) {
      sqlite3_bind_int64(st, at, binds[i].get<int64_t>());
    } else {
      const std::string& s = binds[i].get_ref<const std::string&>();
      sqlite3_bind_text(st, at, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
    }
  }
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return WriteFailed(db, "write");
  return {};
}

json Dump(const json& v) { return v.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace

std::string CanonicalArgs(const json& args) { return Dump(args).get<std::string>(); }

Status StoreMcpRead(const std::string& path, const std::string& operation, const json& args,
                    const std::vector<json>& rows, const std::vector<std::string>& served_fields,
                    int64_t read_at) {
  auto writer = MirrorWriter::Open(path, kSchema);
  if (!writer) return writer.error();
  sqlite3* db = writer->db();
  std::string key = CanonicalArgs(args);
  if (sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) {
    return WriteFailed(db, "begin");
  }
  auto fail = [&](Error e) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return e;
  };
  if (Status s =
          Step(db, "DELETE FROM mcp_rows WHERE operation = ?1 AND args = ?2", {operation, key});
      !s) {
    return fail(s.error());
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    if (Status s = Step(db, "INSERT INTO mcp_rows VALUES (?1, ?2, ?3, ?4, ?5)",
                        {operation, key, static_cast<int64_t>(i), Dump(rows[i]), read_at});
        !s) {
      return fail(s.error());
    }
  }
  if (Status s = Step(
          db, "INSERT OR REPLACE INTO mcp_reads VALUES (?1, ?2, ?3, ?4, ?5)",
          {operation, key, Dump(json(served_fields)), read_at, static_cast<int64_t>(rows.size())});
      !s) {
    return fail(s.error());
  }
  if (sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    return fail(WriteFailed(db, "commit"));
  }
  return {};
}

Result<std::optional<MirroredRead>> LoadMcpRead(const std::string& path,
                                                const std::string& operation, const json& args,
                                                const GuardLimits& limits) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<MirroredRead>();
  auto guard = SqlGuard::Open(path, limits);
  if (!guard) return guard.error();
  json key = {{"op", operation}, {"args", CanonicalArgs(args)}};
  auto head = (*guard)->Run(
      "SELECT served_fields, read_at FROM mcp_reads WHERE operation = :op AND args = :args", key);
  if (!head) {
    // A mirror without the table has no MCP reads yet.
    if (head.error().message.find("no such table") != std::string::npos) {
      return std::optional<MirroredRead>();
    }
    return head.error();
  }
  if (head->rows.empty()) return std::optional<MirroredRead>();
  MirroredRead out;
  out.read_at = head->rows[0].value("read_at", int64_t{0});
  const std::string served_text = head->rows[0].value("served_fields", "[]");
  json served = JsonTextDepth(served_text) > kMaxJsonDepth
                    ? json(nullptr)
                    : json::parse(served_text, nullptr, false);
  if (served.is_array()) {
    for (const auto& f : served) {
      if (f.is_string()) out.served_fields.push_back(f.get<std::string>());
    }
  }
  auto rows = (*guard)->Run(
      "SELECT row FROM mcp_rows WHERE operation = :op AND args = :args ORDER BY seq", key);
  if (!rows) return rows.error();
  out.truncated = rows->truncated;
  for (const auto& r : rows->rows) {
    std::string text = r.value("row", "");
    if (JsonTextDepth(text) > kMaxJsonDepth) continue;
    json row = json::parse(text, nullptr, false);
    if (!row.is_discarded()) out.rows.push_back(std::move(row));
  }
  return std::optional<MirroredRead>(std::move(out));
}

Result<std::vector<MirroredKey>> MirroredReads(const std::string& path, const GuardLimits& limits) {
  std::vector<MirroredKey> out;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return out;
  auto guard = SqlGuard::Open(path, limits);
  if (!guard) return guard.error();
  auto rows = (*guard)->Run("SELECT operation, args, read_at FROM mcp_reads ORDER BY read_at");
  if (!rows) {
    if (rows.error().message.find("no such table") != std::string::npos) return out;
    return rows.error();
  }
  for (const auto& r : rows->rows) {
    const std::string args_text = r.value("args", "{}");
    if (JsonTextDepth(args_text) > kMaxJsonDepth) continue;
    json args = json::parse(args_text, nullptr, false);
    if (args.is_discarded()) continue;
    out.push_back({r.value("operation", ""), args, r.value("read_at", int64_t{0})});
  }
  return out;
}

}  // namespace affordance::connect
