// Transcription of lang-core 0.2.18 src/parser/materialize.ts and validation.ts, building arena
// Values (value.h) instead of JavaScript objects.
#include "surface/internal/materialize.h"

#include <algorithm>
#include <array>
#include <cmath>
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

std::string JsonScalarText(const Json& v) {  // JSON.stringify of a scalar
  if (v.is_number_float()) {
    double d = v.get<double>();
    return std::isfinite(d) ? JsNumberString(d) : "null";
  }
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string ValueScalarText(const Value& v) {  // JSON.stringify of a scalar
  switch (v.type()) {
    case Value::Type::kInt:
      return std::to_string(static_cast<int64_t>(v.number()));
    case Value::Type::kDouble:
      return std::isfinite(v.number()) ? JsNumberString(v.number()) : "null";
    case Value::Type::kBool:
      return v.boolean() ? "true" : "false";
    case Value::Type::kString:
      return Json(std::string(v.string())).dump(-1, ' ', false, Json::error_handler_t::replace);
    default:
      return v.ToJson().dump(-1, ' ', false, Json::error_handler_t::replace);
  }
}

// `typeof` of a materialized (non-null) value.
std::string TypeOf(const Value& v) {
  if (v.is_string()) return "string";
  if (v.is_number()) return "number";
  if (v.is_bool()) return "boolean";
  return "object";
}
std::string JsType(const Value& v) { return v.is_array() ? "array" : TypeOf(v); }

void Push(MaterializeContext& ctx, std::string_view component, const std::string& path,
          const std::string& code, const std::string& message) {
  ctx.errors.push_back(
      LangError{code, std::string(component), path, message, std::string(ctx.current_statement)});
}

void PushTypeMismatch(MaterializeContext& ctx, std::string_view component, const std::string& path,
                      const std::string& expected, const std::string& actual) {
  Push(ctx, component, path, "type-mismatch",
       "field \"" + path + "\" expects " + expected + " but got " + actual);
}

// A JSON pointer into the props ("/items/0/title"), spelled out only when an error needs it.
struct Path {
  const Path* parent = nullptr;
  std::string_view key;  // the member name, unless `is_index`
  size_t index = 0;
  bool is_index = false;

  std::string str() const {
    std::string out = parent ? parent->str() : std::string();
    out += '/';
    if (is_index)
      out += std::to_string(index);
    else
      out.append(key);
    return out;
  }
};

void PushTypeMismatch(MaterializeContext& ctx, std::string_view component, const Path& path,
                      const std::string& expected, const std::string& actual) {
  PushTypeMismatch(ctx, component, path.str(), expected, actual);
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

// ── Schema introspection (validation.ts) ──────────────────────────────────────────────────

ScalarInfo GetScalarInfo(const Json& s) {
  ScalarInfo info;
  auto e = s.find("enum");
  if (e != s.end() && e->is_array()) {
    info.has_enum = true;
    info.enum_values = &*e;
    return info;
  }
  auto c = s.find("const");
  if (c != s.end()) {
    info.has_enum = true;
    info.const_holder = Json::array({*c});
    return info;
  }
  auto t = s.find("type");
  if (t != s.end() && t->is_string()) {
    const std::string& type = t->get_ref<const std::string&>();
    if (type == "string")
      info.expected = "string";
    else if (type == "number" || type == "integer")
      info.expected = "number";
    else if (type == "boolean")
      info.expected = "boolean";
  }
  return info;
}

const Json& EnumList(const ScalarInfo& info) {
  return info.enum_values ? *info.enum_values : info.const_holder;
}

std::string EnumText(const Json& list, const char* sep) {
  std::string out;
  for (size_t i = 0; i < list.size(); ++i) out += (i ? sep : "") + JsonScalarText(list[i]);
  return out;
}

bool StrictEquals(const Json& a, const Value& b) {  // Array.prototype.includes on scalars
  if (a.is_number() && b.is_number()) {
    double x = a.get<double>(), y = b.number();
    return x == y || (std::isnan(x) && std::isnan(y));
  }
  if (a.is_string() && b.is_string()) return a.get_ref<const std::string&>() == b.string();
  if (a.is_boolean() && b.is_bool()) return a.get<bool>() == b.boolean();
  return false;
}

bool IsComposite(const Json& s) {
  return s.contains("$ref") || s.contains("anyOf") || s.contains("oneOf") || s.contains("allOf");
}

const SchemaFacts& Facts(const Json& schema, MaterializeContext& ctx) {
  auto [it, fresh] = ctx.schema_facts.try_emplace(&schema);
  SchemaFacts& f = it->second;
  if (!fresh || !schema.is_object()) return f;
  f.is_object = true;
  f.composite = IsComposite(schema);
  auto t = schema.find("type");
  if (t != schema.end() && t->is_string()) f.type = &t->get_ref<const std::string&>();
  auto e = schema.find("enum");
  f.literal = f.type || (e != schema.end() && e->is_array()) || schema.contains("const");
  f.scalar = GetScalarInfo(schema);
  return f;
}

std::optional<Json> SchemaDefault(const Json& property) {
  if (property.is_object()) {
    auto d = property.find("default");
    if (d != property.end()) return *d;
  }
  return std::nullopt;
}

bool ValidateSchemaValue(const Value* value, const Json& schema, std::string_view component,
                         const Path& path, MaterializeContext& ctx);

// resolveInvalidValue(): default substitutes, a required edge propagates, an optional one prunes.
bool ResolveInvalid(Value* container, std::string_view key, bool required,
                    const std::optional<Json>& fallback, MaterializeContext& ctx) {
  if (fallback) {
    ctx.tree.Set(container, key, ctx.tree.FromJson(*fallback));
    return false;
  }
  if (required) return true;
  ctx.tree.Erase(container, key);
  return false;
}

bool ValidateObject(Value* value, const Json& s, std::string_view component, const Path& path,
                    MaterializeContext& ctx) {
  if (!value->is_object()) {
    PushTypeMismatch(ctx, component, path, "object", JsType(*value));
    return true;
  }
  static const Json kEmpty = Json::object();
  auto p = s.find("properties");
  const Json& props = (p != s.end() && p->is_object()) ? *p : kEmpty;
  std::vector<std::string> required;
  auto r = s.find("required");
  if (r != s.end() && r->is_array()) {
    for (const auto& k : *r) {
      if (k.is_string()) required.push_back(k.get<std::string>());
    }
  }
  auto is_required = [&](const std::string& k) {
    return std::find(required.begin(), required.end(), k) != required.end();
  };
  bool invalid = false;
  if (!ctx.partial) {
    for (const auto& key : required) {
      const Value* it = value->Find(key);
      const bool present = it != nullptr;
      if (!present || it->is_null()) {
        auto sub = props.find(key);
        auto fallback = sub != props.end() ? SchemaDefault(*sub) : std::nullopt;
        if (fallback) {
          ctx.tree.Set(value, key, ctx.tree.FromJson(*fallback));
          continue;
        }
        const std::string where = Path{&path, key}.str();
        Push(ctx, component, where, present ? "null-required" : "missing-required",
             present ? "required field \"" + where + "\" cannot be null"
                     : "missing required field \"" + where + "\"");
        invalid = true;
      }
    }
  }
  for (auto it = props.begin(); it != props.end(); ++it) {
    const Value* v = value->Find(it.key());
    if (!v) continue;
    if (ValidateSchemaValue(v, it.value(), component, Path{&path, it.key()}, ctx)) {
      if (ResolveInvalid(value, it.key(), is_required(it.key()), SchemaDefault(it.value()), ctx)) {
        invalid = true;
      }
    }
  }
  return invalid;
}

bool ValidateArray(Value* value, const Json& s, std::string_view component, const Path& path,
                   MaterializeContext& ctx) {
  if (!value->is_array()) {
    PushTypeMismatch(ctx, component, path, "array", JsType(*value));
    return true;
  }
  auto items = s.find("items");
  if (items == s.end() || !items->is_object()) return false;
  std::vector<size_t> invalid;
  const auto elements = value->items();
  for (size_t i = 0; i < elements.size(); ++i) {
    if (ValidateSchemaValue(elements[i], *items, component, Path{&path, {}, i, true}, ctx)) {
      invalid.push_back(i);
    }
  }
  for (size_t k = invalid.size(); k-- > 0;) ctx.tree.EraseAt(value, invalid[k]);
  return false;
}

bool ValidateLeaf(const Value& value, const ScalarInfo& info, std::string_view component,
                  const Path& path, MaterializeContext& ctx) {
  if (info.expected.empty() && !info.has_enum) return false;
  if (info.has_enum && ctx.partial) return false;
  const std::string actual = TypeOf(value);
  if (info.has_enum) {
    if (actual != "string" && actual != "number" && actual != "boolean") return false;
    const Json& list = EnumList(info);
    for (const auto& e : list) {
      if (StrictEquals(e, value)) return false;
    }
    PushTypeMismatch(ctx, component, path, "one of [" + EnumText(list, ", ") + "]",
                     ValueScalarText(value));
    return true;
  }
  if (info.expected != actual) {
    PushTypeMismatch(ctx, component, path, info.expected, JsType(value));
    return true;
  }
  return false;
}

bool ValidateSchemaValue(const Value* value, const Json& schema, std::string_view component,
                         const Path& path, MaterializeContext& ctx) {
  if (value->is_null()) return false;
  const SchemaFacts& facts = Facts(schema, ctx);
  if (!facts.is_object) return false;
  if (value->IsAst()) return false;
  if (value->IsElement()) {
    if (facts.composite) return false;
    if (facts.literal) {
      PushTypeMismatch(ctx, component, path, facts.type ? *facts.type : "a literal value",
                       "component \"" + std::string(value->TypeName()) + "\"");
      return true;
    }
    return false;
  }
  if (facts.composite) return false;
  // Objects and arrays reaching here were built by this materialization (not shared), so
  // validation may edit them in place as lang-core does.
  if (facts.type && *facts.type == "object") {
    return ValidateObject(TreeBuilder::Mutable(value), schema, component, path, ctx);
  }
  if (facts.type && *facts.type == "array") {
    return ValidateArray(TreeBuilder::Mutable(value), schema, component, path, ctx);
  }
  return ValidateLeaf(*value, facts.scalar, component, path, ctx);
}

std::string TypeFromSchema(const Json& p) {  // getTypeFromSchema()
  if (!p.is_object()) return "";
  auto ref = p.find("$ref");
  if (ref != p.end() && ref->is_string()) {
    const std::string& r = ref->get_ref<const std::string&>();
    return r.substr(r.rfind('/') == std::string::npos ? 0 : r.rfind('/') + 1);
  }
  ScalarInfo info = GetScalarInfo(p);
  if (info.has_enum) return EnumText(EnumList(info), "|");
  if (!info.expected.empty()) return info.expected;
  auto t = p.find("type");
  return (t != p.end() && t->is_string()) ? t->get<std::string>() : "";
}

std::string ParamsSignature(const Component& def) {  // buildParamsSignature()
  std::string out = def.name + "(";
  for (size_t i = 0; i < def.params.size(); ++i) {
    const Param& p = def.params[i];
    std::string type = TypeFromSchema(p.schema);
    out += (i ? ", " : "") + p.name + (p.required ? "*" : "") + (type.empty() ? "" : ": " + type);
  }
  return out + ")";
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
