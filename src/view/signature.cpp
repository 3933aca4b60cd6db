#include "view/signature.h"

#include <string>
#include <vector>

namespace affordance::view {
namespace {

bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool IsIdentPart(char c) { return IsIdentStart(c) || (c >= '0' && c <= '9'); }

// Scans JavaScript source text, skipping comments and string/template literals, so that
// brackets and separators are only seen at their real nesting depth.
class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}

  size_t pos() const { return pos_; }
  bool done() const { return pos_ >= s_.size(); }
  char peek(size_t ahead = 0) const { return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : '\0'; }

  void SkipSpace() {
    while (!done()) {
      char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++pos_;
      } else if (c == '/' && peek(1) == '/') {
        while (!done() && s_[pos_] != '\n') ++pos_;
      } else if (c == '/' && peek(1) == '*') {
        size_t end = s_.find("*/", pos_ + 2);
        pos_ = end == std::string_view::npos ? s_.size() : end + 2;
      } else {
        return;
      }
    }
  }

  std::string_view Ident() {
    size_t start = pos_;
    if (!done() && IsIdentStart(s_[pos_])) {
      while (!done() && IsIdentPart(s_[pos_])) ++pos_;
    }
    return s_.substr(start, pos_ - start);
  }

  bool Eat(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  // At an opening bracket: returns the text strictly inside it and moves past the closing one.
  // Returns false on unbalanced input.
  bool Group(std::string_view* inside) {
    char open = peek();
    size_t start = pos_ + 1;
    std::vector<char> stack{Closer(open)};
    ++pos_;
    while (!done() && !stack.empty()) {
      char c = s_[pos_];
      if (c == '"' || c == '\'' || c == '`') {
        if (!SkipString(c)) return false;
        continue;
      }
      if (c == '/' && (peek(1) == '/' || peek(1) == '*')) {
        SkipSpace();
        continue;
      }
      if (c == '(' || c == '[' || c == '{') {
        stack.push_back(Closer(c));
      } else if (c == ')' || c == ']' || c == '}') {
        if (c != stack.back()) return false;
        stack.pop_back();
      }
      ++pos_;
    }
    if (!stack.empty()) return false;
    *inside = s_.substr(start, pos_ - 1 - start);
    return true;
  }

  // Splits at top-level commas; drops one trailing empty part (trailing comma).
  static std::vector<std::string_view> SplitTop(std::string_view text, bool* ok) {
    std::vector<std::string_view> parts;
    Scanner sc(text);
    size_t start = 0;
    *ok = true;
    while (!sc.done()) {
      char c = sc.peek();
      if (c == '(' || c == '[' || c == '{') {
        std::string_view ignored;
        if (!sc.Group(&ignored)) {
          *ok = false;
          return parts;
        }
      } else if (c == '"' || c == '\'' || c == '`') {
        if (!sc.SkipString(c)) {
          *ok = false;
          return parts;
        }
      } else if (c == '/' && (sc.peek(1) == '/' || sc.peek(1) == '*')) {
        sc.SkipSpace();
      } else if (c == ',') {
        parts.push_back(text.substr(start, sc.pos_ - start));
        start = ++sc.pos_;
      } else {
        ++sc.pos_;
      }
    }
    parts.push_back(text.substr(start));
    if (Trim(parts.back()).empty()) parts.pop_back();
    return parts;
  }

  static std::string_view Trim(std::string_view t) {
    Scanner sc(t);
    sc.SkipSpace();
    t.remove_prefix(sc.pos_);
    while (!t.empty() &&
           (t.back() == ' ' || t.back() == '\n' || t.back() == '\t' || t.back() == '\r')) {
      t.remove_suffix(1);
    }
    return t;
  }

  // True when the text has a default-value '=' at nesting depth 0.
  static bool HasTopLevelDefault(std::string_view text) {
    Scanner sc(text);
    while (!sc.done()) {
      char c = sc.peek();
      if (c == '(' || c == '[' || c == '{') {
        std::string_view ignored;
        if (!sc.Group(&ignored)) return false;
      } else if (c == '"' || c == '\'' || c == '`') {
        if (!sc.SkipString(c)) return false;
      } else if (c == '=') {
        char prev = sc.pos_ > 0 ? text[sc.pos_ - 1] : '\0';
        char next = sc.peek(1);
        if (next != '=' && next != '>' && prev != '=' && prev != '!' && prev != '<' &&
            prev != '>') {
          return true;
        }
        ++sc.pos_;
      } else {
        ++sc.pos_;
      }
    }
    return false;
  }

  bool SkipString(char quote) {
    ++pos_;
    while (!done()) {
      char c = s_[pos_];
      if (c == '\\') {
        pos_ += 2;
        continue;
      }
      if (quote == '`' && c == '$' && peek(1) == '{') {
        ++pos_;
        std::string_view ignored;
        if (!Group(&ignored)) return false;
        continue;
      }
      ++pos_;
      if (c == quote) return true;
    }
    return false;
  }

 private:
  static char Closer(char open) { return open == '(' ? ')' : open == '[' ? ']' : '}'; }

  std::string_view s_;
  size_t pos_ = 0;
};

