#include "surface/semantic.h"

#include "surface/value.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace affordance::surface {
namespace {

// Props the library defines as data to present (docs/SURFACE.md "source position").
bool IsSourcePosition(const std::string& component, const std::string& prop) {
  return (component == "Col" && prop == "values") || (component == "Html" && prop == "data");
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Quote(const Value& v) {
  std::string text = v.ToJson().dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

class BindingChecker {
 public:
  BindingChecker(const ParseResult& parse, const std::vector<QueryHandle>& handles,
                 const std::vector<Evidence>& evidence)
      : parse_(parse), evidence_(evidence) {
    for (const auto& e : evidence) {
      if (e.this_turn) turn_sources_.insert(e.connector);
    }
    for (const auto& h : handles) {
      if (!h.title.empty()) titles_[h.connector] = h.title;
    }
    for (const auto& q : parse.query_statements) Bind(q.statement_id, *q.tool, handles, true);
    for (const auto& m : parse.mutation_statements) Bind(m.statement_id, *m.tool, handles, false);
  }

  void Run() { Walk(*parse_.root, "", false, "", ""); }

  std::vector<LangError> Finish() {
    if (turn_sources_.size() >= 2 && used_sources_.size() >= 2) {
      std::string visible = Lower(visible_);
      for (const auto& source : used_sources_) {
        // Shown by its slug ("google_calendar", or spaced) or by its display title.
        std::string spaced = source;
        std::replace(spaced.begin(), spaced.end(), '_', ' ');
        std::replace(spaced.begin(), spaced.end(), '-', ' ');
        auto title = titles_.find(source);
        if (visible.find(Lower(source)) != std::string::npos ||
            visible.find(Lower(spaced)) != std::string::npos ||
            (title != titles_.end() && visible.find(Lower(title->second)) != std::string::npos)) {
          continue;
        }
        std::string all;
        for (const auto& s : used_sources_) all += (all.empty() ? "" : ", ") + s;
        Add("unshown-source", "", "",
            "the program presents data from " + all + " but does not show that it used " + source +
                ": name each source in the visible text",
            "");
      }
    }
    return std::move(out_);
  }

  const std::set<std::string>& grounded_sources() const { return grounded_sources_; }

 private:
  void Bind(std::string_view statement_id, const Value& tool,
            const std::vector<QueryHandle>& handles, bool query) {
    auto literal = tool.StringLiteral();
    if (!literal || !tool.IsAst()) return;
    const std::string name(*literal);
    const std::string id(statement_id);
    for (const auto& h : handles) {
      if (h.handle != name) continue;
      if (query && h.mutation) {
        Add("mutation-as-query", "Query", "",
            "Query(\"" + name +
                "\") names a mutation; effects are staged with Mutation() and @Run, never run "
                "as a query",
            id);
      } else if (!query && !h.mutation) {
        Add("query-as-mutation", "Mutation", "",
            "Mutation(\"" + name + "\") names a read handle; read it with Query()", id);
      }
      if (query) {
        queries_[id] = &h;
        if (!h.connector.empty()) used_sources_.insert(h.connector);
      }
    }
  }

  void Add(const std::string& code, const std::string& component, const std::string& path,
           const std::string& message, const std::string& statement) {
    out_.push_back(LangError{code, component, path, message,
                             statement.empty() ? std::nullopt : std::optional(statement)});
  }

  // A plain literal in a source position: grounded by a served field of an evidence row?
  void Claim(const Value& value, const std::string& statement, const std::string& path,
             const std::string& component) {
    if (turn_sources_.empty()) return;  // no connector read this turn: the model's own content
    if (value.is_string() && value.string().empty()) return;
    const std::string text =
        value.is_string()
            ? std::string(value.string())
            : value.ToJson().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    for (const auto& e : evidence_) {
      for (const auto& row : e.rows) {
        if (!row.is_object()) continue;
        for (auto it = row.begin(); it != row.end(); ++it) {
          if (!e.served_fields.empty() && std::find(e.served_fields.begin(), e.served_fields.end(),
                                                    it.key()) == e.served_fields.end()) {
            continue;
          }
          const auto& cell = it.value();
          const bool same = cell.is_string() ? cell.get_ref<const std::string&>() == text
                                             : (cell.is_number() && cell.dump() == text);
          if (same) {
            grounded_sources_.insert(e.connector);
            used_sources_.insert(e.connector);
            return;
          }
        }
      }
    }
    Add("unbound-source-value", component, path,
        component + " presents " + Quote(value) +
            " as source data, but no row the turn read serves that value; bind it to a "
            "Query() result or use the rows' own values",
        statement);
  }

  // q.rows.<field> on a Query result: the field must be one the handle serves.
  void Chain(const Value& v, const std::string& statement) {
    std::vector<const Value*> steps;
    const Value* node = &v;
    while (node->IsAst() && (node->AstKind() == "Member" || node->AstKind() == "Index")) {
      steps.push_back(node);
      node = &(*node)["obj"];
    }
    std::reverse(steps.begin(), steps.end());
    for (const Value* s : steps) {
      if (s->AstKind() == "Index") Walk((*s)["index"], statement, false, "", "");
    }
    if (!node->IsAst() || node->AstKind() != "RuntimeRef" ||
        (*node)["refType"].string() != "query") {
      Walk(*node, statement, false, "", "");
      return;
    }
    auto q = queries_.find(std::string((*node)["n"].string()));
    if (q == queries_.end() || steps.empty()) return;
    const QueryHandle& h = *q->second;
    const Value& first = *steps[0];
    const std::string first_field(first["field"].string());
    if (first.AstKind() != "Member" || first_field != "rows") {
      Add("unserved-field", "Query", "",
          "a Query result is {rows}; read " + q->first + ".rows, not " +
              (first.AstKind() == "Member" ? q->first + "." + first_field : "an index"),
          statement);
      return;
    }
    bool indexed = false;
    for (size_t i = 1; i < steps.size(); ++i) {
      const Value& s = *steps[i];
      if (s.AstKind() == "Index") {
        indexed = true;
        continue;
      }
      const std::string field(s["field"].string());
      if (!indexed && field == "length") return;
      if (h.served_fields.empty() || std::find(h.served_fields.begin(), h.served_fields.end(),
                                               field) != h.served_fields.end()) {
        return;
      }
      std::string served;
      for (const auto& f : h.served_fields) served += (served.empty() ? "" : ", ") + f;
      Add("unserved-field", "Query", "",
          "Query(\"" + h.handle + "\") does not serve the field \"" + field + "\" (" + q->first +
              ".rows." + field + "); it serves: " + served,
          statement);
      return;
    }
  }

  void Walk(const Value& v, const std::string& statement, bool source, const std::string& path,
            const std::string& component) {
    if (v.IsElement()) {
      const std::string id = v.StatementId() ? std::string(*v.StatementId()) : statement;
      const std::string type(v.TypeName());
      for (const Value::Member& p : v.Props().members()) {
        const std::string key(p.key);
        Walk(*p.value, id, IsSourcePosition(type, key), "/" + key, type);
      }
      return;
    }
    if (v.IsAst()) {
      const std::string_view k = v.AstKind();
      if (k == "Member" || k == "Index") return Chain(v, statement);
      if (k == "Str" || k == "Num") {
        if (k == "Str") visible_ += " " + std::string(v["v"].string());
        if (source) Claim(v["v"], statement, path, component);
        return;
      }
      if (k == "Arr") {
        const auto els = v["els"].items();
        for (size_t i = 0; i < els.size(); ++i) {
          Walk(*els[i], statement, source, path + "/" + std::to_string(i), component);
        }
        return;
      }
      if (k == "Obj") {
        for (const Value* entry : v["entries"].items()) {
          if (entry->is_array() && entry->size() == 2 && entry->at(0).is_string()) {
            Walk(entry->at(1), statement, source, path + "/" + std::string(entry->at(0).string()),
                 component);
          }
        }
        return;
      }
      // Computed values (operators, ternaries, calls): literals inside them are not claims.
      for (const Value::Member& m : v.members()) {
        if (m.key != "k") Walk(*m.value, statement, false, path, component);
      }
      return;
    }
    if (v.is_string()) {
      visible_ += " " + std::string(v.string());
      if (source) Claim(v, statement, path, component);
    } else if (v.is_number()) {
      if (source) Claim(v, statement, path, component);
    } else if (v.is_array()) {
      const auto items = v.items();
      for (size_t i = 0; i < items.size(); ++i) {
        Walk(*items[i], statement, source, path + "/" + std::to_string(i), component);
      }
    } else if (v.is_object()) {
      for (const Value::Member& m : v.members()) {
        Walk(*m.value, statement, source, path + "/" + std::string(m.key), component);
      }
    }
  }

  const ParseResult& parse_;
  const std::vector<Evidence>& evidence_;
  std::map<std::string, const QueryHandle*> queries_;  // statement id -> handle
  std::set<std::string> turn_sources_;                 // connectors read this turn
  std::set<std::string> used_sources_;                 // connectors the program presents
  std::map<std::string, std::string> titles_;          // connector -> display title
  std::set<std::string> grounded_sources_;
  std::string visible_;
  std::vector<LangError> out_;
};

}  // namespace

std::vector<LangError> CheckBindings(const ParseResult& parse,
                                     const std::vector<QueryHandle>& handles,
                                     const std::vector<Evidence>& evidence) {
  std::vector<LangError> out;
  if (parse.incomplete) {
    out.push_back(LangError{"incomplete-program", "", "",
                            "the program is cut off (an unclosed string or bracket); send it "
                            "whole",
                            std::nullopt});
  }
  BindingChecker checker(parse, handles, evidence);
  checker.Run();
  for (auto& e : checker.Finish()) out.push_back(std::move(e));
  return out;
}

std::vector<std::string> GroundedSources(const ParseResult& parse,
                                         const std::vector<Evidence>& evidence) {
  BindingChecker checker(parse, {}, evidence);
  checker.Run();
  return {checker.grounded_sources().begin(), checker.grounded_sources().end()};
}

}  // namespace affordance::surface
