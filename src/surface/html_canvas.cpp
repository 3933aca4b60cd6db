// A small HTML tokenizer (the tag and attribute states of the WHATWG tokenizer) for canvas checks.
#include "surface/html_canvas.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <iterator>

namespace affordance::surface {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }
char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
std::string LowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = Lower(c);
  return out;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
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

// Decodes numeric character references and the named ones that matter for URLs and markup.
std::string DecodeReferences(std::string_view s) {
  static const std::pair<const char*, const char*> kNamed[] = {
      {"colon", ":"}, {"tab", "\t"},        {"newline", "\n"}, {"amp", "&"}, {"lt", "<"},
      {"gt", ">"},    {"quot", "\""},       {"apos", "'"},     {"sol", "/"}, {"lpar", "("},
      {"rpar", ")"},  {"nbsp", "\xC2\xA0"}, {"equals", "="},   {"num", "#"}};
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    size_t j = i + 1;
    if (j < s.size() && s[j] == '#') {
      ++j;
      bool hex = j < s.size() && (s[j] == 'x' || s[j] == 'X');
      if (hex) ++j;
      uint32_t cp = 0;
      size_t digits = 0;
      while (j < s.size()) {
        char c = s[j];
        int v = (c >= '0' && c <= '9')          ? c - '0'
                : (hex && c >= 'a' && c <= 'f') ? c - 'a' + 10
                : (hex && c >= 'A' && c <= 'F') ? c - 'A' + 10
                                                : -1;
        if (v < 0) break;
        cp = std::min<uint32_t>(cp * (hex ? 16 : 10) + v, 0x110000);
        ++digits;
        ++j;
      }
      if (digits == 0) {
        out += '&';
        continue;
      }
      if (j < s.size() && s[j] == ';') ++j;
      AppendUtf8(cp, &out);
      i = j - 1;
      continue;
    }
    bool matched = false;
    for (const auto& [name, text] : kNamed) {
      std::string_view n(name);
      if (LowerAscii(s.substr(j, n.size())) == n) {
        size_t end = j + n.size();
        if (end < s.size() && s[end] == ';') ++end;
        out += text;
        i = end - 1;
        matched = true;
        break;
      }
    }
    if (!matched) out += '&';
  }
  return out;
}

// The URL attributes of HTML and SVG, and those that hold a list of URLs.
bool IsUrlAttribute(const std::string& name) {
  static const char* kNames[] = {"href",       "src",     "action",  "formaction", "poster",
                                 "background", "cite",    "data",    "longdesc",   "manifest",
                                 "codebase",   "icon",    "lowsrc",  "dynsrc",     "xlink:href",
                                 "usemap",     "archive", "classid", "profile",    "itemtype"};
  return std::any_of(std::begin(kNames), std::end(kNames),
                     [&](const char* n) { return name == n; });
}
bool IsUrlListAttribute(const std::string& name) {
  return name == "srcset" || name == "imagesrcset" || name == "ping";
}

// CSS as a browser reads it for URLs: comments dropped, escapes (`\75 rl(`, `\:`) decoded,
// lower-cased.
std::string NormalizeCss(std::string_view css) {
  std::string out;
  for (size_t i = 0; i < css.size(); ++i) {
    if (css.substr(i, 2) == "/*") {
      const size_t end = css.find("*/", i + 2);
      if (end == std::string_view::npos) break;
      i = end + 1;
      continue;
    }
    if (css[i] == '\\' && i + 1 < css.size()) {
      size_t j = i + 1;
      uint32_t cp = 0;
      size_t digits = 0;
      while (j < css.size() && digits < 6 && std::isxdigit(static_cast<unsigned char>(css[j]))) {
        const char c = Lower(css[j]);
        cp = cp * 16 + static_cast<uint32_t>(c <= '9' ? c - '0' : c - 'a' + 10);
        ++digits;
        ++j;
      }
      if (digits > 0) {
        if (j < css.size() && IsSpace(css[j])) ++j;
        std::string utf8;
        AppendUtf8(cp, &utf8);
        out += LowerAscii(utf8);
        i = j - 1;
      } else {
        out += Lower(css[j]);
        i = j;
      }
      continue;
    }
    out += Lower(css[i]);
  }
  return out;
}

bool IsBannedElement(const std::string& name) {
  return name == "script" || name == "iframe" || name == "object" || name == "embed" ||
         name == "frame" || name == "frameset" || name == "applet";
}

class Tokenizer {
 public:
  explicit Tokenizer(std::string_view s, int depth) : s_(s), depth_(depth) {}

  HtmlScan Run() {
    while (i_ < s_.size()) {
      if (s_[i_] == '<') {
        Tag();
      } else {
        ++i_;
      }
    }
    return std::move(scan_);
  }

 private:
  void Problem(const std::string& code, const std::string& message) {
    scan_.problems.push_back({code, message});
  }

