#include "surface/validate.h"

#include "surface/html_canvas.h"

#include <algorithm>

namespace affordance::surface {
namespace {

// Walks the parsed value tree (value.h): element nodes, AST nodes kept for the runtime, and
// plain values, in tree order.
class Checker {
 public:
  explicit Checker(std::vector<LangError>* out) : out_(out) {}

  void Walk(const Value& v, std::string_view statement) {
    if (v.IsElement()) {
      const std::string_view id = v.StatementId().value_or(statement);
      const Value& props = v.Props();
      if (v.TypeName() == "Html") Canvas(props["html"], props["data"], props.Find("mounts"), id);
      WalkChildren(props, id);
      return;
    }
    if (v.IsAst()) {
      const Value& args = v["args"];
      if (v.AstKind() == "Comp" && args.is_array()) {
        const std::string_view name = v["name"].string();
        if (name == "Html") {
          Canvas(args.at(0), args.at(1), args.size() > 2 ? &args.at(2) : nullptr, statement);
        }
        if (name == "OpenUrl" && args.at(0).AstKind() == "Str") {
          auto url = args.at(0).StringLiteral();
          if (url && IsScriptUrl(*url)) {
            Add("runtime-url", "OpenUrl", "", "@OpenUrl may not open a script URL", statement);
          }
        }
        WalkChildren(args, statement);  // mappedProps repeats args
        return;
      }
    }
    WalkChildren(v, statement);
  }

  void Handles(const ParseResult& r, const std::vector<std::string>& handles) {
    auto check = [&](std::string_view id, const Value& tool, const char* kind) {
      if (tool.AstKind() != "Str" || !tool["v"].is_string()) {
        Add("handle-not-literal", kind, "",
            std::string(kind) +
                "() must name its tool with a string literal so it can be checked against the "
                "registered handles",
            id);
        return;
      }
      const std::string name(tool["v"].string());
      if (std::find(handles.begin(), handles.end(), name) == handles.end()) {
        std::string list;
        for (const auto& h : handles) list += (list.empty() ? "" : ", ") + h;
        Add("unknown-handle", kind, "",
            std::string(kind) + "(\"" + name + "\") names no registered handle" +
                (list.empty() ? "" : "; registered: " + list),
            id);
      }
    };
    for (const QueryStatement& q : r.query_statements) check(q.statement_id, *q.tool, "Query");
    for (const MutationStatement& m : r.mutation_statements)
      check(m.statement_id, *m.tool, "Mutation");
  }

 private:
  void WalkChildren(const Value& v, std::string_view statement) {
    for (const Value* e : v.items()) Walk(*e, statement);
    for (const Value::Member& m : v.members()) Walk(*m.value, statement);
  }

  void Add(const std::string& code, const std::string& component, const std::string& path,
           const std::string& message, std::string_view statement) {
    out_->push_back(
        LangError{code, component, path, message,
                  statement.empty() ? std::nullopt : std::optional<std::string>(statement)});
  }

  void ScriptUrlsInData(const Value& v, std::string_view statement, const std::string& path) {
    if (auto s = v.StringLiteral()) {
      if (IsScriptUrl(*s)) {
        Add("runtime-url", "Html", path,
            "canvas data at " + path +
                " holds a script URL; the Html canvas may not run JavaScript",
            statement);
      }
      return;
    }
    for (const Value::Member& m : v.members()) {
      ScriptUrlsInData(*m.value, statement, path + "/" + std::string(m.key));
    }
    const auto items = v.items();
    for (size_t i = 0; i < items.size(); ++i) {
      ScriptUrlsInData(*items[i], statement, path + "/" + std::to_string(i));
    }
  }

  void Canvas(const Value& html, const Value& data, const Value* mounts,
              std::string_view statement) {
    const auto markup = html.StringLiteral();
    if (!markup) {
      if (!html.is_null()) {
        Add("html-not-literal", "Html", "/html",
            "the markup of an Html canvas must be a string "
            "literal; pass changing values through data and {{placeholders}}",
            statement);
      }
      return;
    }
    HtmlScan scan = ScanHtml(*markup);
    for (const auto& p : scan.problems) Add(p.code, "Html", "/html", p.message, statement);
    ScriptUrlsInData(data, statement, "/data");
    if (!mounts || !mounts->is_array()) return;
    for (const Value* m : mounts->items()) {
      std::string name;
      if (m->TypeName() == "HtmlMount" && m->Props()["name"].is_string()) {
        name = m->Props()["name"].string();
      } else if (m->AstKind() == "Comp" && (*m)["name"].string() == "HtmlMount" &&
                 (*m)["args"].size() > 0) {
        if (auto s = (*m)["args"].at(0).StringLiteral()) name = *s;
      }
      if (name.empty()) continue;
      if (std::find(scan.mount_slots.begin(), scan.mount_slots.end(), name) ==
          scan.mount_slots.end()) {
        Add("mount-without-slot", "HtmlMount", "/mounts",
            "HtmlMount(\"" + name + "\") has no slot: add an element with data-mount='" + name +
                "' to the markup",
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
  if (result.root->is_null() && !result.incomplete) {
    out.push_back(LangError{"empty-program", "", "",
                            "the program renders nothing: define "
                            "`root = <Component>(...)`",
                            std::nullopt});
  }
  checker.Walk(*result.root, "");
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
