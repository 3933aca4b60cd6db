// Transcription of lang-core 0.2.18 src/parser/materialize.ts and validation.ts.
#include "surface/internal/materialize.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace affordance::surface::internal {
namespace {

using Scope = std::vector<std::string>;  // names bound by enclosing @Each templates

const char* KindName(NodeKind k) {
  static constexpr std::array<const char*, 17> kNames = {
      "Comp", "Str", "Num", "Bool", "Null", "Arr", "Obj", "Ref", "Ph", "StateRef",
      "RuntimeRef", "BinOp", "UnaryOp", "Ternary", "Member", "Index", "Assign"};
  return kNames[static_cast<size_t>(k)];
}

Json NumberJson(double v) {
  // Integral values print as integers, like JSON.stringify.
  // Range first: converting an out-of-range double to an integer is undefined behaviour.
  if (v > -9007199254740992.0 && v < 9007199254740992.0 && v == std::trunc(v)) {
    return Json(static_cast<int64_t>(v));
  }
  return Json(v);  // NaN and Infinity dump as null, like JSON.stringify
}

std::string JsonScalarText(const Json& v) {  // JSON.stringify of a scalar
  if (v.is_number_float()) {
    double d = v.get<double>();
    return std::isfinite(d) ? JsNumberString(d) : "null";
  }
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// `typeof` of a materialized (non-null) value.
std::string TypeOf(const Json& v) {
  if (v.is_string()) return "string";
  if (v.is_number()) return "number";
  if (v.is_boolean()) return "boolean";
  return "object";
}
std::string JsType(const Json& v) { return v.is_array() ? "array" : TypeOf(v); }

void Push(MaterializeContext& ctx, const std::string& component, const std::string& path,
          const std::string& code, const std::string& message) {
  ctx.errors.push_back(LangError{code, component, path, message, ctx.current_statement});
}

void PushTypeMismatch(MaterializeContext& ctx, const std::string& component,
                      const std::string& path, const std::string& expected,
                      const std::string& actual) {
  Push(ctx, component, path, "type-mismatch",
       "field \"" + path + "\" expects " + expected + " but got " + actual);
}

void PushUnknown(MaterializeContext& ctx, const std::string& name) {
  std::string message = "Unknown component \"" + name + "\" — not found in catalog or builtins";
  const auto& comps = ctx.library->components();
  if (!comps.empty()) {
    message += ". Available components: ";
    for (size_t i = 0; i < comps.size(); ++i) message += (i ? ", " : "") + comps[i].name;
  }
  Push(ctx, name, "", "unknown-component", message);
}

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

// ── Schema introspection (validation.ts) ──────────────────────────────────────────────────

struct ScalarInfo {
  std::string expected;  // "string" | "number" | "boolean" | ""
  const Json* enum_values = nullptr;
  Json const_holder;
  bool has_enum = false;
};

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
    if (type == "string") info.expected = "string";
    else if (type == "number" || type == "integer") info.expected = "number";
    else if (type == "boolean") info.expected = "boolean";
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

bool StrictEquals(const Json& a, const Json& b) {  // Array.prototype.includes on scalars
  if (a.is_number() && b.is_number()) {
    double x = a.get<double>(), y = b.get<double>();
    return x == y || (std::isnan(x) && std::isnan(y));
  }
  if (a.is_string() && b.is_string()) return a == b;
  if (a.is_boolean() && b.is_boolean()) return a == b;
  return false;
}

bool IsComposite(const Json& s) {
  return s.contains("$ref") || s.contains("anyOf") || s.contains("oneOf") || s.contains("allOf");
}

std::optional<Json> SchemaDefault(const Json& property) {
  if (property.is_object()) {
    auto d = property.find("default");
    if (d != property.end()) return *d;
  }
  return std::nullopt;
}

bool ValidateSchemaValue(Json& value, const Json& schema, const std::string& component,
                         const std::string& path, MaterializeContext& ctx);

// resolveInvalidValue(): default substitutes, a required edge propagates, an optional one prunes.
bool ResolveInvalid(Json& container, const std::string& key, bool required,
                    const std::optional<Json>& fallback) {
  if (fallback) {
    container[key] = *fallback;
    return false;
  }
  if (required) return true;
  container.erase(key);
  return false;
}

bool ValidateObject(Json& value, const Json& s, const std::string& component,
                    const std::string& path, MaterializeContext& ctx) {
  if (!value.is_object()) {
    PushTypeMismatch(ctx, component, path, "object", JsType(value));
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
      auto it = value.find(key);
      const bool present = it != value.end();
      if (!present || it->is_null()) {
        auto sub = props.find(key);
        auto fallback = sub != props.end() ? SchemaDefault(*sub) : std::nullopt;
        if (fallback) {
          value[key] = *fallback;
          continue;
        }
        Push(ctx, component, path + "/" + key, present ? "null-required" : "missing-required",
             present ? "required field \"" + path + "/" + key + "\" cannot be null"
                     : "missing required field \"" + path + "/" + key + "\"");
        invalid = true;
      }
    }
  }
  for (auto it = props.begin(); it != props.end(); ++it) {
    auto v = value.find(it.key());
    if (v == value.end()) continue;
    if (ValidateSchemaValue(*v, it.value(), component, path + "/" + it.key(), ctx)) {
      if (ResolveInvalid(value, it.key(), is_required(it.key()), SchemaDefault(it.value()))) {
        invalid = true;
      }
    }
  }
  return invalid;
}

bool ValidateArray(Json& value, const Json& s, const std::string& component,
                   const std::string& path, MaterializeContext& ctx) {
  if (!value.is_array()) {
    PushTypeMismatch(ctx, component, path, "array", JsType(value));
    return true;
  }
  auto items = s.find("items");
  if (items == s.end() || !items->is_object()) return false;
  std::vector<size_t> invalid;
  for (size_t i = 0; i < value.size(); ++i) {
    if (ValidateSchemaValue(value[i], *items, component, path + "/" + std::to_string(i), ctx)) {
      invalid.push_back(i);
    }
  }
  for (size_t k = invalid.size(); k-- > 0;) value.erase(invalid[k]);
  return false;
}

bool ValidateLeaf(Json& value, const Json& s, const std::string& component,
                  const std::string& path, MaterializeContext& ctx) {
  ScalarInfo info = GetScalarInfo(s);
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
                     JsonScalarText(value));
    return true;
  }
  if (info.expected != actual) {
    PushTypeMismatch(ctx, component, path, info.expected, JsType(value));
    return true;
  }
  return false;
}