  void Tag() {
    ++i_;  // '<'
    if (i_ >= s_.size()) return;
    if (s_[i_] == '!') {
      if (s_.substr(i_, 3) == "!--") {
        size_t end = s_.find("-->", i_ + 3);
        if (s_.substr(i_ + 3, 1) == ">") end = i_ + 3 - 2;   // "<!-->"
        if (s_.substr(i_ + 3, 2) == "->") end = i_ + 3 - 1;  // "<!--->"
        i_ = end == std::string_view::npos ? s_.size() : end + 3;
      } else {
        SkipBogus();
      }
      return;
    }
    if (s_[i_] == '?') {
      SkipBogus();
      return;
    }
    bool end_tag = false;
    if (s_[i_] == '/') {
      end_tag = true;
      ++i_;
      if (i_ < s_.size() && !IsAlphaAscii(s_[i_])) {
        SkipBogus();
        return;
      }
    }
    if (i_ >= s_.size() || !IsAlphaAscii(s_[i_])) return;  // "<" as text
    std::string name;
    while (i_ < s_.size() && !IsSpace(s_[i_]) && s_[i_] != '/' && s_[i_] != '>') {
      name += Lower(s_[i_++]);
    }
    if (!end_tag && IsBannedElement(name)) {
      Problem("runtime-script", "the Html canvas may not contain a <" + name +
                                    "> element: no script runs inside a canvas");
    }
    if (!end_tag && (name == "base" || name == "meta")) {
      Problem("external-url", "the Html canvas may not contain a <" + name +
                                  "> element: it can send the page elsewhere");
    }
    Attributes(end_tag);
    if (!end_tag && name == "style") {  // raw text up to </style>, read as CSS
      size_t end = i_;
      while (end < s_.size() && LowerAscii(s_.substr(end, 7)) != "</style") ++end;
      Css(s_.substr(i_, end - i_), "a <style> element");
      i_ = end;
    }
  }

  void External(const std::string& where, std::string_view url) {
    Problem("external-url", where + " loads " + std::string(url.substr(0, 80)) +
                                "; a canvas loads nothing from another host (only this "
                                "server's own paths, data: images, and {{placeholders}} after "
                                "the path starts)");
  }

  // url(...), image-set("...") and @import in CSS text.
  void Css(std::string_view text, const std::string& where) {
    const std::string css = NormalizeCss(text);
    if (css.find("@import") != std::string::npos) {
      Problem("external-url", where + " uses @import; a canvas loads no other stylesheet");
    }
    for (size_t at = css.find("url("); at != std::string::npos; at = css.find("url(", at + 4)) {
      size_t i = at + 4;
      while (i < css.size() && IsSpace(css[i])) ++i;
      std::string arg;
      if (i < css.size() && (css[i] == '"' || css[i] == '\'')) {
        const size_t end = css.find(css[i], i + 1);
        arg = css.substr(i + 1, (end == std::string::npos ? css.size() : end) - i - 1);
      } else {
        const size_t end = css.find(')', i);
        arg = css.substr(i, (end == std::string::npos ? css.size() : end) - i);
        while (!arg.empty() && IsSpace(arg.back())) arg.pop_back();
      }
      if (IsExternalUrl(arg)) External(where, arg);
      if (IsScriptUrl(arg)) Problem("runtime-url", where + " holds a script URL in url()");
    }
    for (size_t at = css.find("image-set("); at != std::string::npos;
         at = css.find("image-set(", at + 10)) {
      const size_t close = css.find(')', at);
      const std::string_view inside =
          std::string_view(css).substr(at, (close == std::string::npos ? css.size() : close) - at);
      for (size_t q = inside.find_first_of("\"'"); q != std::string_view::npos;) {
        const size_t end = inside.find(inside[q], q + 1);
        const std::string_view str =
            inside.substr(q + 1, (end == std::string_view::npos ? inside.size() : end) - q - 1);
        if (IsExternalUrl(str)) External(where, str);
        if (IsScriptUrl(str)) Problem("runtime-url", where + " holds a script URL in image-set()");
        if (end == std::string_view::npos) break;
        q = inside.find_first_of("\"'", end + 1);
      }
    }
  }

  static bool IsAlphaAscii(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

  void SkipBogus() {
    size_t end = s_.find('>', i_);
    i_ = end == std::string_view::npos ? s_.size() : end + 1;
  }

  // Attribute states up to the end of the tag.
  void Attributes(bool end_tag) {
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (IsSpace(c) || c == '/') {
        ++i_;
        continue;
      }
      if (c == '>') {
        ++i_;
        return;
      }
      std::string name;
      name += Lower(c);  // a leading '=' belongs to the name
      ++i_;
      while (i_ < s_.size() && !IsSpace(s_[i_]) && s_[i_] != '/' && s_[i_] != '>' &&
             s_[i_] != '=') {
        name += Lower(s_[i_++]);
      }
      while (i_ < s_.size() && IsSpace(s_[i_])) ++i_;
      std::string value;
      bool has_value = false;
      if (i_ < s_.size() && s_[i_] == '=') {
        ++i_;
        while (i_ < s_.size() && IsSpace(s_[i_])) ++i_;
        has_value = true;
        if (i_ < s_.size() && (s_[i_] == '"' || s_[i_] == '\'')) {
          char q = s_[i_++];
          size_t end = s_.find(q, i_);
          if (end == std::string_view::npos) end = s_.size();
          value = DecodeReferences(s_.substr(i_, end - i_));
          i_ = end < s_.size() ? end + 1 : end;
        } else {
          size_t start = i_;
          while (i_ < s_.size() && !IsSpace(s_[i_]) && s_[i_] != '>') ++i_;
          value = DecodeReferences(s_.substr(start, i_ - start));
        }
      }
      if (!end_tag) Attribute(name, value, has_value);
    }
  }

