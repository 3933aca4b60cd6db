// The local trust root of the operator session (docs/MCP.md): one secret file, `operator.secret`
// in the data folder, created 0600 by the user who runs affordance. Whoever can read it is the
// single local user; the MCP door mints an operator session (it may approve, deny and grant) only
// for a client that proves locality: stdio (`affordance mcp --operator`, which reads the file
// itself) or a loopback HTTP peer that presents the secret. A peer at any other address never gets
// one, with or without the secret.
#pragma once

#include "base/result.h"

#include <string>
#include <string_view>

namespace affordance::server {

inline constexpr std::string_view kOperatorSecretFile = "operator.secret";

// Reads `<data_dir>/operator.secret`, creating it (64 hex characters from the system's random
// source, mode 0600, O_EXCL so two processes agree) when absent. Errors: "mcp.trust_root" (cannot
// create or read it), "mcp.trust_root_unsafe" (group or others may read it, or another user owns
// it: it is not a trust root then, and nothing is minted from it).
Result<std::string> LoadOperatorSecret(const std::string& data_dir);

// Constant-time comparison of a presented secret with the root.
bool SecretMatches(std::string_view presented, std::string_view secret);

// 32 random hex characters (a session id) from the system's random source.
std::string RandomHex(size_t bytes);

}  // namespace affordance::server
