// Running a child process safely: an argv vector (never a shell), stdin closed, stdout and stderr
// captured with a byte cap, a wall-clock timeout after which the whole process group is killed.
#pragma once

#include "base/result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace affordance::connect {

struct ProcessOutput {
  int exit_code = 0;  // the child's exit status; 128+N when killed by signal N
  std::string out;
  std::string err;
};

// Runs argv[0] (looked up on PATH when it has no '/'). Errors: "connect.cli_not_found" (cannot be
// started), "connect.cli_timeout" (ran past timeout_ms; the process group is killed),
// "connect.cli_output_too_large" (stdout + stderr past max_output bytes; killed).
Result<ProcessOutput> RunProcess(const std::vector<std::string>& argv, int64_t timeout_ms,
                                 size_t max_output = 16 << 20);

}  // namespace affordance::connect
