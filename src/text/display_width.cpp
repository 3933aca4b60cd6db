#include "text/display_width.h"

#include <cstdio>

#include "text/utf8.h"

#include <utf8proc.h>

namespace affordance::text {
namespace {

// Length of the escape sequence at s[i] (s[i] is ESC): CSI `ESC [ params intermediates final`,
// OSC `ESC ] ... (BEL | ESC \)`, else ESC and the byte after it. An unfinished one runs to the end.
size_t EscapeLength(std::string_view s, size_t i) {
  size_t j = i + 1;
  if (j >= s.size()) return 1;
  if (s[j] == '[') {
    ++j;
    while (j < s.size() && static_cast<unsigned char>(s[j]) >= 0x20 &&
           static_cast<unsigned char>(s[j]) <= 0x3F) {
      ++j;
    }
    return (j < s.size() ? j + 1 : j) - i;
  }
  if (s[j] == ']') {
    for (++j; j < s.size(); ++j) {
      if (s[j] == '\a') return j + 1 - i;
      if (s[j] == '\033' && j + 1 < s.size() && s[j + 1] == '\\') return j + 2 - i;
    }
    return j - i;
  }
  return 2;
}

// One character of `s` at i: its byte length and width; an escape sequence is width 0, an
// ill-formed byte is one byte of width 1.
struct Glyph {
  size_t length;
  size_t width;
  bool escape;
};

Glyph GlyphAt(std::string_view s, size_t i) {
  if (s[i] == '\033') return {EscapeLength(s, i), 0, true};
  utf8proc_int32_t cp = 0;
  auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(s.data() + i),
                            static_cast<utf8proc_ssize_t>(s.size() - i), &cp);
  if (n <= 0) return {1, 1, false};
  return {static_cast<size_t>(n), static_cast<size_t>(CodePointWidth(static_cast<char32_t>(cp))),
          false};
}

}  // namespace

int CodePointWidth(char32_t cp) {
  if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0)) return 0;
  if (cp < 0x7F) return 1;
  int w = utf8proc_charwidth(static_cast<utf8proc_int32_t>(cp));
  return w < 0 ? 0 : w > 2 ? 2 : w;
}

size_t DisplayWidth(std::string_view s) {
  size_t width = 0;
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) >= 0x20 && static_cast<unsigned char>(s[i]) < 0x7F) {
      ++width;  // ASCII fast path
      ++i;
      continue;
    }
    Glyph g = GlyphAt(s, i);
    width += g.width;
    i += g.length;
  }
  return width;
}

size_t FittingPrefix(std::string_view s, size_t width) {
  size_t used = 0, i = 0, end = 0;
  while (i < s.size()) {
    Glyph g = GlyphAt(s, i);
    if (!g.escape && used + g.width > width) break;
    used += g.width;
    i += g.length;
    if (!g.escape) end = i;
  }
  return end;
}

std::string FitWidth(std::string_view s, size_t width) {
  if (width == 0) return "";
  if (DisplayWidth(s) <= width) return std::string(s);
  std::string out;
  size_t used = 0;
  bool styled = false;
  for (size_t i = 0; i < s.size();) {
    Glyph g = GlyphAt(s, i);
    if (!g.escape && used + g.width > width - 1) break;
    out.append(s.substr(i, g.length));
    used += g.width;
    styled = styled || g.escape;
    i += g.length;
  }
  out += "…";
  if (styled) out += "\033[0m";
  return out;
}

std::string PadRight(std::string_view s, size_t width) {
  std::string out(s);
  size_t w = DisplayWidth(s);
  if (w < width) out.append(width - w, ' ');
  return out;
}

std::string PadLeft(std::string_view s, size_t width) {
  size_t w = DisplayWidth(s);
  std::string out(w < width ? width - w : 0, ' ');
  out += s;
  return out;
}

bool IsHiddenControl(char32_t cp) {
  // Reorder text: bidi embeddings and overrides, isolates, marks (U+202A..U+202E, U+2066..U+2069,
  // U+200E, U+200F, U+061C). Invisible: zero width space, word joiner and invisible operators,
  // BOM, Mongolian vowel separator, tag characters. ZWNJ and ZWJ (U+200C, U+200D) join letters
  // and emoji and are left alone.
  return cp == 0x061C || cp == 0x180E || cp == 0x200B || cp == 0x200E || cp == 0x200F ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x2064) ||
         (cp >= 0x2066 && cp <= 0x2069) || cp == 0xFEFF || (cp >= 0xE0000 && cp <= 0xE007F);
}

bool IsC1(char32_t cp) { return cp >= 0x80 && cp <= 0x9F; }

std::string VisibleCodePoint(char32_t cp) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "\xE2\x9F\xA8U+%04X\xE2\x9F\xA9", static_cast<unsigned>(cp));
  return buf;
}

std::string Printable(std::string_view s, bool keep_newlines) {
  std::string valid;
  utf8::AppendLossy(valid, s);
  std::string out;
  out.reserve(valid.size());
  for (size_t i = 0; i < valid.size();) {
    const size_t at = i;
    const char32_t cp = utf8::Next(valid, i);
    if (cp == '\n' && keep_newlines) {
      out += '\n';
    } else if (cp < 0x20 || cp == 0x7F || cp == 0x2028 || cp == 0x2029) {
      out += ' ';  // C0, DEL, line and paragraph separators: no cursor moves
    } else if (IsC1(cp) || IsHiddenControl(cp)) {
      out += VisibleCodePoint(cp);  // C1 (U+009B is a CSI) and what reorders or hides text
    } else {
      out.append(valid, at, i - at);
    }
  }
  return out;
}

std::string EscapeHiddenInJson(std::string_view json_text) {
  std::string valid;
  utf8::AppendLossy(valid, json_text);
  std::string out;
  out.reserve(valid.size());
  char buf[16];
  for (size_t i = 0; i < valid.size();) {
    const size_t at = i;
    const char32_t cp = utf8::Next(valid, i);
    if (IsC1(cp) || IsHiddenControl(cp) || cp == 0x2028 || cp == 0x2029) {
      if (cp > 0xFFFF) {  // a surrogate pair, as JSON writes a code point outside the BMP
        const char32_t v = cp - 0x10000;
        std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x", static_cast<unsigned>(0xD800 + (v >> 10)),
                      static_cast<unsigned>(0xDC00 + (v & 0x3FF)));
      } else {
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
      }
      out += buf;
    } else {
      out.append(valid, at, i - at);
    }
  }
  return out;
}

}  // namespace affordance::text
