// Text helpers that reproduce JavaScript built-ins the reference parser relies on.
#pragma once

#include <string>
#include <string_view>

namespace affordance::surface::internal {

// JSON.parse of one double-quoted JSON string literal `quoted` (quotes included). Returns false
// (leaving *out unspecified) exactly where JSON.parse would throw: a raw control character,
// an unknown escape, a short \u escape, or text after the closing quote. Lone surrogates become
// U+FFFD because UTF-8 cannot hold them.
bool DecodeJsonString(std::string_view quoted, std::string* out);

// String.prototype.trim(): strips ASCII and Unicode white space (UTF-8) from both ends.
std::string_view JsTrim(std::string_view text);
// String.prototype.trimEnd().
std::string_view JsTrimEnd(std::string_view text);

}  // namespace affordance::surface::internal
