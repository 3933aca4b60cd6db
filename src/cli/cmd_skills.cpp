// `affordance skills list | show NAME [--json]`: the skills the harness would offer a model now,
// from the same sources and in the same precedence as chat, run, serve and mcp (--skills DIR...,
// $AFFORDANCE_SKILLS, <data>/skills; skills/catalog.h), with every refused folder and why. `show`
// reads the file as a ToolSearch "skill:NAME" would: its exact bytes and their sha256.
#include "authority/capability.h"
#include "cli/command.h"
#include "cli/output.h"
#include "cli/session.h"
#include "skills/catalog.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

namespace affordance::cli {
namespace {

using nlohmann::json;

// Files listed beside a SKILL.md by `show`, at most.
constexpr size_t kMaxListedFiles = 100;

struct Options {
  SessionOptions session;  // --data and --skills only
  std::string name;
  bool json = false;
};

void Print(const json& j) {
  std::cout << j.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
}

json ErrorJson(const Error& e) {
  json j = {{"code", e.code}, {"message", e.message}};
  if (!e.detail.empty()) j["detail"] = e.detail;
  j["category"] = ErrorKindName(e.kind);
  return j;
}

json SkillJson(const skills::Skill& s) {
  return {{"name", s.name},    {"description", s.description}, {"tools", s.tools},
          {"path", s.path},    {"origin", s.origin},           {"bytes", s.bytes},
          {"sha256", s.sha256}};
}

Result<skills::SkillCatalog> Scan(const Options& o, json* sources) {
  auto found = SkillSourcesOf(o.session);
  if (!found) return found.error();
  if (sources != nullptr) {
    *sources = json::array();
    for (const auto& s : *found) sources->push_back({{"dir", s.dir}, {"origin", s.origin}});
  }
  return skills::SkillCatalog::Scan(*found);
}

int List(const Options& o) {
  json sources;
  auto catalog = Scan(o, &sources);
  if (!catalog) return ReportError(catalog.error(), o.json);
  if (o.json) {
    json ready = json::array();
    for (const auto& s : catalog->ready()) ready.push_back(SkillJson(s));
    json refused = json::array();
    for (const auto& r : catalog->refused()) {
      refused.push_back({{"name", r.name},
                         {"path", r.path},
                         {"origin", r.origin},
                         {"error", ErrorJson(r.error)}});
    }
    Print({{"sources", sources}, {"skills", ready}, {"refused", refused}});
    return kExitOk;
  }
  if (catalog->empty()) {
    std::printf(
        "no skills (a skill is a folder <name>/SKILL.md in --skills DIR, $AFFORDANCE_SKILLS or "
        "<data>/skills)\n");
    return kExitOk;
  }
  for (const auto& s : catalog->ready()) {
    std::string line = s.description.substr(0, s.description.find('\n'));
    if (line.size() > 72) line = line.substr(0, 69) + "...";
    std::printf("%-24s %-72s %s\n", s.name.c_str(), line.c_str(), s.origin.c_str());
  }
  if (!catalog->refused().empty()) std::printf("refused:\n");
  for (const auto& r : catalog->refused()) {
    std::printf("%-24s %s [%s]\n", r.name.c_str(), r.error.ToString().c_str(),
                r.error.code.c_str());
  }
  return kExitOk;
}

// The files beside SKILL.md, relative to the skill's folder (links to folders are not followed).
json FilesBeside(const skills::Skill& s) {
  namespace fs = std::filesystem;
  json files = json::array();
  std::error_code ec;
  const fs::path folder = fs::path(s.path).parent_path();
  for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) || it->path().filename() == "SKILL.md") continue;
    if (files.size() == kMaxListedFiles) {
      files.push_back("...");
      break;
    }
    files.push_back(it->path().lexically_relative(folder).string());
  }
  return files;
}

int Show(const Options& o) {
  auto catalog = Scan(o, nullptr);
  if (!catalog) return ReportError(catalog.error(), o.json);
  auto loaded = catalog->Load(o.name);
  if (!loaded) return ReportError(loaded.error(), o.json);
  const skills::Skill& s = loaded->skill;
  json files = FilesBeside(s);
  if (o.json) {
    json j = SkillJson(s);
    j["files"] = files;
    j["text"] = loaded->text;
    Print({{"skill", j}});
    return kExitOk;
  }
  std::string tools;
  for (const auto& t : s.tools) tools += (tools.empty() ? "" : ", ") + t;
  std::string beside;
  for (const auto& f : files) beside += (beside.empty() ? "" : ", ") + f.get<std::string>();
  std::printf("name:        %s\ndescription: %s\ntools:       %s\nfile:        %s (%s)\n",
              s.name.c_str(), s.description.c_str(), tools.empty() ? "none" : tools.c_str(),
              s.path.c_str(), s.origin.c_str());
  std::printf("sha256:      %s\nbytes:       %lld\nbeside it:   %s\n\n", s.sha256.c_str(),
              static_cast<long long>(s.bytes), beside.empty() ? "nothing" : beside.c_str());
  std::fwrite(loaded->text.data(), 1, loaded->text.size(), stdout);
  if (!loaded->text.empty() && loaded->text.back() != '\n') std::printf("\n");
  return kExitOk;
}

void AddOptions(CLI::App& app, Options& o) {
  app.add_option("--data", o.session.data, "Data folder (its skills/ is the last source)");
  app.add_option("--skills", o.session.skills,
                 "Skills folder of <name>/SKILL.md (repeatable; before $AFFORDANCE_SKILLS and "
                 "<data>/skills)");
  app.add_flag("--json", o.json, "Print JSON");
}

const bool declared = authority::DeclareCapability(authority::MakeCapability(
    "cli", "skills", "skill", "read", authority::Access::kPerson, authority::Mode::kRead,
    "the operator's skills (Agent Skills folders) and why any were refused"));

const bool registered = RegisterCommand(
    {"skills", "List the skills a model can load, or show one with its sha256",
     [](CLI::App& sub) -> Runner {
       auto o = std::make_shared<Options>();
       sub.require_subcommand(1, 1);
       auto* list = sub.add_subcommand("list", "Ready skills, then refused folders and why");
       AddOptions(*list, *o);
       auto* show =
           sub.add_subcommand("show", "One skill's file, exactly as a model would load it");
       AddOptions(*show, *o);
       show->add_option("name", o->name, "Skill name")->required();
       return [o, list]() { return list->parsed() ? List(*o) : Show(*o); };
     }});

}  // namespace
}  // namespace affordance::cli
