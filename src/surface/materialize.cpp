// Transcription of lang-core 0.2.18 src/parser/materialize.ts, building arena Values (value.h)
// instead of JavaScript objects. Props are validated against their schema by
// schema_validation.cpp (validation.ts).
#include "surface/internal/materialize.h"
#include "surface/internal/schema_validation.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace affordance::surface::internal {
namespace {

using Scope = std::vector<std::string_view>;  // names bound by enclosing @Each templates

constexpr std::array<std::string_view, 17> kKindNames = {
    "Comp",     "Str",        "Num",   "Bool",    "Null",    "Arr",    "Obj",   "Ref",   "Ph",
    "StateRef", "RuntimeRef", "BinOp", "UnaryOp", "Ternary", "Member", "Index", "Assign"};

// The "k" of every AST node, "element", "query" and "mutation": shared constant strings.
const Value* KindValue(NodeKind k) {
  static const std::array<Value, kKindNames.size()> kValues = [] {
    std::array<Value, kKindNames.size()> out;
    for (size_t i = 0; i < out.size(); ++i) out[i] = TreeBuilder::MakeStatic(kKindNames[i]);
    return out;
  }();
  return &kValues[static_cast<size_t>(k)];
}
const Value* ConstantString(std::string_view which) {
  static const Value kElement = TreeBuilder::MakeStatic("element");
  static const Value kQuery = TreeBuilder::MakeStatic("query");
  static const Value kMutation = TreeBuilder::MakeStatic("mutation");
  return which == "element" ? &kElement : which == "query" ? &kQuery : &kMutation;
}

void PushUnknown(MaterializeContext& ctx, std::string_view name) {
  std::string message =
      "Unknown component \"" + std::string(name) + "\" — not found in catalog or builtins";
  const auto& comps = ctx.library->components();
  if (!comps.empty()) {
    message += ". Available components: ";
    for (size_t i = 0; i < comps.size(); ++i) message += (i ? ", " : "") + comps[i].name;
  }
  Push(ctx, name, "", "unknown-component", message);
}

// One level of the value being built, for as long as it is being built; `ok` is false past
// kMaxMaterializedDepth (reported once), and the caller then builds nothing below it.
class Level {
 public:
  explicit Level(MaterializeContext& ctx) : ctx_(ctx), ok_(++ctx.depth <= kMaxMaterializedDepth) {
    if (!ok_ && !ctx.reported_tree_depth) {
      ctx.reported_tree_depth = true;
      Push(ctx, "", "", "nesting-too-deep",
           "the program nests more than " + std::to_string(kMaxMaterializedDepth) +
               " levels deep through its references; what lies deeper was dropped");
    }
  }
  ~Level() { --ctx_.depth; }
  Level(const Level&) = delete;
  Level& operator=(const Level&) = delete;
  bool ok() const { return ok_; }

