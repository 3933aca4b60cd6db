// `affordance`: the command-line entry point. Subcommands register themselves (see command.h).
#include "base/version.h"
#include "cli/command.h"
#include "cli/output.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

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

// The edit distance of two command names (for "did you mean": a typo of a closed list of names,
// never a reading of what a person meant).
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// Usage errors exit 2 (docs: the exit status table); --help and --version exit 0. An unknown
// command names the nearest known one when it is a likely typo.
int ParseFailure(CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  const int printed = app.exit(e);
  if (printed == 0) return 0;
  if (argc > 1 && argv[1][0] != '-') {
    const std::string_view given = argv[1];
    bool known = false;
    std::string nearest;
    size_t best = std::string::npos;
    for (const auto& command : Commands()) {
      if (command.name == given) known = true;
      const size_t d = EditDistance(given, command.name);
      if (d < best) best = d, nearest = command.name;
    }
    if (!known && !nearest.empty() && best <= std::max<size_t>(2, given.size() / 3)) {
      std::cerr << "affordance: unknown command \"" << given << "\"; did you mean \"" << nearest
                << "\"? (affordance --help lists them)" << std::endl;
    }
  }
  return kExitUsage;
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
    return cli::ParseFailure(app, e, argc, argv);
  }
  cli::ScrubSecrets(argc, argv);
  for (auto& [sub, run] : runners) {
    if (sub->parsed()) return run();
  }
  std::cout << app.help();
  return 0;
}
