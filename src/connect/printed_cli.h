// The bridge to printed connector CLIs (`<api>-pp-cli`, see docs/CONNECTORS.md and the Printing
// Press contract): every call runs `<command> <verb words> <positional args> --<flag> <value> ...
// --agent [--data-source live|local|auto]` through RunProcess (argv, no shell, timeout), parses
// `{"results": ..., "meta": {...}}` from stdout, and maps exit codes to typed errors:
//   2 connect.cli_usage, 3 connect.not_found, 4 connect.auth, 5 connect.api,
//   6 connect.partial_failure (results kept when present), 7 connect.rate_limited,
//   10 connect.config, any other non-zero connect.cli_failed.
// The error message is the CLI's own `{"error": "..."}` text when it printed one.
#pragma once

#include "base/result.h"
#include "connect/manifest.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace affordance::connect {

struct CliReply {
  nlohmann::json results;  // the `results` member (any JSON)
  nlohmann::json meta;     // the `meta` member, {} when absent
  bool partial = false;    // exit code 6 with results present
};

// Runs one invocation. `words` are everything between the command and "--agent". Output nested
// deeper than kMaxJsonDepth (base/json_limits.h) is never parsed: "connect.too_deep".
Result<CliReply> InvokePrintedCli(const SourceSpec& source, const std::vector<std::string>& words,
                                  std::optional<SourceMode> mode);

// The words for `op` with `args` (validated): verb words, positional args in declared order, then
// the remaining args as flags in name order. Strings pass verbatim, other JSON values as JSON text.
std::vector<std::string> OperationWords(const Operation& op, const nlohmann::json& args);

// The typed error for a non-zero exit code.
Error ExitCodeError(int exit_code, const std::string& message, const std::string& detail);

// The CLI's SQLite mirror: source.mirror_path, else
// ${XDG_DATA_HOME:-~/.local/share}/<basename of command>/data.db.
std::string PrintedCliMirrorPath(const SourceSpec& source);

struct WhichMatch {
  std::string command;  // entry.command, e.g. "items get"
  nlohmann::json args;  // entry.args, {} when absent
  double score = 0;
  nlohmann::json entry;  // the whole entry as the CLI printed it
};

// Runs the CLI's `which <query>` verb and returns its matches in the CLI's order.
Result<std::vector<WhichMatch>> RunWhich(const SourceSpec& source, const std::string& query);

}  // namespace affordance::connect