bool ValidateSchemaValue(Json& value, const Json& schema, const std::string& component,
                         const std::string& path, MaterializeContext& ctx) {
  if (!schema.is_object()) return false;
  if (value.is_null()) return false;
  if (IsAstJson(value)) return false;
  if (IsElementJson(value)) {
    if (IsComposite(schema)) return false;
    auto t = schema.find("type");
    if ((t != schema.end() && t->is_string()) ||
        (schema.contains("enum") && schema["enum"].is_array()) || schema.contains("const")) {
      PushTypeMismatch(ctx, component, path,
                       (t != schema.end() && t->is_string()) ? t->get<std::string>()
                                                             : "a literal value",
                       "component \"" + value["typeName"].get<std::string>() + "\"");
      return true;
    }
    return false;
  }
  if (IsComposite(schema)) return false;
  auto t = schema.find("type");
  const std::string* type = (t != schema.end() && t->is_string()) ? &t->get_ref<const std::string&>() : nullptr;
  if (type && *type == "object") return ValidateObject(value, schema, component, path, ctx);
  if (type && *type == "array") return ValidateArray(value, schema, component, path, ctx);
  return ValidateLeaf(value, schema, component, path, ctx);
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

bool ContainsDynamic(const Json& v) {
  if (!v.is_object() && !v.is_array()) return false;
  if (IsAstJson(v)) return true;
  if (v.is_array()) {
    return std::any_of(v.begin(), v.end(), [](const Json& e) { return ContainsDynamic(e); });
  }
  if (IsElementJson(v)) {
    // An element built here already knows (props are not changed after it is built); reading
    // the flag keeps nested components from being walked once per enclosing level.
    auto known = v.find("hasDynamicProps");
    if (known != v.end() && known->is_boolean()) return known->get<bool>();
  }
  const Json& values = IsElementJson(v) ? v["props"] : v;
  return std::any_of(values.begin(), values.end(), [](const Json& e) { return ContainsDynamic(e); });
}

// ── Materialization (materialize.ts) ─────────────────────────────────────────────────────

Json MaterializeExpr(const Node& node, MaterializeContext& ctx, const Scope& scope);

Json Placeholder(const std::string& name) { return Obj("k", "Ph", "n", name); }

// resolveRef(): inline the named statement; Query/Mutation become RuntimeRef.
Json ResolveRef(const std::string& name, MaterializeContext& ctx, bool value_mode) {
  auto unresolved = [&] {
    ctx.unresolved.push_back(name);
    return value_mode ? Json(nullptr) : Placeholder(name);
  };
  if (ctx.visited.count(name)) return unresolved();
  auto sym = ctx.syms.find(name);
  if (sym == ctx.syms.end()) return unresolved();
  const Statement& target = *sym->second;
  ctx.unreached.erase(name);
  if (target.expr.kind == NodeKind::kComp && IsReservedCall(target.expr.text)) {
    return Obj("k", "RuntimeRef", "n", name, "refType",
               target.expr.text == "Mutation" ? "mutation" : "query");
  }
  if (ctx.visited.size() >= kMaxReferenceDepth) {
    if (!ctx.reported_depth) {
      ctx.reported_depth = true;
      Push(ctx, "", "", "nesting-too-deep",
           "references nest more than " + std::to_string(kMaxReferenceDepth) +
               " statements deep; \"" + name + "\" was left unresolved");
    }
    return unresolved();
  }
  ctx.visited.insert(name);
  std::string previous = std::move(ctx.current_statement);
  ctx.current_statement = name;
  Json result = value_mode ? MaterializeValue(target.expr, ctx)
                           : MaterializeExpr(target.expr, ctx, Scope{});
  if (value_mode && IsElementJson(result)) result["statementId"] = name;
  ctx.current_statement = std::move(previous);
  ctx.visited.erase(name);
  return result;
}

bool InScope(const Scope& scope, const std::string& name) {
  return std::find(scope.begin(), scope.end(), name) != scope.end();
}

// materializeLazyBuiltin(): @Each(array, "var", template) binds `var` inside its template.
std::optional<Json> MaterializeLazy(const Node& node, MaterializeContext& ctx, const Scope& scope) {
  if (node.text != "Each" || node.kids.size() < 3) return std::nullopt;
  const Node& var = node.kids[1];
  if (var.kind != NodeKind::kRef && var.kind != NodeKind::kStr) return std::nullopt;
  if (var.text.empty()) return std::nullopt;
  Scope inner = scope;
  inner.push_back(var.text);
  Json args = Json::array();
  for (size_t i = 0; i < node.kids.size(); ++i) {
    args.push_back(i == 1 ? AstToJson(node.kids[i]) : MaterializeExpr(node.kids[i], ctx, inner));
  }
  return Obj("k", "Comp", "name", node.text, "args", std::move(args));
}

Json MaterializeExpr(const Node& node, MaterializeContext& ctx, const Scope& scope) {
  if (!Spend(ctx)) return Obj("k", "Null");
  switch (node.kind) {
    case NodeKind::kRef:
      return InScope(scope, node.text) ? AstToJson(node) : ResolveRef(node.text, ctx, false);
    case NodeKind::kComp: {
      if (auto lazy = MaterializeLazy(node, ctx, scope)) return std::move(*lazy);
      Json args = Json::array();
      for (const Node& a : node.kids) args.push_back(MaterializeExpr(a, ctx, scope));
      Json out = Obj("k", "Comp", "name", node.text);
      if (IsBuiltin(node.text) || IsReservedCall(node.text)) {
        out["args"] = std::move(args);
        return out;
      }
      if (const Component* def = ctx.library->Find(node.text)) {
        Json mapped = Json::object();
        for (size_t i = 0; i < def->params.size() && i < args.size(); ++i) {
          mapped[def->params[i].name] = args[i];
        }
        out["args"] = std::move(args);
        out["mappedProps"] = std::move(mapped);
        return out;
      }
      PushUnknown(ctx, node.text);
      out["args"] = std::move(args);
      return out;
    }
    case NodeKind::kArr: {
      Json els = Json::array();
      for (const Node& e : node.kids) els.push_back(MaterializeExpr(e, ctx, scope));
      return Obj("k", "Arr", "els", std::move(els));
    }
    case NodeKind::kObj: {
      Json entries = Json::array();
      for (size_t i = 0; i < node.kids.size(); ++i) {
        entries.push_back(Json::array({node.keys[i], MaterializeExpr(node.kids[i], ctx, scope)}));
      }
      return Obj("k", "Obj", "entries", std::move(entries));
    }
    case NodeKind::kBinOp: {
      Json left = MaterializeExpr(node.kids[0], ctx, scope);  // left before right
      Json right = MaterializeExpr(node.kids[1], ctx, scope);
      return Obj("k", "BinOp", "op", node.text, "left", std::move(left), "right", std::move(right));
    }
    case NodeKind::kUnaryOp:
      return Obj("k", "UnaryOp", "op", node.text, "operand",
                 MaterializeExpr(node.kids[0], ctx, scope));
    case NodeKind::kTernary: {
      Json out = Obj("k", "Ternary");
      out["cond"] = MaterializeExpr(node.kids[0], ctx, scope);
      out["then"] = MaterializeExpr(node.kids[1], ctx, scope);
      out["else"] = MaterializeExpr(node.kids[2], ctx, scope);
      return out;
    }
    case NodeKind::kMember:
      return Obj("k", "Member", "obj", MaterializeExpr(node.kids[0], ctx, scope), "field",
                 node.text);
    case NodeKind::kIndex: {
      Json out = Obj("k", "Index");
      out["obj"] = MaterializeExpr(node.kids[0], ctx, scope);
      out["index"] = MaterializeExpr(node.kids[1], ctx, scope);
      return out;
    }
    case NodeKind::kAssign:
      return Obj("k", "Assign", "target", node.text, "value",
                 MaterializeExpr(node.kids[0], ctx, scope));
    default:
      return AstToJson(node);
  }
}

Json MaterializeComponent(const Node& node, MaterializeContext& ctx) {
  const std::string& name = node.text;
  if (IsBuiltin(name)) {
    if (auto lazy = MaterializeLazy(node, ctx, Scope{})) return std::move(*lazy);
    Json args = Json::array();
    for (const Node& a : node.kids) args.push_back(MaterializeExpr(a, ctx, Scope{}));
    return Obj("k", "Comp", "name", name, "args", std::move(args));
  }
  if (IsReservedCall(name)) {
    Push(ctx, name, "", "inline-reserved",
         name + "() must be declared as a top-level statement, not used inline as a value");
    return nullptr;
  }
  const Component* def = ctx.library->Find(name);
  if (!def) {
    PushUnknown(ctx, name);
    return nullptr;
  }
  Json props = Json::object();
  bool drop = false;
  const size_t n = std::min(def->params.size(), node.kids.size());
  for (size_t i = 0; i < n; ++i) {
    const Param& param = def->params[i];
    props[param.name] = MaterializeValue(node.kids[i], ctx);
    if (ValidateSchemaValue(props[param.name], param.schema, name, "/" + param.name, ctx) &&
        ResolveInvalid(props, param.name, param.required, param.default_value)) {
      drop = true;
    }
  }
  if (node.kids.size() > def->params.size()) {
    const size_t declared = def->params.size(), got = node.kids.size();
    Push(ctx, name, "", "excess-args",
         name + " takes " + std::to_string(declared) + " arg(s), got " + std::to_string(got) +
             " (" + std::to_string(got - declared) + " excess dropped)");
  }
  std::vector<const Param*> missing;
  for (const Param& p : def->params) {
    if (!p.required) continue;
    auto it = props.find(p.name);
    if (it == props.end() || it->is_null()) {
      if (p.default_value) {
        props[p.name] = *p.default_value;
      } else {
        missing.push_back(&p);
      }
    }
  }
  if (!missing.empty()) {
    const std::string signature = ParamsSignature(*def);
    for (const Param* p : missing) {
      const bool present = props.contains(p->name);
      const std::string path = "/" + p->name;
      Push(ctx, name, path, present ? "null-required" : "missing-required",
           (present ? "required field \"" + path + "\" cannot be null"
                    : "missing required field \"" + path + "\"") +
               " — signature: " + signature);
    }
    return nullptr;
  }
  if (drop) return nullptr;
  const bool dynamic = ContainsDynamic(props);
  return Obj("type", "element", "typeName", name, "props", std::move(props), "partial",
             ctx.partial, "hasDynamicProps", dynamic);
}

}  // namespace

