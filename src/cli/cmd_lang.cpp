// `affordance lang parse | validate | prompt`: OpenUI Lang from the command line (src/surface).
//
//   affordance lang parse    [--library FILE] [--existing FILE] [--json]   program on stdin
//   affordance lang validate [--library FILE] [--existing FILE] [--handles FILE] [--json]
//   affordance lang prompt   [--library FILE] [--tools FILE] [--edit-mode] [--inline-mode] [--json]
//
// --library defaults to the product's default library. --existing FILE treats stdin as an edit
// patch merged into FILE. `validate` exits 1 when the program has errors.
#include "base/json_limits.h"
#include "cli/command.h"
#include "cli/output.h"
#include "surface/edit.h"
#include "surface/prompt.h"
#include "surface/validate.h"

#include <iostream>
#include <memory>

namespace affordance::cli {
namespace {

using surface::Json;

struct LangOptions {
  std::string library, existing, handles, tools;
  bool json = false, edit_mode = false, inline_mode = false;
};

Result<surface::Library> LoadLibrary(const LangOptions& o) {
  if (o.library.empty()) return surface::Library::Default();
  Result<std::string> text = ReadFileOrStdin(o.library);
  if (!text.ok()) return text.error();
  auto library = surface::Library::FromJson(*text);
  if (!library.ok() && library.error().code == "surface.library_not_json") {
    Error e = library.error();
    e.detail = (o.library == "-" ? "<stdin>" : o.library) + ":" + e.detail;
    return e;
  }
  return library;
}

Result<Json> LoadJsonFile(const std::string& path, const char* code, const char* what) {
  Result<std::string> text = ReadFileOrStdin(path);
  if (!text.ok()) return text.error();
  if (auto deep = CheckInputDepth(*text, what); !deep) return deep.error();
  Json doc = Json::parse(text->begin(), text->end(), nullptr, false);
  if (doc.is_discarded()) {
    return MakeError(ErrorKind::kInvalid, code, std::string(what) + " is not valid JSON",
                     JsonSyntaxErrorIn(*text, path == "-" ? "<stdin>" : path));
  }
  return doc;
}

// The program from stdin, merged into --existing when given.
// The name of a handle or tool given as "name" or {"name": "name", ...}; nullptr otherwise.
const std::string* NameOf(const Json& item) {
  if (item.is_string()) return &item.get_ref<const std::string&>();
  if (item.is_object() && item.contains("name") && item["name"].is_string())
    return &item["name"].get_ref<const std::string&>();
  return nullptr;
}

Result<std::string> ReadProgram(const LangOptions& o) {
  std::string input = ReadStdin();
  if (o.existing.empty()) return input;
  Result<std::string> existing = ReadFileOrStdin(o.existing);
  if (!existing.ok()) return existing.error();
  return surface::MergeProgram(*existing, input);
}

void PrintErrorsHuman(const std::vector<surface::LangError>& errors) {
  for (const auto& e : errors) {
    std::cout << e.code;
    if (e.statement_id) std::cout << " [" << *e.statement_id << "]";
    std::cout << ": " << e.message << "\n";
  }
}

std::string Dump(const Json& j) { return j.dump(2, ' ', false, Json::error_handler_t::replace); }

int RunParse(const LangOptions& o) {
  Result<surface::Library> lib = LoadLibrary(o);
  if (!lib.ok()) return ReportError(lib.error(), o.json, kExitUsage);
  Result<std::string> program = ReadProgram(o);
  if (!program.ok()) return ReportError(program.error(), o.json, kExitUsage);
  surface::ParseResult r = surface::Parse(*program, *lib);
  if (o.json) {
    std::cout << Dump(r.ToJson()) << "\n";
    return kExitOk;
  }
  std::cout << "root: " << (r.root->is_null() ? "none" : std::string(r.root->TypeName()))
            << "\nstatements: " << r.statement_count << (r.incomplete ? " (incomplete)" : "")
            << "\n";
  PrintErrorsHuman(r.errors);
  return kExitOk;
}

int RunValidate(const LangOptions& o) {
  Result<surface::Library> lib = LoadLibrary(o);
  if (!lib.ok()) return ReportError(lib.error(), o.json, kExitUsage);
  surface::ValidationOptions options;
  if (!o.handles.empty()) {
    Result<Json> doc = LoadJsonFile(o.handles, "surface.handles_invalid", "the handle registry");
    if (!doc.ok()) return ReportError(doc.error(), o.json, kExitUsage);
    std::vector<std::string> names;
    bool ok = doc->is_array();
    for (const auto& h : ok ? *doc : Json::array()) {
      const std::string* name = NameOf(h);
      if (name)
        names.push_back(*name);
      else
        ok = false;
    }
    if (!ok) {
      return ReportError(MakeError("surface.handles_invalid",
                                   "the handle registry must be a JSON array of tool names or "
                                   "{\"name\": ...} tools",
                                   o.handles),
                         o.json, kExitUsage);
    }
    options.handles = std::move(names);
  }
  Result<std::string> program = ReadProgram(o);
  if (!program.ok()) return ReportError(program.error(), o.json, kExitUsage);
  surface::Validation v = surface::ValidateProgram(*program, *lib, options);
  if (o.json) {
    Json errors = Json::array();
    for (const auto& e : v.errors) errors.push_back(surface::ErrorToJson(e));
    Json out = Json::object();
    out["ok"] = v.ok();
    out["statementCount"] = v.parse.statement_count;
    out["errors"] = std::move(errors);
    std::cout << Dump(out) << "\n";
  } else if (v.ok()) {
    std::cout << "ok: " << v.parse.statement_count << " statements\n";
  } else {
    PrintErrorsHuman(v.errors);
  }
  return v.ok() ? kExitOk : kExitFailure;
}

int RunPrompt(const LangOptions& o) {
  Result<surface::Library> lib = LoadLibrary(o);
  if (!lib.ok()) return ReportError(lib.error(), o.json, kExitUsage);
  surface::PromptOptions options;
  options.edit_mode = o.edit_mode;
  options.inline_mode = o.inline_mode;
  if (!o.tools.empty()) {
    Result<Json> doc = LoadJsonFile(o.tools, "surface.tools_invalid", "the tools file");
    if (!doc.ok()) return ReportError(doc.error(), o.json, kExitUsage);
    Json tools = doc->is_object() && doc->contains("tools") ? (*doc)["tools"] : *doc;
    bool ok = tools.is_array();
    for (const auto& t : ok ? tools : Json::array()) ok = ok && NameOf(t) != nullptr;
    if (!ok) {
      return ReportError(MakeError("surface.tools_invalid",
                                   "tools must be a JSON array (or {\"tools\": [...]}) of names or "
                                   "MCP tools with a string name",
                                   o.tools),
                         o.json, kExitUsage);
    }
    options.tools = std::move(tools);
  }
  std::string prompt = surface::GeneratePrompt(*lib, options);
  if (o.json) {
    std::cout << Dump(Json{{"prompt", prompt}}) << "\n";
  } else {
    std::cout << prompt << "\n";
  }
  return kExitOk;
}

const bool registered = RegisterCommand(
    {"lang", "OpenUI Lang: parse, validate, or generate the system prompt",
     [](CLI::App& sub) -> Runner {
       auto o = std::make_shared<LangOptions>();
       sub.require_subcommand(1);
       auto common = [&](CLI::App* c) {
         c->add_option("--library", o->library, "library JSON Schema document (default: built-in)");
         c->add_flag("--json", o->json, "machine-readable output");
       };
       CLI::App* parse =
           sub.add_subcommand("parse", "Parse a program from stdin into a ParseResult");
       common(parse);
       parse->add_option("--existing", o->existing,
                         "merge stdin as an edit patch into this program");
       CLI::App* validate = sub.add_subcommand("validate", "Check a program from stdin");
       common(validate);
       validate->add_option("--existing", o->existing,
                            "merge stdin as an edit patch into this program");
       validate->add_option("--handles", o->handles,
                            "JSON array of tool names Query/Mutation may call");
       CLI::App* prompt = sub.add_subcommand("prompt", "Print the system prompt for a library");
       common(prompt);
       prompt->add_option("--tools", o->tools, "JSON array of tool names or MCP tools");
       prompt->add_flag("--edit-mode", o->edit_mode, "include edit-mode instructions");
       prompt->add_flag("--inline-mode", o->inline_mode, "include inline-mode instructions");
       return [o, parse, validate, prompt]() {
         if (parse->parsed()) return RunParse(*o);
         if (validate->parsed()) return RunValidate(*o);
         if (prompt->parsed()) return RunPrompt(*o);
         return kExitUsage;
       };
     }});

}  // namespace
}  // namespace affordance::cli
