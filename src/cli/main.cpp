// `affordance`: the command-line entry point. Subcommands register themselves (see command.h).
#include "base/nearest.h"
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

// What a command line names that the parser does not know, with the nearest name it knows: the
// words walked from the top as the parser walks them (a subcommand's name descends into it, an
// option that takes a value takes the next word), stopping at the first option the reached
// command lacks, or the first word where a command that has subcommands and no positional
// arguments wants one. Empty when every word is known (the parser's own message is then right).
std::string UnknownWord(CLI::App& app, int argc, char** argv) {
  CLI::App* current = &app;
  std::string path = "affordance";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") break;
    const std::string help = "(" + path + " --help lists them)";
    if (arg.size() > 1 && arg[0] == '-') {
      const std::string name = arg.substr(0, arg.find('='));
      const CLI::Option* option = current->get_option_no_throw(name);
      if (option == nullptr) {
        std::vector<std::string> known;
        for (const CLI::Option* o : current->get_options()) {
          for (const auto& l : o->get_lnames()) known.push_back("--" + l);
        }
        return path + ": unknown option \"" + name + "\"" + DidYouMean(name, known) + " " + help;
      }
      if (option->get_type_size_max() > 0 && name.size() == arg.size()) ++i;  // its value
      continue;
    }
    auto named = current->get_subcommands([&](const CLI::App* a) { return a->check_name(arg); });
    if (!named.empty()) {
      current = named.front();
      path += " " + arg;
      continue;
    }
    auto subs = current->get_subcommands([](const CLI::App*) { return true; });
    bool positional = false;
    for (const CLI::Option* o : current->get_options()) positional |= !o->nonpositional();
    if (!subs.empty() && !positional) {
      std::vector<std::string> known;
      known.reserve(subs.size());
      for (const CLI::App* s : subs) known.push_back(s->get_name());
      return path + ": unknown command \"" + arg + "\"" + DidYouMean(arg, known) + " " + help;
    }
  }
  return "";
}

// Usage errors exit 2 (docs: the exit status table); --help and --version exit 0. A word the
// parser does not know (a mistyped option or command) is said once, with the nearest known name
// when it is a likely typo, instead of the parser's messages about what followed from it.
int ParseFailure(CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  if (e.get_exit_code() == 0) return app.exit(e);
  if (std::string unknown = UnknownWord(app, argc, argv); !unknown.empty()) {
    std::cerr << unknown << std::endl;
    return kExitUsage;
  }
  app.exit(e);
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
