#include "surface/internal/json_text.h"

#include <cstdint>

namespace affordance::surface::internal {
namespace {

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xC0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xE0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool Hex4(std::string_view s, size_t at, uint32_t* value) {
  if (at + 4 > s.size()) return false;
  uint32_t v = 0;
  for (size_t k = at; k < at + 4; ++k) {
    char c = s[k];
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= c - '0';
    else if (c >= 'a' && c <= 'f')
      v |= c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      v |= c - 'A' + 10;
    else
      return false;
  }
  *value = v;
  return true;
}

// Length in bytes of a Unicode white-space character (per JS trim) starting at s[i], or 0.
size_t SpaceAt(std::string_view s, size_t i) {
  unsigned char c = s[i];
  if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') return 1;
  auto at = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0; };
  if (c == 0xC2 && at(1) == 0xA0) return 2;                   // U+00A0
  if (c == 0xE1 && at(1) == 0x9A && at(2) == 0x80) return 3;  // U+1680
  if (c == 0xE2 && at(1) == 0x80 &&
      ((at(2) >= 0x80 && at(2) <= 0x8A) || at(2) == 0xA8 || at(2) == 0xA9 || at(2) == 0xAF))
    return 3;
  if (c == 0xE2 && at(1) == 0x81 && at(2) == 0x9F) return 3;  // U+205F
  if (c == 0xE3 && at(1) == 0x80 && at(2) == 0x80) return 3;  // U+3000
  if (c == 0xEF && at(1) == 0xBB && at(2) == 0xBF) return 3;  // U+FEFF
  return 0;
}

}  // namespace

bool DecodeJsonString(std::string_view s, std::string* out) {
  out->clear();
  if (s.size() < 2 || s.front() != '"') return false;
  size_t i = 1;
  while (i < s.size()) {
    unsigned char c = s[i];
    if (c == '"') return i + 1 == s.size();
    if (c < 0x20) return false;
    if (c != '\\') {
      *out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (i + 1 >= s.size()) return false;
    char e = s[i + 1];
    i += 2;
    switch (e) {
      case '"':
        *out += '"';
        break;
      case '\\':
        *out += '\\';
        break;
      case '/':
        *out += '/';
        break;
      case 'b':
        *out += '\b';
        break;
      case 'f':
        *out += '\f';
        break;
      case 'n':
        *out += '\n';
        break;
      case 'r':
        *out += '\r';
        break;
      case 't':
        *out += '\t';
        break;
      case 'u': {
        uint32_t cp = 0;
        if (!Hex4(s, i, &cp)) return false;
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          uint32_t lo = 0;
          if (i + 1 < s.size() && s[i] == '\\' && s[i + 1] == 'u' && Hex4(s, i + 2, &lo) &&
              lo >= 0xDC00 && lo <= 0xDFFF) {
            i += 6;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else {
            cp = 0xFFFD;
          }
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          cp = 0xFFFD;
        }
        AppendUtf8(cp, out);
        break;
      }
      default:
        return false;
    }
  }
  return false;
}

std::string_view JsTrimEnd(std::string_view text) {
  while (!text.empty()) {
    // Find the start of the last character and test it.
    size_t start = text.size() - 1;
    while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80 &&
           text.size() - start < 4) {
      --start;
    }
    size_t w = SpaceAt(text, start);
    if (w != 0 && start + w == text.size()) {
      text.remove_suffix(w);
    } else if (w == 0 && start != text.size() - 1 && SpaceAt(text, text.size() - 1) == 1) {
      text.remove_suffix(1);
    } else {
      break;
    }
  }
  return text;
}

std::string_view JsTrim(std::string_view text) {
  while (!text.empty()) {
    size_t w = SpaceAt(text, 0);
    if (w == 0) break;
    text.remove_prefix(w);
  }
  return JsTrimEnd(text);
}

}  // namespace affordance::surface::internal
