// A small HTML tokenizer (the tag and attribute states of the WHATWG tokenizer) for canvas checks.
#include "surface/html_canvas.h"

#include <algorithm>
#include <cstdint>

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
    Attributes(end_tag);
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

HtmlScan ScanHtml(std::string_view markup) { return Tokenizer(markup, 0).Run(); }

}  // namespace affordance::surface