 private:
  MaterializeContext& ctx_;
  bool ok_;
};

bool Spend(MaterializeContext& ctx) {
  if (ctx.budget > 0) {
    --ctx.budget;
    return true;
  }
  if (!ctx.reported_budget) {
    ctx.reported_budget = true;
    Push(ctx, "", "", "expansion-too-large",
         "the program expands to more than " + std::to_string(kMaxMaterializedNodes) +
             " values through repeated references; the rest was dropped");
  }
  return false;
}

// How many values `v` is once serialized: shared values are counted each time they appear, since
// ToJson, the UI and every walker expand the tree. Memoized per value, so each is counted once.
size_t ExpandedSize(const Value& v, MaterializeContext& ctx) {
  if (!v.is_array() && !v.is_object()) return 1;
  if (auto it = ctx.expanded.find(&v); it != ctx.expanded.end()) return it->second;
  constexpr size_t kCap = SIZE_MAX / 4;  // a sum of two capped sizes cannot overflow
  size_t n = 1;
  for (const Value* item : v.items()) n = std::min(n + ExpandedSize(*item, ctx), kCap);
  for (const Value::Member& m : v.members()) n = std::min(n + ExpandedSize(*m.value, ctx), kCap);
  ctx.expanded.emplace(&v, n);
  return n;
}

// Charges the budget for a second appearance of `shared` in the tree. A component call inside an
// expression keeps its arguments twice (args, and mappedProps naming the same values, as
// lang-core's output does), so each nesting level doubles the serialized tree: a 1 KB program of
// 20 nested levels serialized to gigabytes and took the process's memory (issue 24).
bool ChargeShared(const Value& shared, MaterializeContext& ctx) {
  const size_t n = ExpandedSize(shared, ctx);
  if (n <= ctx.budget) {
    ctx.budget -= n;
    return true;
  }
  ctx.budget = 0;
  return Spend(ctx);  // reports the budget once, and refuses
}

bool ContainsDynamic(const Value& v) {
  if (!v.is_object() && !v.is_array()) return false;
  if (v.IsAst()) return true;
  if (v.is_array()) {
    for (const Value* e : v.items()) {
      if (ContainsDynamic(*e)) return true;
    }
    return false;
  }
  const bool element = v.IsElement();
  if (element) {
    // An element built here already knows (props are not changed after it is built); reading
    // the flag keeps nested components from being walked once per enclosing level.
    const Value* known = v.Find("hasDynamicProps");
    if (known && known->is_bool()) return known->boolean();
  }
  const Value& values = element ? v["props"] : v;
  if (values.is_array()) {
    for (const Value* e : values.items()) {
      if (ContainsDynamic(*e)) return true;
    }
    return false;
  }
  for (const Value::Member& m : values.members()) {
    if (ContainsDynamic(*m.value)) return true;
  }
  return false;
}

// ── Materialization (materialize.ts) ─────────────────────────────────────────────────────

const Value* MaterializeExpr(const Node& node, MaterializeContext& ctx, const Scope& scope);

// {k: kind} with room for `fields` more members.
Value* Ast(MaterializeContext& ctx, NodeKind kind, size_t fields) {
  Value* o = ctx.tree.AstObject(1 + fields);
  ctx.tree.Append(o, "k", KindValue(kind));
  return o;
}

const Value* Placeholder(std::string_view name, MaterializeContext& ctx) {
  Value* o = Ast(ctx, NodeKind::kPh, 1);
  ctx.tree.Append(o, "n", ctx.tree.String(name));
  return o;
}

// resolveRef(): inline the named statement; Query/Mutation become RuntimeRef.
const Value* ResolveRef(std::string_view name, MaterializeContext& ctx, bool value_mode) {
  auto unresolved = [&]() -> const Value* {
    ctx.unresolved.emplace_back(name);
    return value_mode ? TreeBuilder::Null() : Placeholder(name, ctx);
  };
  if (std::find(ctx.visited.begin(), ctx.visited.end(), name) != ctx.visited.end()) {
    return unresolved();
  }
  const size_t index = ctx.table->IndexOf(name);
  if (index == StatementTable::npos) return unresolved();
  const Statement& target = ctx.table->ordered()[index];
  ctx.unreached[index] = 0;
  if (target.expr.kind == NodeKind::kComp && IsReservedCall(target.expr.text)) {
    Value* o = Ast(ctx, NodeKind::kRuntimeRef, 2);
    ctx.tree.Append(o, "n", ctx.tree.String(name));
    ctx.tree.Append(o, "refType",
                    ConstantString(target.expr.text == "Mutation" ? "mutation" : "query"));
    return o;
  }
  if (ctx.visited.size() >= kMaxReferenceDepth) {
    if (!ctx.reported_depth) {
      ctx.reported_depth = true;
      Push(ctx, "", "", "nesting-too-deep",
           "references nest more than " + std::to_string(kMaxReferenceDepth) +
               " statements deep; \"" + std::string(name) + "\" was left unresolved");
    }
    return unresolved();
  }
  ctx.visited.push_back(target.id);
  std::string_view previous = ctx.current_statement;
  ctx.current_statement = target.id;
  const Value* result =
      value_mode ? MaterializeValue(target.expr, ctx) : MaterializeExpr(target.expr, ctx, Scope{});
  if (value_mode && result->IsElement()) {
    ctx.tree.Set(TreeBuilder::Mutable(result), "statementId", ctx.tree.String(name));
  }
  ctx.current_statement = previous;
  ctx.visited.pop_back();
  return result;
}

bool InScope(const Scope& scope, std::string_view name) {
  return std::find(scope.begin(), scope.end(), name) != scope.end();
}

// materializeLazyBuiltin(): @Each(array, "var", template) binds `var` inside its template.
const Value* MaterializeLazy(const Node& node, MaterializeContext& ctx, const Scope& scope) {
  if (node.text != "Each" || node.kids.size() < 3) return nullptr;
  const Node& var = node.kids[1];
  if (var.kind != NodeKind::kRef && var.kind != NodeKind::kStr) return nullptr;
  if (var.text.empty()) return nullptr;
  Scope inner = scope;
  inner.push_back(var.text);
  Value* args = ctx.tree.Array(node.kids.size());
  for (size_t i = 0; i < node.kids.size(); ++i) {
    ctx.tree.Push(args, i == 1 ? AstValue(node.kids[i], ctx.tree)
                               : MaterializeExpr(node.kids[i], ctx, inner));
  }
  Value* o = Ast(ctx, NodeKind::kComp, 2);
  ctx.tree.Append(o, "name", ctx.tree.String(node.text));
  ctx.tree.Append(o, "args", args);
  return o;
}

const Value* MaterializeExpr(const Node& node, MaterializeContext& ctx, const Scope& scope) {
  TreeBuilder& t = ctx.tree;
  const Level level(ctx);
  if (!level.ok() || !Spend(ctx)) return Ast(ctx, NodeKind::kNull, 0);
  switch (node.kind) {
    case NodeKind::kRef:
      return InScope(scope, node.text) ? AstValue(node, t) : ResolveRef(node.text, ctx, false);
    case NodeKind::kComp: {
      if (const Value* lazy = MaterializeLazy(node, ctx, scope)) return lazy;
      Value* args = t.Array(node.kids.size());
      for (const Node& a : node.kids) t.Push(args, MaterializeExpr(a, ctx, scope));
      Value* out = Ast(ctx, NodeKind::kComp, 3);
      t.Append(out, "name", t.String(node.text));
      if (IsBuiltin(node.text) || IsReservedCall(node.text)) {
        t.Append(out, "args", args);
        return out;
      }
      if (const Component* def = ctx.library->Find(node.text)) {
        if (!ChargeShared(*args, ctx)) return Ast(ctx, NodeKind::kNull, 0);
        const size_t n = std::min(def->params.size(), node.kids.size());
        Value* mapped = t.Object(n);
        for (size_t i = 0; i < n; ++i) {
          t.Set(mapped, def->params[i].name, args->items()[i]);  // shared, never edited
        }
        t.Append(out, "args", args);
        t.Append(out, "mappedProps", mapped);
        return out;
      }
      PushUnknown(ctx, node.text);
      t.Append(out, "args", args);
      return out;
    }
    case NodeKind::kArr: {
      Value* els = t.Array(node.kids.size());
      for (const Node& e : node.kids) t.Push(els, MaterializeExpr(e, ctx, scope));
      Value* o = Ast(ctx, NodeKind::kArr, 1);
      t.Append(o, "els", els);
      return o;
    }
    case NodeKind::kObj: {
      Value* entries = t.Array(node.kids.size());
      for (size_t i = 0; i < node.kids.size(); ++i) {
        Value* pair = t.Array(2);
        t.Push(pair, t.String(node.keys[i]));
        t.Push(pair, MaterializeExpr(node.kids[i], ctx, scope));
        t.Push(entries, pair);
      }
      Value* o = Ast(ctx, NodeKind::kObj, 1);
      t.Append(o, "entries", entries);
      return o;
    }
    case NodeKind::kBinOp: {
      const Value* left = MaterializeExpr(node.kids[0], ctx, scope);  // left before right
      const Value* right = MaterializeExpr(node.kids[1], ctx, scope);
      Value* o = Ast(ctx, NodeKind::kBinOp, 3);
      t.Append(o, "op", t.String(node.text));
      t.Append(o, "left", left);
      t.Append(o, "right", right);
      return o;
    }
    case NodeKind::kUnaryOp: {
      const Value* operand = MaterializeExpr(node.kids[0], ctx, scope);
      Value* o = Ast(ctx, NodeKind::kUnaryOp, 2);
      t.Append(o, "op", t.String(node.text));
      t.Append(o, "operand", operand);
      return o;
    }
    case NodeKind::kTernary: {
      Value* o = Ast(ctx, NodeKind::kTernary, 3);
      t.Append(o, "cond", MaterializeExpr(node.kids[0], ctx, scope));
      t.Append(o, "then", MaterializeExpr(node.kids[1], ctx, scope));
      t.Append(o, "else", MaterializeExpr(node.kids[2], ctx, scope));
      return o;
    }
    case NodeKind::kMember: {
      const Value* obj = MaterializeExpr(node.kids[0], ctx, scope);
      Value* o = Ast(ctx, NodeKind::kMember, 2);
      t.Append(o, "obj", obj);
      t.Append(o, "field", t.String(node.text));
      return o;
    }
    case NodeKind::kIndex: {
      Value* o = Ast(ctx, NodeKind::kIndex, 2);
      t.Append(o, "obj", MaterializeExpr(node.kids[0], ctx, scope));
      t.Append(o, "index", MaterializeExpr(node.kids[1], ctx, scope));
      return o;
    }
    case NodeKind::kAssign: {
      const Value* value = MaterializeExpr(node.kids[0], ctx, scope);
      Value* o = Ast(ctx, NodeKind::kAssign, 2);
      t.Append(o, "target", t.String(node.text));
      t.Append(o, "value", value);
      return o;
    }
    default:
      return AstValue(node, t);
  }
}

const Value* MaterializeComponent(const Node& node, MaterializeContext& ctx) {
  TreeBuilder& t = ctx.tree;
  const std::string_view name = node.text;
  if (IsBuiltin(name)) {
    if (const Value* lazy = MaterializeLazy(node, ctx, Scope{})) return lazy;
    Value* args = t.Array(node.kids.size());
    for (const Node& a : node.kids) t.Push(args, MaterializeExpr(a, ctx, Scope{}));
    Value* o = Ast(ctx, NodeKind::kComp, 2);
    t.Append(o, "name", t.String(name));
    t.Append(o, "args", args);
    return o;
  }
  if (IsReservedCall(name)) {
    Push(ctx, name, "", "inline-reserved",
         std::string(name) +
             "() must be declared as a top-level statement, not used inline as a value");
    return TreeBuilder::Null();
  }
  const Component* def = ctx.library->Find(name);
  if (!def) {
    PushUnknown(ctx, name);
    return TreeBuilder::Null();
  }
  Value* props = t.Object(def->params.size());
  bool drop = false;
  const size_t n = std::min(def->params.size(), node.kids.size());
  for (size_t i = 0; i < n; ++i) {
    const Param& param = def->params[i];
    const Value* value = MaterializeValue(node.kids[i], ctx);
    t.Set(props, param.name, value);
    if (ValidateSchemaValue(value, param.schema, name, Path{nullptr, param.name}, ctx) &&
        ResolveInvalid(props, param.name, param.required, param.default_value, ctx)) {
      drop = true;
    }
  }
  if (node.kids.size() > def->params.size()) {
    const size_t declared = def->params.size(), got = node.kids.size();
    Push(ctx, name, "", "excess-args",
         std::string(name) + " takes " + std::to_string(declared) + " arg(s), got " +
             std::to_string(got) + " (" + std::to_string(got - declared) + " excess dropped)");
  }
  std::vector<const Param*> missing;
  for (const Param& p : def->params) {
    if (!p.required) continue;
    const Value* it = props->Find(p.name);
    if (!it || it->is_null()) {
      if (p.default_value) {
        t.Set(props, p.name, t.FromJson(*p.default_value));
      } else {
        missing.push_back(&p);
      }
    }
  }
  if (!missing.empty()) {
    const std::string signature = ParamsSignature(*def);
    for (const Param* p : missing) {
      const bool present = props->Find(p->name) != nullptr;
      const std::string path = "/" + p->name;
      Push(ctx, name, path, present ? "null-required" : "missing-required",
           (present ? "required field \"" + path + "\" cannot be null"
                    : "missing required field \"" + path + "\"") +
               " — signature: " + signature);
    }
    return TreeBuilder::Null();
  }
  if (drop) return TreeBuilder::Null();
  const bool dynamic = ContainsDynamic(*props);
  Value* element = t.ElementObject(6);  // room for the statementId set by the caller
  t.Append(element, "type", ConstantString("element"));
  t.Append(element, "typeName", t.String(name));
  t.Append(element, "props", props);
  t.Append(element, "partial", t.Bool(ctx.partial));
  t.Append(element, "hasDynamicProps", t.Bool(dynamic));
  return element;
}

}  // namespace

