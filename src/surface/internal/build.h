// Shared by the one-shot and streaming parsers: typed statements and ParseResult assembly
// (lang-core's classifyStatement, buildResult, materializeValue and schema validation).
#pragma once

#include "surface/program.h"
#include "surface/syntax.h"

#include <memory>
#include <unordered_map>

namespace affordance::surface::internal {

// A parsed statement. Its id and expression tree live in the arena of the StatementTable that
// holds it (or, before Set(), in the arena given to ParseStatement()).
struct Statement {
  enum class Kind { kValue, kState, kQuery, kMutation };
  Kind kind = Kind::kValue;
  std::string_view id;
  Node expr;
};

// Statements by name with JavaScript Map semantics: Set() on an existing name replaces the value
// but keeps its original position.
//
// The table owns the arenas its statements were parsed into. Copies share them (statements are
// immutable); Arena() hands out one that no copy shares, so a copy never sees the other grow.
class StatementTable {
 public:
  static constexpr size_t npos = static_cast<size_t>(-1);

  bool Has(std::string_view id) const { return index_.count(id) != 0; }
  // Returns true when `id` was already present (a duplicate).
  bool Set(const Statement& stmt);
  const Statement* Get(std::string_view id) const;
  // The position of `id` in ordered(), or npos.
  size_t IndexOf(std::string_view id) const;
  const std::vector<Statement>& ordered() const { return items_; }
  size_t size() const { return items_.size(); }
  void Clear() {
    items_.clear();
    index_.clear();
    arenas_.clear();
  }
  // An arena this table owns and no copy of it shares, for statements about to be Set().
  Arena& arena();

 private:
  std::vector<Statement> items_;
  std::unordered_map<std::string_view, size_t> index_;  // keys view the statements' arenas
  std::vector<std::shared_ptr<Arena>> arenas_;
};

// Parses the expression of `raw` and classifies it (query, mutation, state or value), allocating
// its tree and id in `arena`; the token texts of `raw` must outlive the statement too. Problems
// with the expression itself (trailing tokens, nesting) are appended to *errors.
Statement ParseStatement(const RawStatement& raw, Arena& arena, std::vector<LangError>* errors);

// Reports lines split() could not read.
void ReportSkipped(const std::vector<SkippedLine>& skipped, std::vector<LangError>* errors);
LangError DuplicateError(std::string_view id);

// buildResult(): picks the entry statement, materializes the tree and validates it against the
// library, then appends `extra` (our own findings) to meta.errors.
ParseResult BuildResult(const StatementTable& table, std::string_view first_id, bool incomplete,
                        size_t statement_count, const Library& library,
                        const std::vector<LangError>& extra);

ParseResult EmptyResult(bool incomplete, const std::vector<LangError>& extra);

}  // namespace affordance::surface::internal
