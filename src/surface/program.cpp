// One-shot parsing and ParseResult assembly: lang-core's parse(), classifyStatement(),
// buildResult() and extractStatements().
#include "surface/program.h"

#include "surface/internal/build.h"
#include "surface/internal/materialize.h"

#include <unordered_set>

namespace affordance::surface {
namespace internal {
namespace {

void CollectStateRefs(const Node& node, std::vector<std::string>* out,
                      std::unordered_set<std::string>* seen) {
  // walkAST() order: the node, then its children left to right.
  if (node.kind == NodeKind::kStateRef && seen->insert(node.text).second) out->push_back(node.text);
  for (const Node& k : node.kids) CollectStateRefs(k, out, seen);
}

std::vector<std::string> StateRefs(const Node& node) {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  CollectStateRefs(node, &out, &seen);
  return out;
}

bool IsComponentStatement(const Statement& s) {
  return s.kind == Statement::Kind::kValue && s.expr.kind == NodeKind::kComp &&
         !IsBuiltin(s.expr.text) && !IsReservedCall(s.expr.text);
}

std::string PickEntry(const StatementTable& table, const std::string& first_id,
                      const std::string& root_name) {
  if (table.Has("root")) return "root";
  if (!root_name.empty() && table.Has(root_name)) return root_name;
  if (!root_name.empty()) {
    for (const Statement& s : table.ordered()) {
      if (IsComponentStatement(s) && s.expr.text == root_name) return s.id;
    }
  }
  for (const Statement& s : table.ordered()) {
    if (IsComponentStatement(s)) return s.id;
  }
  return first_id;
}

Json ArgOrNull(const Node& call, size_t i) {
  return i < call.kids.size() ? AstToJson(call.kids[i]) : Json(nullptr);
}

}  // namespace

bool StatementTable::Set(Statement stmt) {
  auto it = index_.find(stmt.id);
  if (it != index_.end()) {
    items_[it->second] = std::move(stmt);
    return true;
  }
  index_.emplace(stmt.id, items_.size());
  items_.push_back(std::move(stmt));
  return false;
}

const Statement* StatementTable::Get(const std::string& id) const {
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : &items_[it->second];
}

Statement ParseStatement(const RawStatement& raw, std::vector<LangError>* errors) {
  ParsedExpression parsed = ParseExpression(raw.tokens);
  if (parsed.too_deep) {
    errors->push_back(LangError{"nesting-too-deep", "", "",
                                "the expression of \"" + raw.id + "\" nests deeper than " +
                                    std::to_string(kMaxExpressionDepth) +
                                    " levels; the rest of the statement was ignored",
                                raw.id});
  } else if (parsed.consumed < raw.tokens.size()) {
    errors->push_back(LangError{"trailing-tokens", "", "",
                                "statement \"" + raw.id +
                                    "\" has text after its expression that was ignored; put "
                                    "each statement on its own line",
                                raw.id});
  }
  Statement s;
  s.id = raw.id;
  s.expr = std::move(parsed.node);
  if (s.expr.kind == NodeKind::kComp && s.expr.text == "Query") {
    s.kind = Statement::Kind::kQuery;
  } else if (s.expr.kind == NodeKind::kComp && s.expr.text == "Mutation") {
    s.kind = Statement::Kind::kMutation;
  } else if (raw.id_type == Tok::kStateVar) {
    s.kind = Statement::Kind::kState;
  }
  return s;
}

void ReportSkipped(const std::vector<SkippedLine>& skipped, std::vector<LangError>* errors) {
  for (const SkippedLine& line : skipped) {
    errors->push_back(LangError{"non-statement", "", "",
                                "this line is not a statement (`name = expression`): " +
                                    line.text,
                                std::nullopt});
  }
}

LangError DuplicateError(const std::string& id) {
  return LangError{"duplicate-statement", "", "",
                   "\"" + id + "\" is defined more than once; the last complete definition wins",
                   id};
}

ParseResult EmptyResult(bool incomplete, const std::vector<LangError>& extra) {
  ParseResult r;
  r.root = nullptr;
  r.incomplete = incomplete;
  r.errors = extra;
  return r;
}

ParseResult BuildResult(const StatementTable& table, const std::string& first_id, bool incomplete,
                        size_t statement_count, const Library& library,
                        const std::vector<LangError>& extra) {
  const std::string entry = PickEntry(table, first_id, library.root());
  const Statement* entry_stmt = table.Get(entry);
  if (!entry_stmt) return EmptyResult(incomplete, extra);

  MaterializeContext ctx;
  ctx.library = &library;
  ctx.partial = incomplete;
  ctx.current_statement = entry;
  std::vector<std::string> unreached_order;
  for (const Statement& s : table.ordered()) {
    ctx.syms.emplace(s.id, &s);
    if (s.id == entry || s.kind != Statement::Kind::kValue) continue;
    unreached_order.push_back(s.id);
    ctx.unreached.insert(s.id);
  }

  ParseResult r;
  Json materialized = MaterializeValue(entry_stmt->expr, ctx);
  if (IsElementJson(materialized)) {
    materialized["statementId"] = entry;
    r.root = std::move(materialized);
  } else {
    r.root = nullptr;
  }

  // extractStatements(): state defaults (materialized), queries, mutations, auto-declared $vars.
  for (const Statement& s : table.ordered()) {
    switch (s.kind) {
      case Statement::Kind::kState:
        r.state_declarations[s.id] = MaterializeValue(s.expr, ctx);
        break;
      case Statement::Kind::kQuery: {
        Json q = Json::object();
        q["statementId"] = s.id;
        q["toolAST"] = ArgOrNull(s.expr, 0);
        q["argsAST"] = ArgOrNull(s.expr, 1);
        q["defaultsAST"] = ArgOrNull(s.expr, 2);
        q["refreshAST"] = ArgOrNull(s.expr, 3);
        if (s.expr.kids.size() > 1) {
          std::vector<std::string> deps = StateRefs(s.expr.kids[1]);
          if (!deps.empty()) q["deps"] = deps;
        }
        q["complete"] = true;
        r.query_statements.push_back(std::move(q));
        break;
      }
      case Statement::Kind::kMutation: {
        Json m = Json::object();
        m["statementId"] = s.id;
        m["toolAST"] = ArgOrNull(s.expr, 0);
        m["argsAST"] = ArgOrNull(s.expr, 1);
        r.mutation_statements.push_back(std::move(m));
        break;
      }
      case Statement::Kind::kValue:
        break;
    }
  }
  for (const Statement& s : table.ordered()) {
    for (const std::string& dep : StateRefs(s.expr)) {
      if (!r.state_declarations.contains(dep)) r.state_declarations[dep] = nullptr;
    }
  }

  for (const std::string& id : unreached_order) {
    if (ctx.unreached.count(id)) r.orphaned.push_back(id);
  }
  r.incomplete = incomplete;
  r.unresolved = std::move(ctx.unresolved);
  r.statement_count = statement_count;
  r.errors = std::move(ctx.errors);
  r.errors.insert(r.errors.end(), extra.begin(), extra.end());
  return r;
}

}  // namespace internal

Json ErrorToJson(const LangError& e) {
  Json j = Json::object();
  j["code"] = e.code;
  j["component"] = e.component;
  j["path"] = e.path;
  j["message"] = e.message;
  if (e.statement_id) j["statementId"] = *e.statement_id;
  return j;
}

Json ParseResult::ToJson() const {
  Json errs = Json::array();
  for (const LangError& e : errors) errs.push_back(ErrorToJson(e));
  Json meta = Json::object();
  meta["incomplete"] = incomplete;
  meta["unresolved"] = unresolved;
  meta["orphaned"] = orphaned;
  meta["statementCount"] = statement_count;
  meta["errors"] = std::move(errs);
  Json out = Json::object();
  out["root"] = root;
  out["meta"] = std::move(meta);
  out["stateDeclarations"] = state_declarations;
  out["queryStatements"] = query_statements;
  out["mutationStatements"] = mutation_statements;
  return out;
}

ParseResult Parse(std::string_view text, const Library& library) {
  using namespace internal;
  std::vector<LangError> extra;
  const std::string clean = Preprocess(text);
  if (clean.empty()) return EmptyResult(true, extra);
  AutoClosed closed = AutoClose(clean);
  std::vector<SkippedLine> skipped;
  std::vector<RawStatement> raws = SplitStatements(Tokenize(closed.text), closed.text, &skipped);
  ReportSkipped(skipped, &extra);
  if (raws.empty()) return EmptyResult(closed.incomplete, extra);
  StatementTable table;
  for (const RawStatement& raw : raws) {
    if (table.Set(ParseStatement(raw, &extra))) extra.push_back(DuplicateError(raw.id));
  }
  return BuildResult(table, raws.front().id, closed.incomplete, table.size(), library, extra);
}

}  // namespace affordance::surface