const Value* MaterializeValue(const Node& node, MaterializeContext& ctx) {
  const Level level(ctx);
  if (!level.ok() || !Spend(ctx)) return TreeBuilder::Null();
  TreeBuilder& t = ctx.tree;
  switch (node.kind) {
    case NodeKind::kRef:
      return ResolveRef(node.text, ctx, true);
    case NodeKind::kStr:
      return t.String(node.text);
    case NodeKind::kNum:
      return t.Number(node.num);
    case NodeKind::kBool:
      return t.Bool(node.boolean);
    case NodeKind::kNull:
    case NodeKind::kPh:
      return TreeBuilder::Null();
    case NodeKind::kArr: {
      Value* items = t.Array(node.kids.size());
      for (const Node& e : node.kids) {
        if (e.kind == NodeKind::kPh) continue;
        const Value* v = MaterializeValue(e, ctx);
        if (v->is_null() && (e.kind == NodeKind::kComp || e.kind == NodeKind::kRef)) continue;
        t.Push(items, v);
      }
      return items;
    }
    case NodeKind::kObj: {
      Value* o = t.Object(node.kids.size());
      for (size_t i = 0; i < node.kids.size(); ++i) {
        t.Set(o, node.keys[i], MaterializeValue(node.kids[i], ctx));
      }
      return o;
    }
    case NodeKind::kComp:
      return MaterializeComponent(node, ctx);
    default:
      return MaterializeExpr(node, ctx, Scope{});
  }
}

