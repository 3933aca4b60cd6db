// `affordance capabilities [--json]`: every declared door (CLI commands, harness tools, and later
// HTTP routes and MCP tools) from the one capability registry (authority/capability.h), plus the
// commands this binary registers, so a test can prove that no command exists undeclared.
//
// The declarations of the CLI's own doors live here, one per registered command.
#include "authority/capability.h"
#include "cli/command.h"
#include "cli/output.h"

#include <cstdio>
#include <iostream>

namespace affordance::cli {
namespace {

using authority::Access;
using authority::Mode;

authority::Capability Cli(std::string name, std::string object, std::string action, Mode mode,
    std::string description, std::string grant = "") {
  return authority::UserCapability("cli", std::move(name), std::move(object), std::move(action),
                                   mode, std::move(description), std::move(grant));
}

const bool declared = [] {
  authority::DeclareCapability(Cli("tokenize", "text", "encode", Mode::kRead, "text to token IDs"));
  authority::DeclareCapability(Cli("detokenize", "text", "decode", Mode::kRead, "token IDs to text"));
  authority::DeclareCapability(Cli("render", "view", "render", Mode::kRead,
                                   "a view as token IDs, spans and tools"));
  authority::DeclareCapability(Cli("act", "view", "act", Mode::kRead,
                                   "dispatch a tool call through a view and re-render (in memory)"));
  authority::DeclareCapability(Cli("lang", "surface", "validate", Mode::kRead,
                                   "parse, validate, prompt for OpenUI Lang"));
  // The person at the keyboard reads their own connectors: grants govern the model's reads
  // (RunConnectorCommand, <slug>__<operation>), not this command (docs/AUTHORITY.md).
  authority::DeclareCapability(Cli("connector", "connector", "read", Mode::kRead,
                                   "list, sync (mirror) and read connectors (the local user; "
                                   "not gated by grants)"));
  authority::DeclareCapability(Cli("chat", "thread", "converse", Mode::kLocalState,
                                   "a terminal conversation; writes threads and messages"));
  authority::DeclareCapability(Cli("run", "thread", "converse", Mode::kLocalState,
                                   "one harness turn; writes a thread's messages"));
  authority::DeclareCapability(Cli("prompt", "thread", "read", Mode::kRead,
                                   "prompt audits of stored turns"));
  authority::DeclareCapability(Cli("capabilities", "capability", "read", Mode::kRead,
                                   "this list"));
  return true;
}();

int List(bool json) {
  auto all = authority::CapabilityRegistry::Global().All();
  nlohmann::json commands = nlohmann::json::array();
  for (const auto& c : Commands()) commands.push_back(c.name);
  if (json) {
    nlohmann::json caps = nlohmann::json::array();
    for (const auto& c : all) caps.push_back(c.ToJson());
    std::cout << nlohmann::json{{"capabilities", caps}, {"commands", commands}}.dump() << "\n";
    return kExitOk;
  }
  std::printf("%-5s %-22s %-12s %-10s %-9s %-19s %s\n", "door", "name", "object", "action",
              "access", "mode", "grant");
  for (const auto& c : all) {
    std::printf("%-5s %-22s %-12s %-10s %-9s %-19s %s\n", c.door.c_str(), c.name.c_str(),
                c.object.c_str(), c.action.c_str(), std::string(authority::AccessName(c.access)).c_str(),
                std::string(authority::ModeName(c.mode)).c_str(), c.grant.c_str());
  }
  return kExitOk;
}

const bool registered = RegisterCommand({
    "capabilities", "Every declared door (command, tool, route) and how it is governed",
    [](CLI::App& sub) -> Runner {
      auto json = std::make_shared<bool>(false);
      sub.add_flag("--json", *json, "Print JSON");
      return [json] { return List(*json); };
    }});

}  // namespace
}  // namespace affordance::cli
