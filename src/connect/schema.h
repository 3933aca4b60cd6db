// The JSON Schema subset that operation arguments use.
//
// Supported keywords: type (string or array of: object, array, string, integer, number, boolean,
// null), properties, required, additionalProperties (bool), items, enum, const, minimum, maximum,
// minLength, maxLength, minItems, maxItems, description, title, default, examples, format
// (annotation only). Any other keyword is rejected when the manifest loads, so a schema never
// silently promises a check that is not made.
#pragma once

#include "base/result.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace affordance::connect {

// Checks that `schema` uses only the supported subset. Errors name `pointer` + the bad path
// (code "connect.manifest_invalid").
Status CheckSchema(const nlohmann::json& schema, const std::string& pointer);

// The part of a foreign schema (an MCP tool's inputSchema) this subset can check: every keyword
// outside it (or with a value it cannot read) is left out and its JSON pointer appended to
// `unvalidated`, so the caller can keep the whole schema as documentation and say what is not
// checked. The result passes CheckSchema.
nlohmann::json SchemaSubset(const nlohmann::json& schema, const std::string& pointer,
                            std::vector<std::string>& unvalidated, int depth = 0);

// Validates `value` against `schema` (which passed CheckSchema). Error code "connect.bad_args";
// the message names the JSON pointer of the first violation, e.g. "/limit: must be <= 100".
Status ValidateArgs(const nlohmann::json& schema, const nlohmann::json& value);

}  // namespace affordance::connect