const Value* AstValue(const Node& node, TreeBuilder& t) {
  auto ast = [&](size_t fields) {
    Value* o = t.AstObject(1 + fields);
    t.Append(o, "k", KindValue(node.kind));
    return o;
  };
  switch (node.kind) {
    case NodeKind::kComp: {
      Value* o = ast(2);
      t.Append(o, "name", t.String(node.text));
      Value* args = t.Array(node.kids.size());
      for (const Node& a : node.kids) t.Push(args, AstValue(a, t));
      t.Append(o, "args", args);
      return o;
    }
    case NodeKind::kStr: {
      Value* o = ast(1);
      t.Append(o, "v", t.String(node.text));
      return o;
    }
    case NodeKind::kNum: {
      Value* o = ast(1);
      t.Append(o, "v", t.Number(node.num));
      return o;
    }
    case NodeKind::kBool: {
      Value* o = ast(1);
      t.Append(o, "v", t.Bool(node.boolean));
      return o;
    }
    case NodeKind::kArr: {
      Value* o = ast(1);
      Value* els = t.Array(node.kids.size());
      for (const Node& e : node.kids) t.Push(els, AstValue(e, t));
      t.Append(o, "els", els);
      return o;
    }
    case NodeKind::kObj: {
      Value* o = ast(1);
      Value* entries = t.Array(node.kids.size());
      for (size_t i = 0; i < node.kids.size(); ++i) {
        Value* pair = t.Array(2);
        t.Push(pair, t.String(node.keys[i]));
        t.Push(pair, AstValue(node.kids[i], t));
        t.Push(entries, pair);
      }
      t.Append(o, "entries", entries);
      return o;
    }
    case NodeKind::kRef:
    case NodeKind::kPh:
    case NodeKind::kStateRef: {
      Value* o = ast(1);
      t.Append(o, "n", t.String(node.text));
      return o;
    }
    case NodeKind::kBinOp: {
      Value* o = ast(3);
      t.Append(o, "op", t.String(node.text));
      t.Append(o, "left", AstValue(node.kids[0], t));
      t.Append(o, "right", AstValue(node.kids[1], t));
      return o;
    }
    case NodeKind::kUnaryOp: {
      Value* o = ast(2);
      t.Append(o, "op", t.String(node.text));
      t.Append(o, "operand", AstValue(node.kids[0], t));
      return o;
    }
    case NodeKind::kTernary: {
      Value* o = ast(3);
      t.Append(o, "cond", AstValue(node.kids[0], t));
      t.Append(o, "then", AstValue(node.kids[1], t));
      t.Append(o, "else", AstValue(node.kids[2], t));
      return o;
    }
    case NodeKind::kMember: {
      Value* o = ast(2);
      t.Append(o, "obj", AstValue(node.kids[0], t));
      t.Append(o, "field", t.String(node.text));
      return o;
    }
    case NodeKind::kIndex: {
      Value* o = ast(2);
      t.Append(o, "obj", AstValue(node.kids[0], t));
      t.Append(o, "index", AstValue(node.kids[1], t));
      return o;
    }
    case NodeKind::kAssign: {
      Value* o = ast(2);
      t.Append(o, "target", t.String(node.text));
      t.Append(o, "value", AstValue(node.kids[0], t));
      return o;
    }
    default:
      return ast(0);
  }
}

}  // namespace affordance::surface::internal
