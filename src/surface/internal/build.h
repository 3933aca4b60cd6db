// Shared by the one-shot and streaming parsers: typed statements and ParseResult assembly
// (lang-core's classifyStatement, buildResult, materializeValue and schema validation).
#pragma once

#include "surface/program.h"
#include "surface/syntax.h"

#include <unordered_map>

namespace affordance::surface::internal {

struct Statement {
  enum class Kind { kValue, kState, kQuery, kMutation };
  Kind kind = Kind::kValue;
  std::string id;
  Node expr;
};

// Statements by name with JavaScript Map semantics: Set() on an existing name replaces the value
// but keeps its original position.
class StatementTable {
 public:
  bool Has(const std::string& id) const { return index_.count(id) != 0; }
  // Returns true when `id` was already present (a duplicate).
  bool Set(Statement stmt);
  const Statement* Get(const std::string& id) const;
  const std::vector<Statement>& ordered() const { return items_; }
  size_t size() const { return items_.size(); }
  void Clear() { items_.clear(); index_.clear(); }

 private:
  std::vector<Statement> items_;
  std::unordered_map<std::string, size_t> index_;
};

// Parses the expression of `raw` and classifies it (query, mutation, state or value). Problems
// with the expression itself (trailing tokens, nesting) are appended to *errors.
Statement ParseStatement(const RawStatement& raw, std::vector<LangError>* errors);

// Reports lines split() could not read.
void ReportSkipped(const std::vector<SkippedLine>& skipped, std::vector<LangError>* errors);
LangError DuplicateError(const std::string& id);

// buildResult(): picks the entry statement, materializes the tree and validates it against the
// library, then appends `extra` (our own findings) to meta.errors.
ParseResult BuildResult(const StatementTable& table, const std::string& first_id, bool incomplete,
                        size_t statement_count, const Library& library,
                        const std::vector<LangError>& extra);

ParseResult EmptyResult(bool incomplete, const std::vector<LangError>& extra);

}  // namespace affordance::surface::internal
