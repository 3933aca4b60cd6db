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

struct ParseResult {
  Json root;  // the root ElementNode, or null
  bool incomplete = true;
  std::vector<std::string> unresolved;
  std::vector<std::string> orphaned;
  size_t statement_count = 0;
  std::vector<LangError> errors;
  Json state_declarations = Json::object();   // "$name" -> default value
  Json query_statements = Json::array();      // {statementId, toolAST, argsAST, ...}
  Json mutation_statements = Json::array();   // {statementId, toolAST, argsAST}

  // The lang-core ParseResult JSON: {root, meta: {incomplete, unresolved, orphaned,
  // statementCount, errors}, stateDeclarations, queryStatements, mutationStatements}.
  Json ToJson() const;
};

Json ErrorToJson(const LangError& error);

// Parses a complete (or truncated) program. Markdown fences and // or # comments are removed
// first; an unfinished string or bracket at the end is closed and the result marked incomplete.
ParseResult Parse(std::string_view text, const Library& library);

}  // namespace affordance::surface
