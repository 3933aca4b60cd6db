// Validation of a component's props against the JSON Schema of its parameters, while they are
// materialized: lang-core's validation.ts (schema_validation.cpp), called by materialize.cpp.
// Findings go to ctx.errors with lang-core's codes (type-mismatch, missing-required, ...).
#pragma once

#include "surface/internal/materialize.h"

#include <optional>
#include <string>
#include <string_view>

namespace affordance::surface::internal {

// Records a finding of the statement being materialized.
inline void Push(MaterializeContext& ctx, std::string_view component, const std::string& path,
                 const std::string& code, const std::string& message) {
  ctx.errors.push_back(
      LangError{code, std::string(component), path, message, std::string(ctx.current_statement)});
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

// validateSchemaValue(): true when `value` does not satisfy `schema` and the caller must resolve
// it (ResolveInvalid). Objects and arrays built by this materialization are edited in place, as
// lang-core does: invalid optional members are pruned or defaulted, invalid array items dropped.
bool ValidateSchemaValue(const Value* value, const Json& schema, std::string_view component,
                         const Path& path, MaterializeContext& ctx);

// resolveInvalidValue(): a default substitutes (false), a required member propagates the failure
// (true), an optional one is pruned (false).
bool ResolveInvalid(Value* container, std::string_view key, bool required,
                    const std::optional<Json>& fallback, MaterializeContext& ctx);

// buildParamsSignature(): "Name(a*: string, b: number)", for missing-required messages.
std::string ParamsSignature(const Component& def);

}  // namespace affordance::surface::internal
