// Private to src/connect: an MCP connector's mirror (<data>/<slug>/mirror.db). Every live read
// is kept, keyed by the operation and its canonical arguments, with the time it was read:
//
//   mcp_reads(operation, args, served_fields, read_at, rows)      one per (operation, args)
//   mcp_rows(operation, args, seq, row, read_at)                  its rows, row = JSON text
//
// A read replaces its own rows in one BEGIN IMMEDIATE transaction (readers keep the previous
// rows until the commit). Mirror reads go through SqlGuard like every other mirror read; the
// `sql` operation runs SELECT-only over these tables (json_extract(row, '$.field')).
#pragma once

#include "base/result.h"
#include "connect/sql_guard.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace affordance::connect {

struct MirroredRead {
  std::vector<nlohmann::json> rows;
  std::vector<std::string> served_fields;
  int64_t read_at = 0;  // epoch seconds
  bool truncated = false;
};

// The key a read is mirrored under: the arguments' JSON with keys in order.
std::string CanonicalArgs(const nlohmann::json& args);

Status StoreMcpRead(const std::string& path, const std::string& operation,
                    const nlohmann::json& args, const std::vector<nlohmann::json>& rows,
                    const std::vector<std::string>& served_fields, int64_t read_at);

// nullopt: this read was never mirrored (or there is no mirror yet).
Result<std::optional<MirroredRead>> LoadMcpRead(const std::string& path,
                                                const std::string& operation,
                                                const nlohmann::json& args,
                                                const GuardLimits& limits);

// Every mirrored (operation, args) with its read time, oldest first.
struct MirroredKey {
  std::string operation;
  nlohmann::json args;
  int64_t read_at = 0;
};
Result<std::vector<MirroredKey>> MirroredReads(const std::string& path, const GuardLimits& limits);

}  // namespace affordance::connect
