// The capability registry: ONE declaration for every door through which something can be read or
// changed: a CLI subcommand, a harness tool, an HTTP route, an MCP tool. Each declares what it
// touches and how it is governed:
//
//   object, action   what the door acts on ("thread", "read"; "approval", "decide")
//   access           the least plane that may use it (docs/SECURITY.md): kAnyone (whoever
//                    reaches the door: the web UI's static files), kClient (a client: ask, read,
//                    stage; the remote access token, a normal MCP session, a local process),
//                    kPerson (the person or the operator: decide — approve, deny, grant, revoke;
//                    the web UI's person session, the operator MCP session, the CLI)
//   mode             kRead, kStagedWrite (writes a durable approval request, dispatches nothing),
//                    kApprovedExecution (runs one approved effect exactly once), kVerified (a
//                    fresh read proves an effect), kLocalState (changes the product's own data:
//                    threads, messages, grants)
//   grant            the grant it needs ("" none), e.g. "connector:<slug>:read"
//   receipt          the receipt it produces ("" none)
//   params, result   JSON Schemas (or {} when free-form)
//   proof            what proves its effect ("" for reads)
//
// The server's router and the MCP tool list are built FROM the registry, and tests enumerate the
// real entry points (cli::Commands(), the harness's tools, the router) and fail on any door that is
// not declared. Declarations happen at static initialisation (DeclareCapability) or at start-up.
//
// Thread safety: Declare before serving; Find/All are safe from any thread afterwards.
#pragma once

#include "base/result.h"

#include <nlohmann/json.hpp>

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::authority {

// Ordered: a plane may use every door of the planes below it.
enum class Access { kAnyone, kClient, kPerson };
enum class Mode { kRead, kLocalState, kStagedWrite, kApprovedExecution, kVerified };

std::string_view AccessName(Access access);
std::string_view ModeName(Mode mode);

struct Capability {
  std::string door;  // "cli" | "tool" | "http" | "mcp"
  std::string name;  // "chat", "RunConnectorCommand", "POST /api/chat", "ask"
  std::string object;
  std::string action;
  Access access = Access::kClient;
  Mode mode = Mode::kRead;
  std::string grant;
  std::string receipt;
  nlohmann::json params = nlohmann::json::object();
  nlohmann::json result = nlohmann::json::object();
  std::string proof;
  std::string description;

  nlohmann::json ToJson() const;
};

class CapabilityRegistry {
 public:
  // The process-wide registry.
  static CapabilityRegistry& Global();

  // Errors: "authority.duplicate_capability" (same door + name), "authority.bad_capability"
  // (empty door, name, object or action; unknown door).
  Status Declare(Capability capability);
  // nullptr when the door is not declared.
  const Capability* Find(std::string_view door, std::string_view name) const;
  std::vector<Capability> All() const;
  std::vector<Capability> OfDoor(std::string_view door) const;

 private:
  mutable std::mutex mu_;
  std::vector<Capability> capabilities_;
};

// A capability in one expression: every field, the description before the optional schemas,
// grant, receipt and proof (the doors' declaration helpers forward to it).
Capability MakeCapability(std::string door, std::string name, std::string object,
                          std::string action, Access access, Mode mode, std::string description,
                          nlohmann::json params = nlohmann::json::object(),
                          nlohmann::json result = nlohmann::json::object(), std::string grant = "",
                          std::string receipt = "", std::string proof = "");

// A capability of a client (access kClient) in one expression: door, name, object, action,
// mode, description and the grant it needs ("" none); the other fields keep their defaults.
Capability ClientCapability(std::string door, std::string name, std::string object,
                            std::string action, Mode mode, std::string description,
                            std::string grant = "");

// Declares into the global registry at static initialisation; returns true (for a static bool).
// A declaration error aborts with a message: a door that cannot be declared must not exist.
bool DeclareCapability(Capability capability);

}  // namespace affordance::authority
