// One-shot parsing and ParseResult assembly: lang-core's parse(), classifyStatement(),
// buildResult() and extractStatements().
#include "surface/program.h"

#include "surface/internal/build.h"
#include "surface/internal/materialize.h"

#include <unordered_set>

namespace affordance::surface {
namespace internal {
namespace {

// The most tokens a thread keeps buffered between parses (about 2.5 MB; a bigger program's
// buffer is released after its parse).
constexpr size_t kKeptTokens = size_t{1} << 16;

void CollectStateRefs(const Node& node, std::vector<std::string_view>* out,
                      std::unordered_set<std::string_view>* seen) {
  // walkAST() order: the node, then its children left to right.
  if (node.kind == NodeKind::kStateRef && seen->insert(node.text).second) out->push_back(node.text);
  for (const Node& k : node.kids) CollectStateRefs(k, out, seen);
}

std::vector<std::string_view> StateRefs(const Node& node) {
  std::vector<std::string_view> out;
  std::unordered_set<std::string_view> seen;
  CollectStateRefs(node, &out, &seen);
  return out;
}

// walkAST() order over a whole statement, without collecting: `f` is called on each $name.
template <class F>
void ForEachStateRef(const Node& node, F&& f) {
  if (node.kind == NodeKind::kStateRef) f(node.text);
  for (const Node& k : node.kids) ForEachStateRef(k, f);
}

bool IsComponentStatement(const Statement& s) {
  return s.kind == Statement::Kind::kValue && s.expr.kind == NodeKind::kComp &&
         !IsBuiltin(s.expr.text) && !IsReservedCall(s.expr.text);
}

std::string_view PickEntry(const StatementTable& table, std::string_view first_id,
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

const Value* ArgOrNull(const Node& call, size_t i, TreeBuilder& tree) {
  return i < call.kids.size() ? AstValue(call.kids[i], tree) : &Value::Null();
}

}  // namespace

bool StatementTable::Set(const Statement& stmt) {
  auto [it, fresh] = index_.try_emplace(stmt.id, items_.size());
  if (!fresh) {
    items_[it->second] = stmt;
    return true;
  }
  items_.push_back(stmt);
  return false;
}

const Statement* StatementTable::Get(std::string_view id) const {
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : &items_[it->second];
}

size_t StatementTable::IndexOf(std::string_view id) const {
  auto it = index_.find(id);
  return it == index_.end() ? npos : it->second;
}

Arena& StatementTable::arena() {
  // Shared with a copy of the table: that copy keeps reading it, so grow a fresh one instead.
  if (arenas_.empty() || arenas_.back().use_count() > 1) {
    arenas_.push_back(std::make_shared<Arena>());
  }
  return *arenas_.back();
}

Statement ParseStatement(const RawStatement& raw, Arena& arena, std::vector<LangError>* errors) {
  ParsedExpression parsed = ParseExpression(raw.tokens, arena);
  if (parsed.too_deep) {
    errors->push_back(LangError{"nesting-too-deep", "", "",
                                "the expression of \"" + std::string(raw.id) +
                                    "\" nests deeper than " + std::to_string(kMaxExpressionDepth) +
                                    " levels; the rest of the statement was ignored",
                                std::string(raw.id)});
  } else if (parsed.consumed < raw.tokens.size()) {
    errors->push_back(LangError{"trailing-tokens", "", "",
                                "statement \"" + std::string(raw.id) +
                                    "\" has text after its expression that was ignored; put "
                                    "each statement on its own line",
                                std::string(raw.id)});
  }
  Statement s;
  s.id = raw.id;
  s.expr = parsed.node;
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
                                "this line is not a statement (`name = expression`): " + line.text,
                                std::nullopt});
  }
}

LangError DuplicateError(std::string_view id) {
  return LangError{
      "duplicate-statement", "", "",
      "\"" + std::string(id) + "\" is defined more than once; the last complete definition wins",
      std::string(id)};
}

ParseResult EmptyResult(bool incomplete, const std::vector<LangError>& extra) {
  ParseResult r;
  r.incomplete = incomplete;
  r.errors = extra;
  return r;
}

