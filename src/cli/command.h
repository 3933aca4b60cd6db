// Registry of `affordance` subcommands.
//
// Each subcommand lives in its own src/cli/cmd_<name>.cpp and registers itself at static
// initialisation time, so adding a command never edits a shared file:
//
//   static const bool registered = affordance::cli::RegisterCommand({
//       "tokenize", "Encode stdin into token IDs",
//       [](CLI::App& sub) -> affordance::cli::Runner {
//         auto opts = std::make_shared<Options>();
//         sub.add_option("--model", opts->model)->required();
//         return [opts] { return RunTokenize(*opts); };
//       }});
//
// `setup` adds the command's options (and nested subcommands) to `sub` and returns the function
// main() calls after a successful parse; its return value is the process exit status.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace affordance::cli {

using Runner = std::function<int()>;

struct Command {
  std::string name;
  std::string description;
  std::function<Runner(CLI::App& sub)> setup;
};

// Adds a command; returns true so it can initialise a static. Not thread-safe (static init only).
bool RegisterCommand(Command command);

// All registered commands, sorted by name.
const std::vector<Command>& Commands();

}  // namespace affordance::cli
