// `affordance`: the command-line entry point. Subcommands register themselves (see command.h).
#include "base/version.h"
#include "cli/command.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <string>
#include <string_view>

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

// A secret given on the command line is readable by every local user (/proc/PID/cmdline, ps).
// Once parsed it is overwritten in place, as mysql does with -p, so it shows only between exec and
// here; the commands that take one also warn and offer a file or a variable instead.
void ScrubSecrets(int argc, char** argv) {
  static const std::string_view kSecretFlags[] = {"--access-token"};
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    for (std::string_view flag : kSecretFlags) {
      char* secret = nullptr;
      if (arg == flag && i + 1 < argc) {
        secret = argv[i + 1];
      } else if (arg.size() > flag.size() && arg.substr(0, flag.size()) == flag &&
                 arg[flag.size()] == '=') {
        secret = argv[i] + flag.size() + 1;
      }
      for (; secret != nullptr && *secret != '\0'; ++secret) *secret = '*';
    }
  }
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
  cli::ScrubSecrets(argc, argv);
  for (auto& [sub, run] : runners) {
    if (sub->parsed()) return run();
  }
  std::cout << app.help();
  return 0;
}
