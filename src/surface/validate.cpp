#include "surface/validate.h"

#include "surface/html_canvas.h"
#include "surface/internal/materialize.h"

#include <algorithm>

namespace affordance::surface {
namespace {

using internal::IsAstJson;
using internal::IsElementJson;

class Checker {
 public:
  explicit Checker(std::vector<LangError>* out) : out_(out) {}

  void Walk(const Json& v, const std::string& statement) {
    if (IsElementJson(v)) {
      std::string id = v.contains("statementId") && v["statementId"].is_string()
                           ? v["statementId"].get<std::string>()
                           : statement;
      const Json& props = v["props"];
      if (v["typeName"] == "Html") {
        const Json* mounts = props.is_object() && props.contains("mounts") ? &props["mounts"] : nullptr;
        Canvas(props.is_object() && props.contains("html") ? props["html"] : Json(nullptr),
               props.is_object() && props.contains("data") ? props["data"] : Json(nullptr),
               mounts, id);
      }
      for (const auto& p : props) Walk(p, id);
      return;
    }
    if (IsAstJson(v)) {
      if (v["k"] == "Comp" && v.contains("args") && v["args"].is_array()) {
        const Json& args = v["args"];
        if (v["name"] == "Html") {
          Canvas(args.size() > 0 ? args[0] : Json(nullptr), args.size() > 1 ? args[1] : Json(nullptr),
                 args.size() > 2 ? &args[2] : nullptr, statement);
        }
        if (v["name"] == "OpenUrl" && !args.empty() && IsAstJson(args[0]) && args[0]["k"] == "Str" &&
            args[0]["v"].is_string() && IsScriptUrl(args[0]["v"].get<std::string>())) {
          Add("runtime-url", "OpenUrl", "", "@OpenUrl may not open a script URL", statement);
        }
        for (const auto& a : args) Walk(a, statement);  // mappedProps repeats args
        return;
      }
      for (auto it = v.begin(); it != v.end(); ++it) Walk(it.value(), statement);
      return;
    }
    if (v.is_array() || v.is_object()) {
      for (const auto& e : v) Walk(e, statement);
    }
  }

  void Handles(const ParseResult& r, const std::vector<std::string>& handles) {
    auto check = [&](const Json& stmt, const char* kind) {
      const std::string id = stmt["statementId"];
      const Json& tool = stmt["toolAST"];
      if (!tool.is_object() || tool.value("k", "") != "Str") {
        Add("handle-not-literal", kind, "", std::string(kind) +
                "() must name its tool with a string literal so it can be checked against the "
                "registered handles", id);
        return;
      }
      const std::string name = tool["v"];
      if (std::find(handles.begin(), handles.end(), name) == handles.end()) {
        std::string list;
        for (const auto& h : handles) list += (list.empty() ? "" : ", ") + h;
        Add("unknown-handle", kind, "", std::string(kind) + "(\"" + name +
                "\") names no registered handle" + (list.empty() ? "" : "; registered: " + list), id);
      }
    };
    for (const auto& q : r.query_statements) check(q, "Query");
    for (const auto& m : r.mutation_statements) check(m, "Mutation");
  }

 private:
  void Add(const std::string& code, const std::string& component, const std::string& path,
           const std::string& message, const std::string& statement) {
    out_->push_back(LangError{code, component, path, message,
                              statement.empty() ? std::nullopt : std::optional(statement)});
  }

  static const Json* Literal(const Json& v) {  // a plain string, or a {k:"Str"} AST node
    if (v.is_string()) return &v;
    if (IsAstJson(v) && v["k"] == "Str" && v["v"].is_string()) return &v["v"];
    return nullptr;
  }

  void ScriptUrlsInData(const Json& v, const std::string& statement, const std::string& path) {
    if (const Json* s = Literal(v)) {
      if (IsScriptUrl(s->get<std::string>())) {
        Add("runtime-url", "Html", path, "canvas data at " + path +
                " holds a script URL; the Html canvas may not run JavaScript", statement);
      }
      return;
    }
    if (v.is_object()) {
      for (auto it = v.begin(); it != v.end(); ++it) ScriptUrlsInData(it.value(), statement, path + "/" + it.key());
    } else if (v.is_array()) {
      for (size_t i = 0; i < v.size(); ++i) ScriptUrlsInData(v[i], statement, path + "/" + std::to_string(i));
    }
  }

  void Canvas(const Json& html, const Json& data, const Json* mounts, const std::string& statement) {
    const Json* markup = Literal(html);
    if (!markup) {
      if (!html.is_null()) {
        Add("html-not-literal", "Html", "/html", "the markup of an Html canvas must be a string "
            "literal; pass changing values through data and {{placeholders}}", statement);
      }
      return;
    }
    HtmlScan scan = ScanHtml(markup->get<std::string>());
    for (const auto& p : scan.problems) Add(p.code, "Html", "/html", p.message, statement);
    ScriptUrlsInData(data, statement, "/data");
    if (!mounts || !mounts->is_array()) return;
    for (const auto& m : *mounts) {
      std::string name;
      if (IsElementJson(m) && m["typeName"] == "HtmlMount" && m["props"].contains("name") &&
          m["props"]["name"].is_string()) {
        name = m["props"]["name"];
      } else if (IsAstJson(m) && m["k"] == "Comp" && m["name"] == "HtmlMount" && !m["args"].empty()) {
        if (const Json* s = Literal(m["args"][0])) name = *s;
      }
      if (name.empty()) continue;
      if (std::find(scan.mount_slots.begin(), scan.mount_slots.end(), name) == scan.mount_slots.end()) {
        Add("mount-without-slot", "HtmlMount", "/mounts", "HtmlMount(\"" + name +
                "\") has no slot: add an element with data-mount='" + name + "' to the markup",
            statement);
      }
    }
  }

  std::vector<LangError>* out_;
};

}  // namespace

std::vector<LangError> CheckSemantics(const ParseResult& result, const ValidationOptions& options) {
  std::vector<LangError> out;
  Checker checker(&out);
  if (result.root.is_null() && !result.incomplete) {
    out.push_back(LangError{"empty-program", "", "", "the program renders nothing: define "
                            "`root = <Component>(...)`", std::nullopt});
  }
  checker.Walk(result.root, "");
  if (options.handles) checker.Handles(result, *options.handles);
  return out;
}

Validation ValidateProgram(std::string_view text, const Library& library,
                           const ValidationOptions& options) {
  Validation v;
  v.parse = Parse(text, library);
  v.errors = v.parse.errors;
  std::vector<LangError> semantic = CheckSemantics(v.parse, options);
  v.errors.insert(v.errors.end(), semantic.begin(), semantic.end());
  return v;
}

}  // namespace affordance::surface
