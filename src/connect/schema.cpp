#include "connect/schema.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

namespace affordance::connect {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 7> kTypes = {"object", "array",   "string", "integer",
                                                    "number", "boolean", "null"};
constexpr std::array<std::string_view, 19> kKeywords = {
    "type",     "properties",  "required",  "additionalProperties",
    "items",    "enum",        "const",     "minimum",
    "maximum",  "minLength",   "maxLength", "minItems",
    "maxItems", "description", "title",     "default",
    "examples", "format",      "$comment"};

Error Invalid(const std::string& pointer, const std::string& problem) {
  return MakeError(ErrorKind::kInvalid, "connect.manifest_invalid", pointer + ": " + problem);
}

bool IsType(std::string_view t) {
  return std::find(kTypes.begin(), kTypes.end(), t) != kTypes.end();
}

bool Matches(const json& v, std::string_view type) {
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "string") return v.is_string();
  if (type == "boolean") return v.is_boolean();
  if (type == "null") return v.is_null();
  if (type == "number") return v.is_number();
  if (type == "integer") {
    if (v.is_number_integer()) return true;
    if (v.is_number_float()) {
      double d = v.get<double>();
      return std::isfinite(d) && std::floor(d) == d;
    }
  }
  return false;
}

std::string Escape(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

Status Violation(const std::string& pointer, const std::string& problem) {
  return MakeError(ErrorKind::kInvalid, "connect.bad_args",
                   (pointer.empty() ? "/" : pointer) + ": " + problem);
}

// Length in code points (schemas count characters, not bytes).
size_t CodePoints(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

Status Validate(const json& schema, const json& v, const std::string& ptr, int depth) {
  if (depth > 64) return Violation(ptr, "value nests too deeply");
  if (schema.is_boolean()) {
    return schema.get<bool>() ? Status{} : Violation(ptr, "no value is allowed here");
  }
  if (auto it = schema.find("type"); it != schema.end()) {
    bool ok = false;
    std::string names;
    auto check = [&](const json& t) {
      ok = ok || Matches(v, t.get<std::string>());
      names += (names.empty() ? "" : " or ") + t.get<std::string>();
    };
    if (it->is_array()) {
      for (const auto& t : *it) check(t);
    } else {
      check(*it);
    }
    if (!ok) return Violation(ptr, "must be " + names);
  }
  if (auto it = schema.find("enum"); it != schema.end()) {
    if (std::find(it->begin(), it->end(), v) == it->end()) {
      return Violation(ptr, "must be one of " + it->dump());
    }
  }
  if (auto it = schema.find("const"); it != schema.end() && *it != v) {
    return Violation(ptr, "must be " + it->dump());
  }
  if (v.is_number()) {
    double d = v.get<double>();
    if (auto it = schema.find("minimum"); it != schema.end() && d < it->get<double>()) {
      return Violation(ptr, "must be >= " + it->dump());
    }
    if (auto it = schema.find("maximum"); it != schema.end() && d > it->get<double>()) {
      return Violation(ptr, "must be <= " + it->dump());
    }
  }
  if (v.is_string()) {
    size_t n = CodePoints(v.get_ref<const std::string&>());
    if (auto it = schema.find("minLength"); it != schema.end() && n < it->get<size_t>()) {
      return Violation(ptr, "must have at least " + it->dump() + " characters");
    }
    if (auto it = schema.find("maxLength"); it != schema.end() && n > it->get<size_t>()) {
      return Violation(ptr, "must have at most " + it->dump() + " characters");
    }
  }
  if (v.is_array()) {
    if (auto it = schema.find("minItems"); it != schema.end() && v.size() < it->get<size_t>()) {
      return Violation(ptr, "must have at least " + it->dump() + " items");
    }
    if (auto it = schema.find("maxItems"); it != schema.end() && v.size() > it->get<size_t>()) {
      return Violation(ptr, "must have at most " + it->dump() + " items");
    }
    if (auto it = schema.find("items"); it != schema.end()) {
      for (size_t i = 0; i < v.size(); ++i) {
        if (auto s = Validate(*it, v[i], ptr + "/" + std::to_string(i), depth + 1); !s) return s;
      }
    }
  }
  if (v.is_object()) {
    if (auto it = schema.find("required"); it != schema.end()) {
      for (const auto& name : *it) {
        if (!v.contains(name.get<std::string>())) {
          return Violation(ptr, "missing required property \"" + name.get<std::string>() + "\"");
        }
      }
    }
    const json* props = schema.contains("properties") ? &schema["properties"] : nullptr;
    bool closed = schema.value("additionalProperties", true) == false;
    for (const auto& [key, value] : v.items()) {
      std::string child = ptr + "/" + Escape(key);
      if (props && props->contains(key)) {
        if (auto s = Validate((*props)[key], value, child, depth + 1); !s) return s;
      } else if (closed) {
        return Violation(child, "is not an allowed property");
      }
    }
  }
  return {};
}

}  // namespace

Status CheckSchema(const json& schema, const std::string& ptr) {
  if (schema.is_boolean()) return {};
  if (!schema.is_object()) return Invalid(ptr, "a schema must be an object or a boolean");
  for (const auto& [key, value] : schema.items()) {
    std::string at = ptr + "/" + Escape(key);
    if (std::find(kKeywords.begin(), kKeywords.end(), key) == kKeywords.end()) {
      return Invalid(at, "unsupported JSON Schema keyword \"" + key + "\"");
    }
    if (key == "type") {
      auto one = [&](const json& t) { return t.is_string() && IsType(t.get<std::string>()); };
      bool ok = value.is_array() ? !value.empty() && std::all_of(value.begin(), value.end(), one)
                                 : one(value);
      if (!ok)
        return Invalid(at,
                       "type must name object, array, string, integer, number, "
                       "boolean or null");
    } else if (key == "properties") {
      if (!value.is_object()) return Invalid(at, "must be an object");
      for (const auto& [name, sub] : value.items()) {
        if (auto s = CheckSchema(sub, at + "/" + Escape(name)); !s) return s;
      }
    } else if (key == "items") {
      if (auto s = CheckSchema(value, at); !s) return s;
    } else if (key == "required") {
      if (!value.is_array() ||
          !std::all_of(value.begin(), value.end(), [](const json& r) { return r.is_string(); })) {
        return Invalid(at, "must be an array of property names");
      }
    } else if (key == "additionalProperties") {
      if (!value.is_boolean()) return Invalid(at, "must be true or false");
    } else if (key == "enum") {
      if (!value.is_array() || value.empty()) return Invalid(at, "must be a non-empty array");
    } else if (key == "minimum" || key == "maximum") {
      if (!value.is_number()) return Invalid(at, "must be a number");
    } else if (key == "minLength" || key == "maxLength" || key == "minItems" || key == "maxItems") {
      if (!value.is_number_unsigned()) return Invalid(at, "must be a non-negative integer");
    } else if (key == "description" || key == "title" || key == "format" || key == "$comment") {
      if (!value.is_string()) return Invalid(at, "must be a string");
    }
  }
  return {};
}

json SchemaSubset(const json& schema, const std::string& ptr, std::vector<std::string>& unvalidated,
                  int depth) {
  if (schema.is_boolean()) return schema;
  if (!schema.is_object() || depth > 32) {
    unvalidated.push_back(ptr.empty() ? "/" : ptr);
    return json::object();
  }
  json out = json::object();
  for (const auto& [key, value] : schema.items()) {
    std::string at = ptr + "/" + Escape(key);
    if (key == "properties" && value.is_object()) {
      json props = json::object();
      for (const auto& [name, sub] : value.items()) {
        props[name] = SchemaSubset(sub, at + "/" + Escape(name), unvalidated, depth + 1);
      }
      out[key] = std::move(props);
    } else if (key == "items" && (value.is_object() || value.is_boolean())) {
      out[key] = SchemaSubset(value, at, unvalidated, depth + 1);
    } else if (std::find(kKeywords.begin(), kKeywords.end(), key) != kKeywords.end() &&
               key != "properties" && key != "items" && CheckSchema(json{{key, value}}, "").ok()) {
      out[key] = value;
    } else if (key != "$schema") {  // the dialect's name promises no check
      unvalidated.push_back(at);
    }
  }
  return out;
}

Status ValidateArgs(const json& schema, const json& value) {
  return Validate(schema, value, "", 0);
}

}  // namespace affordance::connect
