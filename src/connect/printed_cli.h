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

// One invocation's words: `words` (verb words and `--name=value` flags) go before "--agent";
// `positional` values go after `--` (source.end_of_options), so a value chosen by a model or
// a connector that begins with '-' is never read as an option. A flag's value is joined to its
// name with '=' for the same reason.
struct CliCall {
  std::vector<std::string> words;
  std::vector<std::string> positional;
};

// The exact argv of `call`: command, words, "--agent", "--data-source <mode>" when given, then
// "--" and the positional values. Error "connect.bad_args" (kInvalid): a positional value that
// begins with '-' for a CLI that does not read `--` (end_of_options false).
Result<std::vector<std::string>> PrintedCliArgv(const SourceSpec& source, const CliCall& call,
                                                std::optional<SourceMode> mode);

// Runs one invocation (argv from PrintedCliArgv). Output nested deeper than kMaxJsonDepth
// (base/json_limits.h) is never parsed: "connect.too_deep".
Result<CliReply> InvokePrintedCli(const SourceSpec& source, const CliCall& call,
                                  std::optional<SourceMode> mode);

// The call for `op` with `args` (validated): verb words, then the args that are not positional
// as `--name=value` in name order, and the positional args in declared order. Strings pass
// verbatim, other JSON values as JSON text.
CliCall OperationCall(const Operation& op, const nlohmann::json& args);

// The argv of mutation `op` with `args` and the idempotency key (`--<flag>=<key>` when the
// manifest names the CLI's flag): what an approval runs, and what its effect card shows.
Result<std::vector<std::string>> MutationArgv(const ConnectorManifest& m, const Operation& op,
                                              const nlohmann::json& args, const std::string& key);

// An argv as one line a person can read and a shell would split the same way: each word that is
// not plain is single-quoted.
std::string ArgvText(const std::vector<std::string>& argv);

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
