// Parsing a whole OpenUI Lang program into lang-core's ParseResult.
//
// Parse() is the C++ counterpart of lang-core 0.2.18's `createParser(schema).parse(text)`:
// same root element tree (typeName, props mapped from positional arguments in schema order,
// statementId, partial, hasDynamicProps), same meta (incomplete, unresolved, orphaned,
// statementCount, errors with lang-core's codes and messages), same stateDeclarations,
// queryStatements and mutationStatements. Differences, all listed in docs/SURFACE.md, only ADD
// errors: lines that are not statements ("non-statement"), text after a complete expression
// ("trailing-tokens"), names defined twice ("duplicate-statement"), and the resource bounds
// ("nesting-too-deep", "expansion-too-large") that keep hostile input from exhausting memory.
// Parsing never fails and never throws.
#pragma once

#include "surface/library.h"
#include "surface/value.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::surface {

// One problem found in a program, meant for an automatic correction loop.
struct LangError {
  std::string code;       // lang-core's ("unknown-component", ...) or ours (see above)
  std::string component;  // component type name, "" when not about one
  std::string path;       // JSON pointer into the props ("/title"), "" for the whole call
  std::string message;
  std::optional<std::string> statement_id;  // the statement to patch, when known
};

// A Query(...) statement. The AST values are lang-core's AST JSON shapes ({k: "Str", v}, ...);
// an argument that was not given is the null value.
struct QueryStatement {
  std::string_view statement_id;
  const Value* tool = &Value::Null();      // toolAST: usually {k: "Str", v: "tool_name"}
  const Value* args = &Value::Null();      // argsAST
  const Value* defaults = &Value::Null();  // defaultsAST
  const Value* refresh = &Value::Null();   // refreshAST
  std::vector<std::string_view> deps;      // "$state" names read by the args, first use first
};

// A Mutation(...) statement.
struct MutationStatement {
  std::string_view statement_id;
  const Value* tool = &Value::Null();  // toolAST
  const Value* args = &Value::Null();  // argsAST
};

// A `$name = default` declaration, or a $name used somewhere without one (default: null).
struct StateDeclaration {
  std::string_view name;                // "$name"
  const Value* value = &Value::Null();  // the materialized default
};

// The parsed program. Every Value and string_view in it points into `arena`, which copies of
// the ParseResult share; keep a copy alive while you hold them.
//
// Walking the tree (see value.h):
//   const Value& root = *result.root;            // null value when nothing renders
//   root.IsElement(); root.TypeName();           // "Stack"
//   root.StatementId();                          // "root" (the statement that defined it)
//   for (const Value::Member& p : root.Props().members()) ...   // props in schema order
//   const Value* kids = root.Prop("children");   // nullptr when not set
//   for (const Value* child : kids->items()) ... // elements, plain values or AST nodes
//   child->IsAst(); child->AstKind();            // a runtime expression ("Member", "Comp", ...)
struct ParseResult {
  const Value* root = &Value::Null();  // the root element node, or the null value
  bool incomplete = true;
  std::vector<std::string> unresolved;
  std::vector<std::string> orphaned;
  size_t statement_count = 0;
  std::vector<LangError> errors;
  std::vector<StateDeclaration> state_declarations;    // in lang-core's order
  std::vector<QueryStatement> query_statements;        // in statement order
  std::vector<MutationStatement> mutation_statements;  // in statement order
  std::shared_ptr<const Arena> arena;                  // owns the values above

  // The state default of `name` ("$x"), or nullptr when not declared.
  const Value* State(std::string_view name) const;

  // The lang-core ParseResult JSON: {root, meta: {incomplete, unresolved, orphaned,
  // statementCount, errors}, stateDeclarations, queryStatements, mutationStatements}.
  Json ToJson() const;
};

Json ErrorToJson(const LangError& error);

// Parses a complete (or truncated) program. Markdown fences and // or # comments are removed
// first; an unfinished string or bracket at the end is closed and the result marked incomplete.
ParseResult Parse(std::string_view text, const Library& library);

}  // namespace affordance::surface