ParseResult BuildResult(const StatementTable& table, std::string_view first_id, bool incomplete,
                        size_t statement_count, const Library& library,
                        const std::vector<LangError>& extra) {
  const std::string_view entry = PickEntry(table, first_id, library.root());
  const Statement* entry_stmt = table.Get(entry);
  if (!entry_stmt) return EmptyResult(incomplete, extra);

  auto arena = std::make_shared<Arena>();
  MaterializeContext ctx(*arena);
  TreeBuilder& tree = ctx.tree;
  ctx.library = &library;
  ctx.table = &table;
  ctx.partial = incomplete;
  ctx.current_statement = entry_stmt->id;
  // Value statements other than the entry are orphaned unless a reference reaches them.
  ctx.unreached.assign(table.size(), 0);
  for (size_t i = 0; i < table.size(); ++i) {
    const Statement& s = table.ordered()[i];
    ctx.unreached[i] = s.id != entry && s.kind == Statement::Kind::kValue;
  }

  ParseResult r;
  const Value* materialized = MaterializeValue(entry_stmt->expr, ctx);
  if (materialized->IsElement()) {
    tree.Set(TreeBuilder::Mutable(materialized), "statementId", tree.String(entry));
    r.root = materialized;
  }

  // extractStatements(): state defaults (materialized), queries, mutations, auto-declared $vars.
  std::unordered_set<std::string_view> declared;
  for (const Statement& s : table.ordered()) {
    switch (s.kind) {
      case Statement::Kind::kState: {
        const Value* value = MaterializeValue(s.expr, ctx);
        const std::string_view name = arena->Copy(s.id);
        declared.insert(name);
        r.state_declarations.push_back(StateDeclaration{name, value});
        break;
      }
      case Statement::Kind::kQuery: {
        QueryStatement q;
        q.statement_id = arena->Copy(s.id);
        q.tool = ArgOrNull(s.expr, 0, tree);
        q.args = ArgOrNull(s.expr, 1, tree);
        q.defaults = ArgOrNull(s.expr, 2, tree);
        q.refresh = ArgOrNull(s.expr, 3, tree);
        if (s.expr.kids.size() > 1) {
          for (std::string_view dep : StateRefs(s.expr.kids[1])) q.deps.push_back(arena->Copy(dep));
        }
        r.query_statements.push_back(std::move(q));
        break;
      }
      case Statement::Kind::kMutation: {
        MutationStatement m;
        m.statement_id = arena->Copy(s.id);
        m.tool = ArgOrNull(s.expr, 0, tree);
        m.args = ArgOrNull(s.expr, 1, tree);
        r.mutation_statements.push_back(m);
        break;
      }
      case Statement::Kind::kValue:
        break;
    }
  }
  for (const Statement& s : table.ordered()) {
    ForEachStateRef(s.expr, [&](std::string_view dep) {
      if (declared.count(dep)) return;
      const std::string_view name = arena->Copy(dep);
      declared.insert(name);
      r.state_declarations.push_back(StateDeclaration{name, &Value::Null()});
    });
  }

  for (size_t i = 0; i < table.size(); ++i) {
    if (ctx.unreached[i]) r.orphaned.emplace_back(table.ordered()[i].id);
  }
  r.incomplete = incomplete;
  r.unresolved = std::move(ctx.unresolved);
  r.statement_count = statement_count;
  r.errors = std::move(ctx.errors);
  r.errors.insert(r.errors.end(), extra.begin(), extra.end());
  r.arena = std::move(arena);
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

const Value* ParseResult::State(std::string_view name) const {
  for (const StateDeclaration& d : state_declarations) {
    if (d.name == name) return d.value;
  }
  return nullptr;
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
  Json state = Json::object();
  for (const StateDeclaration& d : state_declarations)
    state[std::string(d.name)] = d.value->ToJson();
  Json queries = Json::array();
  for (const QueryStatement& q : query_statements) {
    Json j = Json::object();
    j["statementId"] = std::string(q.statement_id);
    j["toolAST"] = q.tool->ToJson();
    j["argsAST"] = q.args->ToJson();
    j["defaultsAST"] = q.defaults->ToJson();
    j["refreshAST"] = q.refresh->ToJson();
    if (!q.deps.empty()) {
      Json deps = Json::array();
      for (std::string_view d : q.deps) deps.push_back(std::string(d));
      j["deps"] = std::move(deps);
    }
    j["complete"] = true;
    queries.push_back(std::move(j));
  }
  Json mutations = Json::array();
  for (const MutationStatement& m : mutation_statements) {
    Json j = Json::object();
    j["statementId"] = std::string(m.statement_id);
    j["toolAST"] = m.tool->ToJson();
    j["argsAST"] = m.args->ToJson();
    mutations.push_back(std::move(j));
  }
  Json out = Json::object();
  out["root"] = root->ToJson();
  out["meta"] = std::move(meta);
  out["stateDeclarations"] = std::move(state);
  out["queryStatements"] = std::move(queries);
  out["mutationStatements"] = std::move(mutations);
  return out;
}

ParseResult Parse(std::string_view text, const Library& library) {
  using namespace internal;
  std::vector<LangError> extra;
  std::string clean = Preprocess(text);
  if (clean.empty()) return EmptyResult(true, extra);
  const AutoClosed closed = AutoClose(std::move(clean));
  std::vector<SkippedLine> skipped;
  StatementTable table;
  // Decoded string literals, the expression trees and their texts: one arena, freed at once.
  Arena& arena = table.arena();
  // The token buffer is reused by the next parse on this thread (it is only read here).
  thread_local std::vector<Token> tokens;
  Tokenize(closed.text, arena, &tokens);
  const std::vector<RawStatement> raws = SplitStatements(tokens, closed.text, &skipped);
  ReportSkipped(skipped, &extra);
  ParseResult result;
  if (raws.empty()) {
    result = EmptyResult(closed.incomplete, extra);
  } else {
    for (const RawStatement& raw : raws) {
      if (table.Set(ParseStatement(raw, arena, &extra))) extra.push_back(DuplicateError(raw.id));
    }
    result = BuildResult(table, raws.front().id, closed.incomplete, table.size(), library, extra);
  }
  if (tokens.capacity() > kKeptTokens) std::vector<Token>().swap(tokens);
  return result;
}

}  // namespace affordance::surface
