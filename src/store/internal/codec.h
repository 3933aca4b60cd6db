// How record fields are written to and read from columns: JSON values as their text, token IDs as
// a compact BLOB of little-endian int32. Reading reports a corrupted column as "store.io" naming
// the row instead of failing later or crashing. Private to src/store.
#pragma once

#include "base/result.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::store::internal {

// The text of `value` for a JSON column. null is stored as {} (the records' default); any other
// non-object is "store.bad_input" (the columns hold objects: recovery adds keys to them). Strings
// that are not valid UTF-8 are "store.bad_input" too; a value nested deeper than
// kMaxStoredJsonDepth (base/json_limits.h) is "store.too_deep", so every stored value reads back.
// `what` names the field ("part data").
Result<std::string> EncodeJson(const nlohmann::json& value, const std::string& what);

// Parses a JSON column; text that is not a JSON object is "store.io" naming `row`; text nested
// deeper than kMaxStoredJsonDepth is "store.too_deep", checked before it is parsed.
Result<nlohmann::json> DecodeJson(std::string_view text, const std::string& row);

// 4 bytes per ID, little-endian, whatever the host's byte order.
std::string EncodeTokens(const std::vector<int32_t>& tokens);
// The inverse; a length that is not a multiple of 4 is "store.io" naming `row`.
Result<std::vector<int32_t>> DecodeTokens(std::string_view blob, const std::string& row);

}  // namespace affordance::store::internal