bool IsAstJson(const Json& value) {
  if (!value.is_object()) return false;
  auto k = value.find("k");
  if (k == value.end() || !k->is_string()) return false;
  const std::string& s = k->get_ref<const std::string&>();
  for (size_t i = 0; i <= static_cast<size_t>(NodeKind::kAssign); ++i) {
    if (s == KindName(static_cast<NodeKind>(i))) return true;
  }
  return false;
}

bool IsElementJson(const Json& value) {
  if (!value.is_object()) return false;
  auto type = value.find("type");
  auto name = value.find("typeName");
  auto props = value.find("props");
  auto partial = value.find("partial");
  return type != value.end() && type->is_string() &&
         type->get_ref<const std::string&>() == "element" && name != value.end() &&
         name->is_string() &&
         props != value.end() && (props->is_object() || props->is_array()) &&
         partial != value.end() && partial->is_boolean();
}

Json MaterializeValue(const Node& node, MaterializeContext& ctx) {
  if (!Spend(ctx)) return nullptr;
  switch (node.kind) {
    case NodeKind::kRef: return ResolveRef(node.text, ctx, true);
    case NodeKind::kStr: return node.text;
    case NodeKind::kNum: return NumberJson(node.num);
    case NodeKind::kBool: return node.boolean;
    case NodeKind::kNull: case NodeKind::kPh: return nullptr;
    case NodeKind::kArr: {
      Json items = Json::array();
      for (const Node& e : node.kids) {
        if (e.kind == NodeKind::kPh) continue;
        Json v = MaterializeValue(e, ctx);
        if (v.is_null() && (e.kind == NodeKind::kComp || e.kind == NodeKind::kRef)) continue;
        items.push_back(std::move(v));
      }
      return items;
    }
    case NodeKind::kObj: {
      Json o = Json::object();
      for (size_t i = 0; i < node.kids.size(); ++i) o[node.keys[i]] = MaterializeValue(node.kids[i], ctx);
      return o;
    }
    case NodeKind::kComp: return MaterializeComponent(node, ctx);
    default: return MaterializeExpr(node, ctx, Scope{});
  }
}

