// How every `affordance` command reports results and errors.
//
// Machine mode (`--json`): errors are printed to stdout as {"error": {"code", "message"[,
// "detail"], "category"}}. Human mode: "affordance: <message> (<detail>) [<code>]" on stderr.
// Either way the exit status is non-zero and follows the error's kind (base/result.h ExitCodeOf):
// kExitUsage for bad invocations and input (invalid, not found, too large), kExitFailure for
// everything else.
#pragma once

#include "base/result.h"

#include <string>
#include <string_view>

namespace affordance::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// Prints `error` as described above and returns `exit_code`, by default the kind's.
int ReportError(const Error& error, bool json, int exit_code = -1);

// The check every JSON input of a command (an option, a file, standard input) passes before it is
// parsed, like any other door's (base/json_limits.h): ok, or "cli.too_deep" "<what> nests deeper
// than 128 levels of arrays and objects". `what` names the input: "--args", "the state".
Status CheckInputDepth(std::string_view text, std::string_view what);

// Reads all of standard input (binary-safe).
std::string ReadStdin();

// Reads a whole file, or standard input when `path` is "-".
Result<std::string> ReadFileOrStdin(const std::string& path);

}  // namespace affordance::cli
