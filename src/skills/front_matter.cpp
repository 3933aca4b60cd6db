#include "skills/front_matter.h"

#include <cstdint>
#include <optional>

namespace affordance::skills {

const FrontMatterValue* FrontMatter::Find(std::string_view key) const {
  for (const auto& [k, v] : fields) {
    if (k == key) return &v;
  }
  return nullptr;
}

namespace {

struct Line {
  std::string_view text;  // without the line break
  size_t number = 0;      // 1-based
  size_t end = 0;         // offset of the byte after the line break
};

// Splits `text` into lines, with one line of lookahead.
class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {}

  std::optional<Line> Next() {
    if (peeked_) return std::exchange(peeked_, std::nullopt);
    if (pos_ >= text_.size()) return std::nullopt;
    Line l;
    l.number = ++number_;
    size_t nl = text_.find('\n', pos_);
    size_t stop = nl == std::string_view::npos ? text_.size() : nl;
    l.end = nl == std::string_view::npos ? text_.size() : nl + 1;
    l.text = text_.substr(pos_, stop - pos_);
    if (!l.text.empty() && l.text.back() == '\r') l.text.remove_suffix(1);
    pos_ = l.end;
    return l;
  }
  std::optional<Line> Peek() {
    if (!peeked_) peeked_ = Next();
    return peeked_;
  }
  size_t number() const { return number_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  size_t number_ = 0;
  std::optional<Line> peeked_;
};

Error Bad(size_t line, const std::string& message) {
  return MakeError(ErrorKind::kInvalid, "skills.bad_front_matter",
                   "line " + std::to_string(line) + ": " + message);
}

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

bool IsKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

size_t SkipSpaces(std::string_view s, size_t pos) {
  while (pos < s.size() && IsSpace(s[pos])) ++pos;
  return pos;
}

bool IsMarker(std::string_view line) {
  if (line.substr(0, 3) != "---") return false;
  return SkipSpaces(line, 3) == line.size();
}

// Blank, or only a comment.
bool IsEmpty(std::string_view line) {
  size_t at = SkipSpaces(line, 0);
  return at == line.size() || line[at] == '#';
}

// What may follow a value on its line: spaces, then nothing or a comment.
Status Rest(std::string_view s, size_t pos, size_t line) {
  size_t at = SkipSpaces(s, pos);
  if (at == s.size() || (s[at] == '#' && at > 0 && IsSpace(s[at - 1]))) return {};
  return Bad(line, "unexpected text after the value: \"" + std::string(s.substr(at, 40)) + "\"");
}

Status CheckCharacters(const Line& l) {
  for (char c : l.text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\r') return Bad(l.number, "a carriage return inside a line");
    if (u < 0x20 && c != '\t') return Bad(l.number, "a control character");
  }
  return {};
}

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

Status SingleQuoted(std::string_view s, size_t& pos, size_t line, std::string& out) {
  for (++pos; pos < s.size(); ++pos) {
    if (s[pos] != '\'') {
      out.push_back(s[pos]);
    } else if (pos + 1 < s.size() && s[pos + 1] == '\'') {
      out.push_back('\'');
      ++pos;
    } else {
      ++pos;
      return {};
    }
  }
  return Bad(line, "a quoted value must end on its line");
}

Status DoubleQuoted(std::string_view s, size_t& pos, size_t line, std::string& out) {
  for (++pos; pos < s.size(); ++pos) {
    const char c = s[pos];
    if (c == '"') {
      ++pos;
      return {};
    }
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (++pos >= s.size()) break;
    switch (s[pos]) {
      case '"':
      case '\\':
      case '/':
        out.push_back(s[pos]);
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 'u': {
        uint32_t cp = 0;
        for (int i = 0; i < 4; ++i) {
          if (++pos >= s.size()) return Bad(line, "\\u needs four hex digits");
          const char h = s[pos];
          uint32_t d = 0;
          if (h >= '0' && h <= '9') {
            d = h - '0';
          } else if (h >= 'a' && h <= 'f') {
            d = h - 'a' + 10;
          } else if (h >= 'A' && h <= 'F') {
            d = h - 'A' + 10;
          } else {
            return Bad(line, "\\u needs four hex digits");
          }
          cp = cp * 16 + d;
        }
        if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF)) {
          return Bad(line, "\\u escapes a NUL or a surrogate");
        }
        AppendUtf8(out, cp);
        break;
      }
      default:
        return Bad(line, std::string("the escape \\") + s[pos] + " is not in the subset");
    }
  }
  return Bad(line, "a quoted value must end on its line");
}