Json AstToJson(const Node& node) {
  Json out = Obj("k", KindName(node.kind));
  switch (node.kind) {
    case NodeKind::kComp: {
      out["name"] = node.text;
      Json args = Json::array();
      for (const Node& a : node.kids) args.push_back(AstToJson(a));
      out["args"] = std::move(args);
      break;
    }
    case NodeKind::kStr: out["v"] = node.text; break;
    case NodeKind::kNum: out["v"] = NumberJson(node.num); break;
    case NodeKind::kBool: out["v"] = node.boolean; break;
    case NodeKind::kArr: {
      Json els = Json::array();
      for (const Node& e : node.kids) els.push_back(AstToJson(e));
      out["els"] = std::move(els);
      break;
    }
    case NodeKind::kObj: {
      Json entries = Json::array();
      for (size_t i = 0; i < node.kids.size(); ++i) {
        entries.push_back(Json::array({node.keys[i], AstToJson(node.kids[i])}));
      }
      out["entries"] = std::move(entries);
      break;
    }
    case NodeKind::kRef: case NodeKind::kPh: case NodeKind::kStateRef: out["n"] = node.text; break;
    case NodeKind::kBinOp:
      out["op"] = node.text;
      out["left"] = AstToJson(node.kids[0]);
      out["right"] = AstToJson(node.kids[1]);
      break;
    case NodeKind::kUnaryOp:
      out["op"] = node.text;
      out["operand"] = AstToJson(node.kids[0]);
      break;
    case NodeKind::kTernary:
      out["cond"] = AstToJson(node.kids[0]);
      out["then"] = AstToJson(node.kids[1]);
      out["else"] = AstToJson(node.kids[2]);
      break;
    case NodeKind::kMember:
      out["obj"] = AstToJson(node.kids[0]);
      out["field"] = node.text;
      break;
    case NodeKind::kIndex:
      out["obj"] = AstToJson(node.kids[0]);
      out["index"] = AstToJson(node.kids[1]);
      break;
    case NodeKind::kAssign:
      out["target"] = node.text;
      out["value"] = AstToJson(node.kids[0]);
      break;
    default: break;
  }
  return out;
}

}  // namespace affordance::surface::internal
