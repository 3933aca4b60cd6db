#include "surface/internal/text_blocks.h"

#include "surface/internal/evaluate.h"
#include "text/display_width.h"
#include "text/utf8.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <optional>

namespace affordance::surface::internal {
namespace {

using text::DisplayWidth;

// ── Dates and money, as the web's toLocaleString calls show them ──

struct Parsed {
  bool ok = false;
  bool has_time = false;
  std::time_t when = 0;  // seconds since the epoch (a date alone: its UTC midnight)
};

bool Digits(std::string_view s, size_t at, size_t n, int* out) {
  if (at + n > s.size()) return false;
  int v = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

// ISO 8601 as Date.parse reads it: YYYY-MM-DD, then optionally THH:MM[:SS[.fff]] and Z or ±HH:MM
// (a time without an offset is local time).
Parsed ParseIso(std::string_view s) {
  Parsed p;
  std::tm tm{};
  int y, mo, d;
  if (!Digits(s, 0, 4, &y) || s.size() < 10 || s[4] != '-' || !Digits(s, 5, 2, &mo) ||
      s[7] != '-' || !Digits(s, 8, 2, &d) || mo < 1 || mo > 12 || d < 1 || d > 31) {
    return p;
  }
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  if (s.size() == 10) {
    p.ok = true;
    p.when = timegm(&tm);
    return p;
  }
  int h, mi, sec = 0;
  if ((s[10] != 'T' && s[10] != ' ') || !Digits(s, 11, 2, &h) || s.size() < 16 || s[13] != ':' ||
      !Digits(s, 14, 2, &mi) || h > 24 || mi > 59) {
    return p;
  }
  size_t i = 16;
  if (i < s.size() && s[i] == ':') {
    if (!Digits(s, i + 1, 2, &sec) || sec > 60) return p;
    i += 3;
    if (i < s.size() && s[i] == '.') {
      ++i;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    }
  }
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = sec;
  if (i == s.size()) {
    tm.tm_isdst = -1;
    p.when = std::mktime(&tm);
  } else if (s.substr(i) == "Z") {
    p.when = timegm(&tm);
  } else if (s[i] == '+' || s[i] == '-') {
    int oh, om;
    const bool colon = i + 3 < s.size() && s[i + 3] == ':';
    if (!Digits(s, i + 1, 2, &oh) || !Digits(s, i + (colon ? 4 : 3), 2, &om) ||
        i + (colon ? 6 : 5) != s.size()) {
      return p;
    }
    const long offset = (oh * 60L + om) * 60L * (s[i] == '-' ? -1 : 1);
    p.when = timegm(&tm) - offset;
  } else {
    return p;
  }
  p.ok = true;
  p.has_time = true;
  return p;
}

std::string DateText(const std::string& s) {
  Parsed p = ParseIso(s);
  if (!p.ok) return s;
  std::tm tm{};
  if (p.has_time) {
    localtime_r(&p.when, &tm);
  } else {
    gmtime_r(&p.when, &tm);
  }
  char buf[64];
  std::strftime(buf, sizeof buf, p.has_time ? "%a, %b %-d, %H:%M" : "%a, %b %-d", &tm);
  return buf;
}

std::string Currency(double v) {
  if (!std::isfinite(v) || std::fabs(v) >= 1e15) return JsString(Json(v));
  long long cents = std::llround(std::fabs(v) * 100);
  std::string whole = std::to_string(cents / 100);
  for (int i = static_cast<int>(whole.size()) - 3; i > 0; i -= 3) whole.insert(i, ",");
  char frac[4];
  std::snprintf(frac, sizeof frac, "%02lld", cents % 100);
  return std::string(v < 0 && cents > 0 ? "-" : "") + "$" + whole + "." + frac;
}

// ── Html ──

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return out;
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && IsSpace(s[b])) ++b;
  while (e > b && IsSpace(s[e - 1])) --e;
  return std::string(s.substr(b, e - b));
}

std::string EscapeMarkup(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

// A dotted path looked up in the innermost scope that has its first key.
const Json* Lookup(const std::vector<const Json*>& scopes, const std::string& path) {
  if (path == "this" || path == ".") return scopes.back();
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
    const Json* cur = *it;
    size_t start = 0;
    bool found = true;
    while (true) {
      size_t dot = path.find('.', start);
      std::string key = path.substr(start, dot == std::string::npos ? dot : dot - start);
      if (!cur->is_object() || !cur->contains(key)) {
        found = false;
        break;
      }
      cur = &(*cur)[key];
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    if (found) return cur;
  }
  return nullptr;
}

// Code points of UTF-8 text (what `.length` of a string counts, here and in the web).
size_t CodePoints(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// The text a {{path}} fills in, or nullopt for nothing: the value at the path, else, for a path
// ending in `.length` whose prefix is an array or a string, its number of elements or code points
// (an object's own "length" key wins, as the plain lookup finds it first).
std::optional<std::string> Placeholder(const std::vector<const Json*>& scopes,
                                       const std::string& path) {
  if (const Json* v = Lookup(scopes, path); v != nullptr) {
    if (v->is_null()) return std::nullopt;
    return v->is_string() ? v->get<std::string>() : JsString(*v);
  }
  constexpr std::string_view kLength = ".length";
  if (path.size() > kLength.size() && path.ends_with(kLength)) {
    const Json* of = Lookup(scopes, path.substr(0, path.size() - kLength.size()));
    if (of != nullptr && of->is_array()) return std::to_string(of->size());
    if (of != nullptr && of->is_string()) return std::to_string(CodePoints(of->get<std::string>()));
  }
  return std::nullopt;
}

// Fills {{path}} and {{#each path}}…{{/each}} (nested eaches pair up by depth).
std::string FillTemplate(std::string_view t, std::vector<const Json*>& scopes, int depth = 0) {
  std::string out;
  size_t i = 0;
  while (i < t.size()) {
    size_t open = t.find("{{", i);
    if (open == std::string_view::npos || depth > 16) {
      out.append(t.substr(i));
      break;
    }
    out.append(t.substr(i, open - i));
    size_t close = t.find("}}", open + 2);
    if (close == std::string_view::npos) {
      out.append(t.substr(open));
      break;
    }
    std::string tag = Trim(t.substr(open + 2, close - open - 2));
    i = close + 2;
    if (tag.rfind("#each", 0) != 0) {
      if (tag[0] == '/') continue;  // a stray close
      if (auto v = Placeholder(scopes, tag)) out += EscapeMarkup(*v);
      continue;
    }
    // The body runs to the matching {{/each}}.
    size_t body = i, level = 1, end = t.size(), after = t.size();
    for (size_t j = i; (j = t.find("{{", j)) != std::string_view::npos;) {
      size_t k = t.find("}}", j + 2);
      if (k == std::string_view::npos) break;
      std::string inner = Trim(t.substr(j + 2, k - j - 2));
      if (inner.rfind("#each", 0) == 0) ++level;
      if (inner == "/each" && --level == 0) {
        end = j;
        after = k + 2;
        break;
      }
      j = k + 2;
    }
    const Json* list = Lookup(scopes, Trim(std::string_view(tag).substr(5)));
    if (list != nullptr && list->is_array()) {
      for (const Json& item : *list) {
        scopes.push_back(&item);
        out += FillTemplate(t.substr(body, end - body), scopes, depth + 1);
        scopes.pop_back();
      }
    }
    i = after;
  }
  return out;
}

std::string DecodeReference(std::string_view name) {
  static const std::pair<const char*, const char*> kNamed[] = {
      {"amp", "&"},  {"lt", "<"},     {"gt", ">"},    {"quot", "\""}, {"apos", "'"},
      {"#39", "'"},  {"nbsp", " "},   {"mdash", "—"}, {"ndash", "–"}, {"hellip", "…"},
      {"copy", "©"}, {"middot", "·"}, {"bull", "•"},  {"rarr", "→"},  {"larr", "←"}};
  for (const auto& [n, v] : kNamed) {
    if (name == n) return v;
  }
  if (name.size() > 1 && name[0] == '#') {
    const bool hex = name[1] == 'x' || name[1] == 'X';
    std::string digits(name.substr(hex ? 2 : 1));
    if (digits.empty() || digits.size() > 7) return "";
    char* endp = nullptr;
    unsigned long cp = std::strtoul(digits.c_str(), &endp, hex ? 16 : 10);
    if (*endp != '\0') return "";
    if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
    std::string out;
    text::utf8::Append(out, static_cast<char32_t>(cp));
    return out;
  }
  return "";
}

bool IsBlock(const std::string& tag) {
  static const char* kBlocks[] = {
      "p",      "div",     "br",      "li",     "ul",     "ol",         "tr",      "table",
      "h1",     "h2",      "h3",      "h4",     "h5",     "h6",         "section", "article",
      "header", "footer",  "main",    "nav",    "aside",  "blockquote", "pre",     "hr",
      "form",   "dl",      "dt",      "dd",     "figure", "figcaption", "thead",   "tbody",
      "tfoot",  "caption", "details", "summary"};
  for (const char* b : kBlocks) {
    if (tag == b) return true;
  }
  return false;
}

// The value of attribute `name` in a tag's text (after its name), or nullopt.
std::optional<std::string> Attribute(std::string_view tag, std::string_view name) {
  size_t i = 0;
  while (i < tag.size()) {
    while (i < tag.size() && (IsSpace(tag[i]) || tag[i] == '/')) ++i;
    size_t start = i;
    while (i < tag.size() && !IsSpace(tag[i]) && tag[i] != '=' && tag[i] != '/') ++i;
    std::string key = Lower(tag.substr(start, i - start));
    while (i < tag.size() && IsSpace(tag[i])) ++i;
    std::string value;
    if (i < tag.size() && tag[i] == '=') {
      ++i;
      while (i < tag.size() && IsSpace(tag[i])) ++i;
      if (i < tag.size() && (tag[i] == '"' || tag[i] == '\'')) {
        char q = tag[i++];
        size_t end = tag.find(q, i);
        if (end == std::string_view::npos) end = tag.size();
        value = std::string(tag.substr(i, end - i));
        i = end + 1;
      } else {
        size_t vs = i;
        while (i < tag.size() && !IsSpace(tag[i])) ++i;
        value = std::string(tag.substr(vs, i - vs));
      }
    }
    if (key == name) return value;
    if (start == i) ++i;
  }
  return std::nullopt;
}

// Collects text, one line per block, with whitespace collapsed.
class HtmlText {
 public:
  void Text(std::string_view s) {
    for (char c : s) {
      if (IsSpace(c)) {
        space_ = !line_.empty();
      } else {
        if (space_) line_ += ' ';
        space_ = false;
        line_ += c;
      }
    }
  }
  void Break() {
    std::string t = Trim(line_);
    if (!t.empty()) lines_.push_back(Printable(t));
    line_.clear();
    space_ = false;
  }
  void Raw(std::string line) {
    Break();
    lines_.push_back(std::move(line));
  }
  void Cell() {  // a separator that survives word wrapping (which collapses spaces)
    if (!Trim(line_).empty()) line_ += " │ ";
    space_ = false;
  }
  std::vector<std::string> Take() {
    Break();
    return std::move(lines_);
  }

 private:
  std::vector<std::string> lines_;
  std::string line_;
  bool space_ = false;
};

}  // namespace

std::string Printable(std::string_view s) { return text::Printable(s); }

std::vector<std::string> Wrap(std::string_view text, size_t width) {
  std::vector<std::string> lines;
  std::string line;
  size_t used = 0;
  if (width == 0) return lines;
  auto flush = [&] {
    if (!line.empty()) lines.push_back(line);
    line.clear();
    used = 0;
  };
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    size_t start = i;
    while (i < text.size() && text[i] != ' ') ++i;
    if (start == i) break;
    std::string_view word = text.substr(start, i - start);
    size_t w = DisplayWidth(word);
    if (used > 0 && used + 1 + w <= width) {
      line += ' ';
      line += word;
      used += 1 + w;
      continue;
    }
    flush();
    while (w > width) {  // a word wider than the line: break it inside
      size_t cut = 0, cw = 0;
      size_t k = 0;
      while (k < word.size()) {
        size_t len = std::min(text::utf8::SequenceLength(static_cast<unsigned char>(word[k])),
                              word.size() - k);
        size_t gw = DisplayWidth(word.substr(k, len));
        if (cw + gw > width) break;
        cw += gw;
        k += len;
        cut = k;
      }
      if (cut == 0) cut = text::utf8::SequenceLength(static_cast<unsigned char>(word[0]));
      lines.emplace_back(word.substr(0, cut));
      word = word.substr(std::min(cut, word.size()));
      w = DisplayWidth(word);
    }
    line = std::string(word);
    used = w;
  }
  flush();
  return lines;
}

std::vector<std::string> WrapHanging(std::string_view text, size_t width, size_t indent) {
  std::vector<std::string> lines = Wrap(text, width);
  if (lines.size() < 2 || width <= indent) return lines;
  std::string rest;
  for (size_t i = 1; i < lines.size(); ++i) rest += (i > 1 ? " " : "") + lines[i];
  std::vector<std::string> out = {lines[0]};
  for (auto& l : Wrap(rest, width - indent)) out.push_back(std::string(indent, ' ') + l);
  return out;
}

std::string CellText(const Json& value, std::string_view format) {
  if (value.is_null()) return "";
  if (format == "date" && value.is_string()) return Printable(DateText(value.get<std::string>()));
  if (format == "currency" && value.is_number()) return Currency(value.get<double>());
  if (value.is_structured()) {
    return Printable(value.dump(-1, ' ', false, Json::error_handler_t::replace));
  }
  return Printable(JsString(value));
}

std::vector<std::string> HtmlLines(std::string_view markup, const Json& data) {
  std::vector<const Json*> scopes = {&data};
  const std::string filled = FillTemplate(markup, scopes);
  std::string_view s = filled;
  HtmlText out;
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] == '&') {
      size_t semi = s.find(';', i + 1);
      if (semi != std::string_view::npos && semi - i <= 10) {
        std::string decoded = DecodeReference(s.substr(i + 1, semi - i - 1));
        if (!decoded.empty()) {
          out.Text(decoded);
          i = semi + 1;
          continue;
        }
      }
      out.Text("&");
      ++i;
      continue;
    }
    if (s[i] != '<') {
      size_t next = s.find_first_of("<&", i);
      if (next == std::string_view::npos) next = s.size();
      out.Text(s.substr(i, next - i));
      i = next;
      continue;
    }
    if (s.substr(i, 4) == "<!--") {
      size_t end = s.find("-->", i + 4);
      i = end == std::string_view::npos ? s.size() : end + 3;
      continue;
    }
    size_t end = i + 1;
    char quote = 0;
    while (end < s.size() && (quote != 0 || s[end] != '>')) {
      if (quote == 0 && (s[end] == '"' || s[end] == '\''))
        quote = s[end];
      else if (quote != 0 && s[end] == quote)
        quote = 0;
      ++end;
    }
    std::string_view tag = s.substr(i + 1, end - i - 1);
    i = std::min(end + 1, s.size());
    const bool closing = !tag.empty() && tag[0] == '/';
    if (closing) tag.remove_prefix(1);
    size_t name_end = 0;
    while (name_end < tag.size() && !IsSpace(tag[name_end]) && tag[name_end] != '/') ++name_end;
    const std::string name = Lower(tag.substr(0, name_end));
    if (!closing && (name == "script" || name == "style" || name == "template")) {
      size_t close = Lower(s.substr(i)).find("</" + name);
      i = close == std::string::npos ? s.size() : i + close;
      continue;
    }
    if (IsBlock(name)) out.Break();
    if (!closing && name == "li") out.Text("• ");
    if (!closing && (name == "td" || name == "th")) out.Cell();
    if (!closing && name == "hr") out.Raw("───");
    if (!closing) {
      if (auto mount = Attribute(tag.substr(name_end), "data-mount")) {
        out.Raw(std::string(1, kMountMarker) + Printable(*mount));
      }
    }
  }
  return out.Take();
}

}  // namespace affordance::surface::internal