// A plain (unquoted) scalar from s[pos]. In a flow sequence it ends at ',' or ']'.
Status Plain(std::string_view s, size_t& pos, size_t line, bool in_flow, std::string& out) {
  static constexpr std::string_view kIndicators = "[]{}&*!|>%@`,";
  const char first = s[pos];
  if (kIndicators.find(first) != std::string_view::npos) {
    return Bad(line, std::string("a value may not begin with '") + first +
                         "' (anchors, aliases, tags, block scalars and flow mappings are not in "
                         "the subset; quote the value)");
  }
  if ((first == '-' || first == '?' || first == ':') &&
      (pos + 1 == s.size() || IsSpace(s[pos + 1]))) {
    return Bad(line, std::string("a value may not begin with \"") + first + " \"; quote it");
  }
  size_t end = pos;
  for (; end < s.size(); ++end) {
    const char c = s[end];
    if (c == '#' && IsSpace(s[end - 1])) break;  // a comment (end > pos: first is not '#')
    if (c == ':' && (end + 1 == s.size() || IsSpace(s[end + 1]))) {
      return Bad(line, "\": \" inside a value reads as a nested mapping; quote the value");
    }
    if (in_flow) {
      if (c == ',' || c == ']') break;
      if (c == '[' || c == '{' || c == '}') {
        return Bad(line, "a sequence item may not contain [ { }; quote it");
      }
    }
  }
  size_t stop = end;
  while (stop > pos && IsSpace(s[stop - 1])) --stop;
  out.assign(s.substr(pos, stop - pos));
  pos = end;
  return {};
}

Status Scalar(std::string_view s, size_t& pos, size_t line, bool in_flow, std::string& out) {
  if (s[pos] == '\'') return SingleQuoted(s, pos, line, out);
  if (s[pos] == '"') return DoubleQuoted(s, pos, line, out);
  return Plain(s, pos, line, in_flow, out);
}

// A scalar that is the whole rest of a line.
Status LineScalar(std::string_view s, size_t pos, size_t line, std::string& out) {
  if (Status st = Scalar(s, pos, line, false, out); !st) return st;
  return Rest(s, pos, line);
}

// `[a, "b", 'c']` from s[pos] == '['.
Status FlowSequence(std::string_view s, size_t pos, size_t line, std::vector<std::string>& out) {
  pos = SkipSpaces(s, pos + 1);
  if (pos < s.size() && s[pos] == ']') return Rest(s, pos + 1, line);
  while (pos < s.size()) {
    if (s[pos] == ',' || s[pos] == ']') return Bad(line, "an empty sequence item");
    if (s[pos] == '[' || s[pos] == '{') {
      return Bad(line, "nesting deeper than one level is not in the subset");
    }
    std::string item;
    if (Status st = Scalar(s, pos, line, true, item); !st) return st;
    out.push_back(std::move(item));
    pos = SkipSpaces(s, pos);
    if (pos >= s.size()) break;
    if (s[pos] == ']') return Rest(s, pos + 1, line);
    if (s[pos] != ',') return Bad(line, "expected ',' or ']' in the sequence");
    pos = SkipSpaces(s, pos + 1);
  }
  return Bad(line, "a flow sequence must end with ']' on its line");
}

// The key of `key: ...` at s[0]; `pos` ends after the colon.
Status Key(const Line& l, size_t& pos, std::string& key) {
  const std::string_view s = l.text;
  while (pos < s.size() && IsKeyChar(s[pos])) ++pos;
  if (pos == 0 || pos >= s.size() || s[pos] != ':' ||
      (pos + 1 < s.size() && !IsSpace(s[pos + 1]))) {
    return Bad(l.number, "expected \"key: value\" with a key of letters, digits, '_' or '-'");
  }
  if (pos > 64) return Bad(l.number, "a key is at most 64 characters");
  key.assign(s.substr(0, pos));
  ++pos;
  return {};
}

