#include "text/display_width.h"

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

std::string Printable(std::string_view s, bool keep_newlines) {
  std::string valid;
  utf8::AppendLossy(valid, s);
  std::string out;
  out.reserve(valid.size());
  for (size_t i = 0; i < valid.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(valid[i]);
    if (c == '\n' && keep_newlines) {
      out += '\n';
    } else if (c < 0x20 || c == 0x7F) {
      out += ' ';
    } else if (c == 0xC2 && i + 1 < valid.size() &&
               static_cast<unsigned char>(valid[i + 1]) < 0xA0) {
      out += ' ';  // C1 controls, U+0080..U+009F
      ++i;
    } else if (c == 0xE2 && i + 2 < valid.size() && valid[i + 1] == '\x80' &&
               (valid[i + 2] == '\xA8' || valid[i + 2] == '\xA9')) {
      out += ' ';  // U+2028, U+2029 line and paragraph separators
      i += 2;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace affordance::text
