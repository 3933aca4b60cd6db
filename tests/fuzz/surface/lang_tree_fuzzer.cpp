// Fuzzes the arena value tree of a parsed program (src/surface/value.h). The first byte picks a
// chunk size for the streaming parser; the rest is the program. Checked, on every input:
//  - parsing is deterministic: two parses give the same ParseResult JSON;
//  - the tree outlives the ParseResult it came from through a copy (the arena is shared);
//  - walking the tree (items(), members(), Find(), at(), operator[]) agrees with its JSON;
//  - the element/AST recognition of every Value (IsElement(), IsAst(), TypeName(), AstKind(),
//    StatementId(), StringLiteral()) equals lang-core's shape rules applied to the JSON;
//  - the streaming parser's final result does not depend on how the text was chunked.
// A violation aborts (libFuzzer reports it with the input).
#include "surface/stream.h"
#include "surface/validate.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

using namespace affordance::surface;

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "lang_tree_fuzzer: %s\n", what);
    std::abort();
  }
}

// lang-core's isElementNode / isASTNode, written against the JSON (independent of value.cpp).
bool JsonIsElement(const Json& j) {
  if (!j.is_object()) return false;
  auto t = j.find("type"), n = j.find("typeName"), p = j.find("props"), q = j.find("partial");
  return t != j.end() && t->is_string() && *t == "element" && n != j.end() && n->is_string() &&
         p != j.end() && (p->is_object() || p->is_array()) && q != j.end() && q->is_boolean();
}
bool JsonIsAst(const Json& j) {
  if (!j.is_object()) return false;
  auto k = j.find("k");
  if (k == j.end() || !k->is_string()) return false;
  static const char* kKinds[] = {"Comp",    "Str",     "Num",    "Bool",     "Null",       "Arr",
                                 "Obj",     "Ref",     "Ph",     "StateRef", "RuntimeRef", "BinOp",
                                 "UnaryOp", "Ternary", "Member", "Index",    "Assign"};
  for (const char* name : kKinds) {
    if (*k == name) return true;
  }
  return false;
}

void Agree(const Value& v, const Json& j, int depth) {
  Check(depth < 100000, "runaway depth");
  switch (v.type()) {
    case Value::Type::kNull:
      Check(j.is_null(), "null");
      return;
    case Value::Type::kBool:
      Check(j.is_boolean() && j.get<bool>() == v.boolean(), "bool");
      return;
    case Value::Type::kInt:
    case Value::Type::kDouble:
      Check(j.is_number() || j.is_null(), "number");  // NaN/Infinity are stored, dumped as null
      return;
    case Value::Type::kString:
      Check(j.is_string() && j.get_ref<const std::string&>() == v.string(), "string");
      return;
    case Value::Type::kArray: {
      Check(j.is_array() && j.size() == v.size() && v.items().size() == v.size(), "array size");
      for (size_t i = 0; i < v.size(); ++i) {
        Check(&v.at(i) == v.items()[i], "at() and items() agree");
        Agree(v.at(i), j[i], depth + 1);
      }
      Check(v.at(v.size()).is_null(), "at() past the end is null");
      break;
    }
    case Value::Type::kObject: {
      Check(j.is_object() && j.size() == v.size(), "object size");
      size_t i = 0;
      for (auto it = j.begin(); it != j.end(); ++it, ++i) {
        const Value::Member& m = v.members()[i];
        Check(m.key == it.key(), "member order");
        Check(v.Find(m.key) == m.value && &v[m.key] == m.value, "Find() and [] agree");
        Agree(*m.value, it.value(), depth + 1);
      }
      break;
    }
  }
  Check(v.IsElement() == JsonIsElement(j), "IsElement() follows lang-core's shape rule");
  Check(v.IsAst() == JsonIsAst(j), "IsAst() follows lang-core's shape rule");
  if (v.IsElement()) {
    Check(v.TypeName() == j["typeName"].get_ref<const std::string&>(), "TypeName()");
    Check(&v.Props() == v.Find("props"), "Props()");
    auto id = j.find("statementId");
    Check(v.StatementId().has_value() == (id != j.end() && id->is_string()), "StatementId()");
  } else {
    Check(v.TypeName().empty() && v.Props().is_null(), "non-elements have no typeName/props");
  }
  if (v.IsAst()) Check(v.AstKind() == j["k"].get_ref<const std::string&>(), "AstKind()");
  if (auto s = v.StringLiteral()) {
    Check(j.is_string() || (JsonIsAst(j) && j["k"] == "Str"), "StringLiteral() shape");
  }
}

Json Streamed(std::string_view text, size_t chunk) {
  StreamParser stream(Library::Default());
  for (size_t i = 0; i < text.size(); i += chunk) stream.Push(text.substr(i, chunk));
  return stream.Result().ToJson();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t chunk = 1 + data[0] % 64;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const Library& lib = Library::Default();

  const Json first = Parse(text, lib).ToJson();
  ParseResult copy;
  {
    ParseResult again = Parse(text, lib);
    copy = again;  // shares the arena; `again` is destroyed below
  }
  const Json second = copy.ToJson();
  Check(first == second || first.dump(-1, ' ', false, Json::error_handler_t::replace) ==
                               second.dump(-1, ' ', false, Json::error_handler_t::replace),
        "parse is deterministic and survives its source ParseResult");

  Agree(*copy.root, second["root"], 0);
  for (const StateDeclaration& d : copy.state_declarations) {
    Agree(*d.value, second["stateDeclarations"][std::string(d.name)], 0);
    Check(copy.State(d.name) != nullptr, "State() finds every declaration");
  }
  for (size_t i = 0; i < copy.query_statements.size(); ++i) {
    const QueryStatement& q = copy.query_statements[i];
    const Json& jq = second["queryStatements"][i];
    Check(jq["statementId"] == std::string(q.statement_id), "query statementId");
    Agree(*q.tool, jq["toolAST"], 0);
    Agree(*q.args, jq["argsAST"], 0);
    Agree(*q.defaults, jq["defaultsAST"], 0);
    Agree(*q.refresh, jq["refreshAST"], 0);
  }
  for (size_t i = 0; i < copy.mutation_statements.size(); ++i) {
    const MutationStatement& m = copy.mutation_statements[i];
    const Json& jm = second["mutationStatements"][i];
    Agree(*m.tool, jm["toolAST"], 0);
    Agree(*m.args, jm["argsAST"], 0);
  }

  // Validation walks the same tree; it must not throw or crash on any of it.
  (void)CheckSemantics(copy, ValidationOptions{std::vector<std::string>{"list"}});

  const std::string whole =
      Streamed(text, text.size() + 1).dump(-1, ' ', false, Json::error_handler_t::replace);
  const std::string chunked =
      Streamed(text, chunk).dump(-1, ' ', false, Json::error_handler_t::replace);
  Check(whole == chunked, "streaming result does not depend on chunk boundaries");
  return 0;
}
