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

// The quote state of a left-to-right scan, as lang-core's statement splitter and auto-closer keep
// it: '...' and "..." strings with backslash escapes. Consume(c) returns true when `c` belongs to
// a string literal (its quotes included) and so must not be read as syntax.
struct QuoteTracker {
  char in_str = 0;   // the open quote character, or 0 outside strings
  bool esc = false;  // the previous character was a backslash inside a string

  bool Consume(char c) {
    if (esc) {
      esc = false;
      return true;
    }
    if (in_str) {
      if (c == '\\') {
        esc = true;
      } else if (c == in_str) {
        in_str = 0;
      }
      return true;
    }
    if (c == '"' || c == '\'') {
      in_str = c;
      return true;
    }
    return false;
  }
};

}  // namespace affordance::surface::internal
