// `affordance`: the command-line entry point. Subcommands register themselves (see command.h).
#include "base/version.h"
#include "cli/command.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <string>

namespace affordance::cli {
namespace {

std::vector<Command>& Registry() {
  static std::vector<Command> commands;
  return commands;
}

}  // namespace

bool RegisterCommand(Command command) {
  Registry().push_back(std::move(command));
  return true;
}

const std::vector<Command>& Commands() {
  auto& commands = Registry();
  std::sort(commands.begin(), commands.end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
  return commands;
}

}  // namespace affordance::cli

int main(int argc, char** argv) {
  using namespace affordance;
  CLI::App app{"affordance: native runtime and harness for model-native apps", "affordance"};
  app.set_version_flag("--version", [] {
    return std::string("affordance ") + Version() + " (commit " + GitCommit() + ")";
  });
  app.require_subcommand(0, 1);

  std::map<CLI::App*, cli::Runner> runners;
  for (const auto& command : cli::Commands()) {
    CLI::App* sub = app.add_subcommand(command.name, command.description);
    runners[sub] = command.setup(*sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  for (auto& [sub, run] : runners) {
    if (sub->parsed()) return run();
  }
  std::cout << app.help();
  return 0;
}