HandlerSignature Other() {
  HandlerSignature sig;
  sig.kind = HandlerSignature::Kind::kOther;
  return sig;
}

HandlerSignature FromObjectPattern(std::string_view pattern) {
  bool ok = false;
  std::vector<std::string_view> entries = Scanner::SplitTop(pattern, &ok);
  if (!ok) return Other();
  HandlerSignature sig;
  sig.kind = HandlerSignature::Kind::kDestructured;
  for (std::string_view raw : entries) {
    std::string_view entry = Scanner::Trim(raw);
    if (entry.empty()) return Other();
    Scanner sc(entry);
    HandlerSignature::Field field;
    char c = sc.peek();
    if (c == '"' || c == '\'') {
      size_t start = 1;
      if (!sc.SkipString(c)) return Other();
      std::string_view quoted = entry.substr(start, sc.pos() - 2);
      if (quoted.find('\\') != std::string_view::npos) return Other();
      field.name = std::string(quoted);
    } else if (IsIdentStart(c)) {
      field.name = std::string(sc.Ident());
    } else {
      return Other();  // rest properties, computed keys, numeric keys
    }
    field.optional = Scanner::HasTopLevelDefault(entry.substr(sc.pos()));
    sig.fields.push_back(std::move(field));
  }
  return sig;
}

HandlerSignature FromParams(std::string_view params) {
  bool ok = false;
  std::vector<std::string_view> list = Scanner::SplitTop(params, &ok);
  if (!ok) return Other();
  if (list.empty()) return HandlerSignature{};
  if (list.size() > 1) return Other();
  std::string_view param = Scanner::Trim(list[0]);
  if (param.empty()) return Other();
  if (param[0] == '{') {
    Scanner sc(param);
    std::string_view inside;
    if (!sc.Group(&inside)) return Other();
    return FromObjectPattern(inside);
  }
  if (IsIdentStart(param[0])) {
    Scanner sc(param);
    sc.Ident();
    sc.SkipSpace();
    if (sc.done() || sc.peek() == '=') {
      HandlerSignature sig;
      sig.kind = HandlerSignature::Kind::kSingle;
      return sig;
    }
  }
  return Other();  // rest parameter, array pattern
}

}  // namespace

HandlerSignature ParseHandlerSignature(std::string_view source) {
  if (source.find("[native code]") != std::string_view::npos) return Other();
  Scanner sc(source);
  sc.SkipSpace();
  size_t mark = sc.pos();
  if (sc.Eat("async")) {
    char c = sc.peek();
    if (c == ' ' || c == '\t' || c == '\n' || c == '(' || c == '/') {
      sc.SkipSpace();
    } else {
      sc = Scanner(source);  // an identifier that merely starts with "async"
      sc.SkipSpace();
      (void)mark;
    }
  }
  if (sc.Eat("function")) {
    sc.SkipSpace();
    if (sc.Eat("*")) sc.SkipSpace();
    sc.Ident();
    sc.SkipSpace();
  } else if (sc.peek() == '*') {
    sc.Eat("*");
    sc.SkipSpace();
  }
  if (IsIdentStart(sc.peek())) {
    sc.Ident();
    sc.SkipSpace();
    if (sc.Eat("=>")) {
      HandlerSignature sig;
      sig.kind = HandlerSignature::Kind::kSingle;
      return sig;
    }
    // a method: `name(...) {`, possibly `get name(` / `set name(`
    if (IsIdentStart(sc.peek())) {
      sc.Ident();
      sc.SkipSpace();
    }
  } else if (sc.peek() == '[') {
    std::string_view ignored;
    if (!sc.Group(&ignored)) return Other();
    sc.SkipSpace();
  }
  if (sc.peek() != '(') return Other();
  std::string_view params;
  if (!sc.Group(&params)) return Other();
  return FromParams(params);
}

}  // namespace affordance::view
