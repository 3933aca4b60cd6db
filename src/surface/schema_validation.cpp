// Transcription of lang-core 0.2.18 src/parser/validation.ts: a component's props checked against
// the JSON Schema of its parameters while materialize.cpp builds them.
#include "surface/internal/schema_validation.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace affordance::surface::internal {
namespace {

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

void PushTypeMismatch(MaterializeContext& ctx, std::string_view component, const std::string& path,
                      const std::string& expected, const std::string& actual) {
  Push(ctx, component, path, "type-mismatch",
       "field \"" + path + "\" expects " + expected + " but got " + actual);
}

void PushTypeMismatch(MaterializeContext& ctx, std::string_view component, const Path& path,
                      const std::string& expected, const std::string& actual) {
  PushTypeMismatch(ctx, component, path.str(), expected, actual);
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

}  // namespace

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

std::string ParamsSignature(const Component& def) {  // buildParamsSignature()
  std::string out = def.name + "(";
  for (size_t i = 0; i < def.params.size(); ++i) {
    const Param& p = def.params[i];
    std::string type = TypeFromSchema(p.schema);
    out += (i ? ", " : "") + p.name + (p.required ? "*" : "") + (type.empty() ? "" : ": " + type);
  }
  return out + ")";
}

}  // namespace affordance::surface::internal