// The indented lines under `key:` (a sequence or a mapping of scalars), or null.
Status Block(Lines& lines, FrontMatterValue& value) {
  size_t indent = 0;
  while (auto next = lines.Peek()) {
    const Line l = *next;
    if (IsMarker(l.text)) break;
    if (Status st = CheckCharacters(l); !st) return st;
    if (IsEmpty(l.text)) {
      lines.Next();
      continue;
    }
    size_t at = 0;
    while (at < l.text.size() && l.text[at] == ' ') ++at;
    if (at < l.text.size() && l.text[at] == '\t') {
      return Bad(l.number, "tabs may not indent; use spaces");
    }
    if (at == 0) break;  // the next field
    lines.Next();
    if (indent == 0) {
      indent = at;
      const bool dash = l.text[at] == '-' && (at + 1 == l.text.size() || IsSpace(l.text[at + 1]));
      value.kind = dash ? FrontMatterValue::Kind::kSequence : FrontMatterValue::Kind::kMapping;
    } else if (at != indent) {
      return Bad(l.number, at > indent ? "nesting deeper than one level is not in the subset"
                                       : "the lines of a block must have the same indentation");
    }
    const std::string_view s = l.text;
    if (value.kind == FrontMatterValue::Kind::kSequence) {
      if (s[at] != '-' || (at + 1 < s.size() && !IsSpace(s[at + 1]))) {
        return Bad(l.number, "expected \"- item\" in the sequence");
      }
      size_t pos = SkipSpaces(s, at + 1);
      if (pos == s.size() || s[pos] == '#') return Bad(l.number, "an empty sequence item");
      if (s[pos] == '[' || s[pos] == '{') {
        return Bad(l.number, "nesting deeper than one level is not in the subset");
      }
      std::string item;
      if (Status st = LineScalar(s, pos, l.number, item); !st) return st;
      value.items.push_back(std::move(item));
    } else {
      std::string key;
      size_t pos = 0;
      Line inner = l;
      inner.text = s.substr(at);
      if (Status st = Key(inner, pos, key); !st) return st;
      for (const auto& [k, v] : value.entries) {
        if (k == key) return Bad(l.number, "the key \"" + key + "\" appears twice");
      }
      pos = SkipSpaces(inner.text, pos);
      if (pos == inner.text.size() || inner.text[pos] == '#') {
        return Bad(l.number, "nesting deeper than one level is not in the subset");
      }
      std::string scalar;
      if (Status st = LineScalar(inner.text, pos, l.number, scalar); !st) return st;
      value.entries.emplace_back(std::move(key), std::move(scalar));
    }
  }
  return {};
}

}  // namespace

Result<FrontMatter> ParseFrontMatter(std::string_view text) {
  Lines lines(text);
  auto first = lines.Next();
  if (!first || !IsMarker(first->text)) {
    return Bad(1, "a SKILL.md begins with a line \"---\" that opens its YAML front matter");
  }
  FrontMatter fm;
  while (auto next = lines.Next()) {
    const Line l = *next;
    if (IsMarker(l.text)) {
      fm.body_offset = l.end;
      return fm;
    }
    if (Status st = CheckCharacters(l); !st) return st.error();
    if (IsEmpty(l.text)) continue;
    if (IsSpace(l.text[0])) return Bad(l.number, "an indented line that belongs to no field");
    std::string key;
    size_t pos = 0;
    if (Status st = Key(l, pos, key); !st) return st.error();
    if (fm.Find(key) != nullptr) return Bad(l.number, "the field \"" + key + "\" appears twice");
    FrontMatterValue value;
    const std::string_view s = l.text;
    pos = SkipSpaces(s, pos);
    if (pos == s.size() || s[pos] == '#') {
      if (Status st = Block(lines, value); !st) return st.error();
    } else if (s[pos] == '[') {
      value.kind = FrontMatterValue::Kind::kSequence;
      if (Status st = FlowSequence(s, pos, l.number, value.items); !st) return st.error();
    } else {
      value.kind = FrontMatterValue::Kind::kScalar;
      if (Status st = LineScalar(s, pos, l.number, value.scalar); !st) return st.error();
    }
    fm.fields.emplace_back(std::move(key), std::move(value));
  }
  return Bad(lines.number(), "the front matter has no closing line \"---\"");
}

}  // namespace affordance::skills
