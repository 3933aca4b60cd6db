// Evaluation of a program's runtime expressions (lang-core 0.2.18 src/runtime/evaluator.ts,
// `evaluate`), for renderers that run in C++: the terminal's text renderer (text_render.cpp) and
// the arguments of Query() bindings that read $state (query.cpp ReadBindings).
//
// Input is lang-core's JSON of a value (Value::ToJson): AST nodes {k: "Member", ...} are evaluated,
// anything else is returned as it is (element nodes included; their props are evaluated by whoever
// renders them). Semantics follow lang-core: member access on an array plucks a field from every
// element (`.length` is its size), `+` concatenates when either side is a string, arithmetic reads
// operands with toNumber (0 for what is not a number, division by zero is 0), `==` is JavaScript's
// loose equality on JSON values, the data builtins (@Count ... @Ceil, lazy @Each) compute as there.
// Action expressions (Action, @Run, @Set, ...) evaluate to {"action": name}: nothing runs here.
// Component calls inside expressions (an @Each template) evaluate to element nodes whose props are
// already evaluated. Never throws.
#pragma once

#include "surface/program.h"
#include "surface/query.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace affordance::surface::internal {

class EvalScope {
 public:
  // Queries read `rows` (each {rows: [...]} once read; the statement's defaults, or null, when its
  // rows are absent or could not be read); $state reads the program's state defaults. `program`
  // and `rows` (may be null: no query has rows) must outlive the scope.
  EvalScope(const ParseResult& program, const BoundRows* rows);

  Json Evaluate(const Json& node);

  // The Query statements that evaluations since the last ResetQueriesRead() read (whether their
  // rows were read or not: see BoundRows).
  const std::set<std::string>& queries_read() const { return queries_read_; }
  void ResetQueriesRead() { queries_read_.clear(); }

 private:
  Json Ref(const std::string& name);
  Json RuntimeRef(const Json& node);
  Json Call(const Json& node);
  Json Each(const Json& args);
  Json BinOp(const Json& node);
  Json Member(const Json& node);
  Json Index(const Json& node);

  const ParseResult& program_;
  const BoundRows* rows_;
  std::vector<std::pair<std::string, Json>> query_values_;  // statement -> value, built once
  std::vector<std::pair<std::string, Json>> locals_;        // @Each variables, innermost last
  std::set<std::string> queries_read_;
};

// JavaScript truthiness of a JSON value (null, false, 0, NaN and "" are false).
bool Truthy(const Json& v);
// lang-core's toNumber: numbers as they are, numeric strings parsed, booleans 1/0, else 0.
double ToNumber(const Json& v);
// JavaScript's String(v) for a JSON value ("null", "true", "1.5", arrays joined with ",").
std::string JsString(const Json& v);

}  // namespace affordance::surface::internal