  void Attribute(const std::string& name, const std::string& value, bool has_value) {
    if (name.size() >= 2 && name[0] == 'o' && name[1] == 'n') {
      Problem("runtime-handler", "the Html canvas may not use the event-handler attribute " + name +
                                     "; put interactive parts in HtmlMount slots");
    }
    if (!has_value) return;
    if (IsUrlAttribute(name) && IsExternalUrl(value)) External("attribute " + name, value);
    if (IsUrlListAttribute(name)) {
      // srcset: "url [descriptor], url [descriptor]"; ping: URLs separated by spaces.
      for (size_t i = 0; i < value.size();) {
        while (i < value.size() && (IsSpace(value[i]) || value[i] == ',')) ++i;
        size_t end = i;
        while (end < value.size() && !IsSpace(value[end]) &&
               !(name == "ping" && value[end] == ',')) {
          ++end;
        }
        std::string url = value.substr(i, end - i);
        const bool ended = name == "ping" || (!url.empty() && url.back() == ',');
        if (name != "ping" && !url.empty() && url.back() == ',') url.pop_back();
        if (!url.empty() && IsExternalUrl(url)) External("attribute " + name, url);
        // Past the descriptor, to the next candidate.
        i = ended ? end : value.find(',', end);
        if (i == std::string::npos) break;
      }
    }
    if (value.find('(') != std::string::npos) Css(value, "attribute " + name);  // style, fill=url()
    if (IsScriptUrl(value)) {
      Problem("runtime-url", "attribute " + name +
                                 " holds a script URL; the Html canvas "
                                 "may not run JavaScript");
    }
    if (name == "data-mount") scan_.mount_slots.push_back(value);
    if (name == "srcdoc" && depth_ < 4) {
      HtmlScan inner = Tokenizer(value, depth_ + 1).Run();
      for (auto& p : inner.problems) scan_.problems.push_back(std::move(p));
    }
  }

  std::string_view s_;
  int depth_;
  size_t i_ = 0;
  HtmlScan scan_;
};

}  // namespace

bool IsScriptUrl(std::string_view url) {
  std::string decoded = DecodeReferences(url);
  std::string compact;
  for (char c : decoded) {
    // URL parsing drops leading C0 controls/spaces and every tab or newline.
    if (c == '\t' || c == '\n' || c == '\r') continue;
    if (compact.empty() && static_cast<unsigned char>(c) <= 0x20) continue;
    compact += Lower(c);
  }
  auto starts = [&](std::string_view p) { return compact.compare(0, p.size(), p) == 0; };
  return starts("javascript:") || starts("vbscript:") || starts("data:text/html");
}

bool IsExternalUrl(std::string_view url) {
  std::string u;
  for (char c : url) {
    // URL parsing drops every tab or newline; a backslash is a slash in http(s) URLs.
    if (c == '\t' || c == '\n' || c == '\r') continue;
    u += c == '\\' ? '/' : Lower(c);
  }
  size_t b = 0;
  size_t e = u.size();
  while (b < e && static_cast<unsigned char>(u[b]) <= 0x20) ++b;
  while (e > b && static_cast<unsigned char>(u[e - 1]) <= 0x20) --e;
  u = u.substr(b, e - b);
  if (u.rfind("//", 0) == 0) return true;  // protocol-relative: another host
  size_t i = 0;
  if (!u.empty() && u[0] >= 'a' && u[0] <= 'z') {
    while (i < u.size() && (std::isalnum(static_cast<unsigned char>(u[i])) || u[i] == '+' ||
                            u[i] == '-' || u[i] == '.')) {
      ++i;
    }
    // A scheme: data: (an inline image; data:text/html is a script URL), javascript: and
    // vbscript: (script URLs, refused as runtime-url) name no host; every other one does.
    if (i < u.size() && u[i] == ':') {
      const std::string scheme = u.substr(0, i);
      return scheme != "data" && scheme != "javascript" && scheme != "vbscript";
    }
  }
  // A {{placeholder}} (filled from data in the browser) must come after the path has started on
  // this server: "/x/{{id}}", "img/{{id}}", "?q={{q}}", "#{{id}}"; "{{url}}", "/{{p}}" or
  // "a{{b}}" could become another host or a scheme.
  const size_t hole = u.find("{{");
  if (hole == std::string::npos) return false;
  const std::string prefix = u.substr(0, hole);
  if (prefix.find_first_of("?#") != std::string::npos) return false;
  if (prefix == "/" || prefix.find('/') == std::string::npos) return true;
  return false;
}

HtmlScan ScanHtml(std::string_view markup) { return Tokenizer(markup, 0).Run(); }

}  // namespace affordance::surface
