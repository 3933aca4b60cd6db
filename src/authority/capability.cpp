#include "authority/capability.h"

#include <cstdio>
#include <cstdlib>

namespace affordance::authority {

std::string_view AccessName(Access access) {
  switch (access) {
    case Access::kAnyone:
      return "anyone";
    case Access::kClient:
      return "client";
    case Access::kPerson:
      return "person";
  }
  return "client";
}

std::string_view ModeName(Mode mode) {
  switch (mode) {
    case Mode::kRead:
      return "read";
    case Mode::kLocalState:
      return "local_state";
    case Mode::kStagedWrite:
      return "staged_write";
    case Mode::kApprovedExecution:
      return "approved_execution";
    case Mode::kVerified:
      return "verified";
  }
  return "read";
}

nlohmann::json Capability::ToJson() const {
  return {{"door", door},
          {"name", name},
          {"object", object},
          {"action", action},
          {"access", AccessName(access)},
          {"mode", ModeName(mode)},
          {"grant", grant},
          {"receipt", receipt},
          {"params", params},
          {"result", result},
          {"proof", proof},
          {"description", description}};
}

CapabilityRegistry& CapabilityRegistry::Global() {
  static CapabilityRegistry registry;
  return registry;
}

Status CapabilityRegistry::Declare(Capability c) {
  if (c.door != "cli" && c.door != "tool" && c.door != "http" && c.door != "mcp") {
    return MakeError("authority.bad_capability", "a capability's door is cli, tool, http or mcp",
                     c.door + " " + c.name);
  }
  if (c.name.empty() || c.object.empty() || c.action.empty()) {
    return MakeError("authority.bad_capability",
                     "a capability needs a name, an object and an action", c.door + " " + c.name);
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& existing : capabilities_) {
    if (existing.door == c.door && existing.name == c.name) {
      return MakeError("authority.duplicate_capability",
                       "the " + c.door + " door \"" + c.name + "\" is declared twice");
    }
  }
  capabilities_.push_back(std::move(c));
  return {};
}

const Capability* CapabilityRegistry::Find(std::string_view door, std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& c : capabilities_) {
    if (c.door == door && c.name == name) return &c;
  }
  return nullptr;
}

std::vector<Capability> CapabilityRegistry::All() const {
  std::lock_guard<std::mutex> lock(mu_);
  return capabilities_;
}

std::vector<Capability> CapabilityRegistry::OfDoor(std::string_view door) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Capability> out;
  for (const auto& c : capabilities_) {
    if (c.door == door) out.push_back(c);
  }
  return out;
}

Capability MakeCapability(std::string door, std::string name, std::string object,
                          std::string action, Access access, Mode mode, std::string description,
                          nlohmann::json params, nlohmann::json result, std::string grant,
                          std::string receipt, std::string proof) {
  return Capability{.door = std::move(door),
                    .name = std::move(name),
                    .object = std::move(object),
                    .action = std::move(action),
                    .access = access,
                    .mode = mode,
                    .grant = std::move(grant),
                    .receipt = std::move(receipt),
                    .params = std::move(params),
                    .result = std::move(result),
                    .proof = std::move(proof),
                    .description = std::move(description)};
}

Capability ClientCapability(std::string door, std::string name, std::string object,
                            std::string action, Mode mode, std::string description,
                            std::string grant) {
  return MakeCapability(std::move(door), std::move(name), std::move(object), std::move(action),
                        Access::kClient, mode, std::move(description), nlohmann::json::object(),
                        nlohmann::json::object(), std::move(grant));
}

bool DeclareCapability(Capability capability) {
  if (Status s = CapabilityRegistry::Global().Declare(std::move(capability)); !s) {
    std::fprintf(stderr, "affordance: %s\n", s.error().ToString().c_str());
    std::abort();
  }
  return true;
}

}  // namespace affordance::authority
