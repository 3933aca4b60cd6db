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

// The CLI is the person at the keyboard: a command that opens the data folder (0700, owned by
// the person) is declared kPerson, one that reads only its arguments and shipped data kAnyone
// (docs/SECURITY.md, the CLI door).
authority::Capability Cli(std::string name, std::string object, std::string action, Access access,
                          Mode mode, std::string description) {
  return authority::MakeCapability("cli", std::move(name), std::move(object), std::move(action),
                                   access, mode, std::move(description));
}

const bool declared = [] {
  authority::DeclareCapability(
      Cli("tokenize", "text", "encode", Access::kAnyone, Mode::kRead, "text to token IDs"));
  authority::DeclareCapability(
      Cli("detokenize", "text", "decode", Access::kAnyone, Mode::kRead, "token IDs to text"));
  authority::DeclareCapability(Cli("render", "view", "render", Access::kAnyone, Mode::kRead,
                                   "a view as token IDs, spans and tools"));
  authority::DeclareCapability(
      Cli("act", "view", "act", Access::kAnyone, Mode::kRead,
          "dispatch a tool call through a view and re-render (in memory)"));
  authority::DeclareCapability(Cli("lang", "surface", "validate", Access::kAnyone, Mode::kRead,
                                   "parse, validate, prompt for OpenUI Lang"));
  // The person at the keyboard reads their own connectors: grants govern the model's reads
  // (RunConnectorCommand, <slug>__<operation>), not this command (docs/AUTHORITY.md).
  authority::DeclareCapability(Cli("connector", "connector", "read", Access::kPerson, Mode::kRead,
                                   "list, sync (mirror) and read connectors (the local user; "
                                   "not gated by grants)"));
  authority::DeclareCapability(Cli("chat", "thread", "converse", Access::kPerson, Mode::kLocalState,
                                   "a terminal conversation; writes threads and messages"));
  authority::DeclareCapability(Cli("run", "thread", "converse", Access::kPerson, Mode::kLocalState,
                                   "one harness turn; writes a thread's messages"));
  authority::DeclareCapability(Cli("prompt", "thread", "read", Access::kPerson, Mode::kRead,
                                   "prompt audits of stored turns"));
  authority::DeclareCapability(
      Cli("capabilities", "capability", "read", Access::kAnyone, Mode::kRead, "this list"));
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
                c.object.c_str(), c.action.c_str(),
                std::string(authority::AccessName(c.access)).c_str(),
                std::string(authority::ModeName(c.mode)).c_str(), c.grant.c_str());
  }
  return kExitOk;
}

const bool registered = RegisterCommand(
    {"capabilities", "Every declared door (command, tool, route) and how it is governed",
     [](CLI::App& sub) -> Runner {
       auto json = std::make_shared<bool>(false);
       sub.add_flag("--json", *json, "Print JSON");
       return [json] { return List(*json); };
     }});

}  // namespace
}  // namespace affordance::cli
