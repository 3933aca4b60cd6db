// Text clean-up and statement splitting: transcriptions of lang-core's parser.ts (stripFences,
// stripComments, preprocess) and statements.ts (autoClose, split).
#include "surface/internal/json_text.h"
#include "surface/syntax.h"

#include <array>

namespace affordance::surface {
namespace {

// skipString(): index after a double-quoted string starting at `start`, or `start`.
size_t SkipString(std::string_view in, size_t start) {
  if (start >= in.size() || in[start] != '"') return start;
  size_t i = start + 1;
  while (i < in.size()) {
    if (in[i] == '\\') {
      i += 2;
    } else if (in[i] == '"') {
      return i + 1;
    } else {
      i++;
    }
  }
  return in.size();
}

bool FenceAt(std::string_view in, size_t i) {
  return i + 2 < in.size() && in[i] == '`' && in[i + 1] == '`' && in[i + 2] == '`';
}

// Scans from `i` for ``` outside double-quoted strings; returns its index or npos.
size_t FindFence(std::string_view in, size_t i) {
  while (i < in.size()) {
    size_t next = SkipString(in, i);
    if (next > i) {
      i = next;
      continue;
    }
    if (FenceAt(in, i)) return i;
    i++;
  }
  return std::string_view::npos;
}

// Two memchr scans (string_view::find_first_of would call memchr once per character).
bool MayHaveComment(std::string_view input) {
  return input.find('/') != std::string_view::npos || input.find('#') != std::string_view::npos;
}

bool MayHaveFence(std::string_view input) { return input.find("```") != std::string_view::npos; }

// The characters AutoClose() must look at outside strings.
constexpr std::array<bool, 256> kAutoCloseSyntax = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : std::string_view("\"'()[]{}")) t[c] = true;
  return t;
}();

}  // namespace

std::string StripFences(std::string_view input) {
  // No ``` anywhere means no fence outside strings either.
  if (!MayHaveFence(input)) return std::string(input);
  std::vector<std::string_view> blocks;
  size_t i = 0;
  while (i < input.size()) {
    size_t open = FindFence(input, i);
    if (open == std::string_view::npos) break;
    size_t j = open + 3;
    while (j < input.size() && input[j] != '\n') j++;
    if (j >= input.size()) {
      blocks.push_back({});  // no newline after the opening fence yet: the tag line only
      break;
    }
    j++;
    size_t close = FindFence(input, j);
    if (close != std::string_view::npos) {
      blocks.push_back(input.substr(j, close - j));
      i = close + 3;
    } else {
      blocks.push_back(input.substr(j));
      break;
    }
  }
  if (blocks.empty()) return std::string(input);
  std::string out;
  for (size_t k = 0; k < blocks.size(); ++k) {
    if (k) out += '\n';
    out.append(blocks[k]);
  }
  return out;
}

std::string StripComments(std::string_view input) {
  // Without '/' or '#' no line has a comment and every line is kept as it is.
  if (!MayHaveComment(input)) return std::string(input);
  std::string out;
  out.reserve(input.size());
  char in_str = 0;
  size_t line_start = 0;
  while (line_start <= input.size()) {
    size_t line_end = input.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = input.size();
    std::string_view line = input.substr(line_start, line_end - line_start);
    std::string_view kept = line;
    for (size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (in_str) {
        if (c == '\\' && i + 1 < line.size()) {
          i++;
          continue;
        }
        if (c == in_str) in_str = 0;
        continue;
      }
      if (c == '"' || c == '\'') {
        in_str = c;
        continue;
      }
      if ((c == '/' && i + 1 < line.size() && line[i + 1] == '/') || c == '#') {
        kept = internal::JsTrimEnd(line.substr(0, i));
        break;
      }
    }
    out.append(kept);
    if (line_end == input.size()) break;
    out += '\n';
    line_start = line_end + 1;
  }
  return out;
}

std::string Preprocess(std::string_view input) {
  // Each pass runs only when its syntax occurs, so a plain program is copied once.
  std::string_view text = internal::JsTrim(input);
  std::string fenced;
  if (MayHaveFence(text)) {
    fenced = StripFences(text);
    text = fenced;
  }
  if (!MayHaveComment(text)) return std::string(internal::JsTrim(text));
  std::string clean = StripComments(text);
  return std::string(internal::JsTrim(clean));
}

AutoClosed AutoClose(std::string_view input) { return AutoClose(std::string(input)); }

AutoClosed AutoClose(std::string&& input) {
  // The quote and bracket scan of internal::QuoteTracker, skipping runs of plain characters.
  std::string stack;
  char in_str = 0;   // the open quote character
  bool esc = false;  // the text ends with a backslash inside a string
  const char* p = input.data();
  const char* const end = p + input.size();
  while (p < end) {
    if (in_str) {
      while (p < end && *p != '\\' && *p != in_str) ++p;
      if (p == end) break;
      if (*p == '\\') {
        if (p + 1 == end) {
          esc = true;
          break;
        }
        p += 2;
        continue;
      }
      in_str = 0;
      ++p;
      continue;
    }
    while (p < end && !kAutoCloseSyntax[static_cast<unsigned char>(*p)]) ++p;
    if (p == end) break;
    const char c = *p++;
    switch (c) {
      case '"':
      case '\'':
        in_str = c;
        break;
      case '(':
      case '[':
      case '{':
        stack += c;
        break;
      case ')':
        if (!stack.empty() && stack.back() == '(') stack.pop_back();
        break;
      case ']':
        if (!stack.empty() && stack.back() == '[') stack.pop_back();
        break;
      case '}':
        if (!stack.empty() && stack.back() == '{') stack.pop_back();
        break;
      default:  // a backslash outside strings is plain text
        break;
    }
  }
  AutoClosed out;
  out.incomplete = in_str != 0 || !stack.empty();
  out.text = std::move(input);
  if (!out.incomplete) return out;
  if (in_str) {
    if (esc) out.text += '\\';
    out.text += in_str;
  }
  for (size_t j = stack.size(); j-- > 0;) {
    out.text += stack[j] == '(' ? ')' : stack[j] == '[' ? ']' : '}';
  }
  return out;
}

std::vector<RawStatement> SplitStatements(std::vector<Token>& tokens, std::string_view text,
                                          std::vector<SkippedLine>* skipped) {
  // Tokens are read at `pos` and a statement's expression tokens are moved down to `w` (w <= pos
  // always, so every token at or after `pos` is still the lexer's).
  std::vector<RawStatement> out;
  size_t pos = 0, w = 0;
  const size_t n = tokens.size();
  auto skip_line = [&](size_t from) {
    while (pos < n && tokens[pos].t != Tok::kNewline && tokens[pos].t != Tok::kEof) pos++;
    if (!skipped) return;
    size_t b = tokens[from].pos;
    size_t e = pos < n ? tokens[pos].pos : text.size();
    if (b > text.size()) b = text.size();
    if (e < b) e = b;
    std::string_view line = internal::JsTrim(text.substr(b, e - b));
    if (line.size() > 120) line = line.substr(0, 120);
    skipped->push_back(SkippedLine{std::string(line)});
  };
  while (pos < n) {
    while (pos < n && tokens[pos].t == Tok::kNewline) pos++;
    if (pos >= n || tokens[pos].t == Tok::kEof) break;
    const size_t start = pos;
    const Token& tok = tokens[pos];
    if (tok.t != Tok::kIdent && tok.t != Tok::kType && tok.t != Tok::kStateVar) {
      skip_line(start);
      continue;
    }
    RawStatement stmt;
    stmt.id = tok.text;
    stmt.id_type = tok.t;
    stmt.begin = tok.pos;
    pos++;
    if (pos >= n || tokens[pos].t != Tok::kEquals) {
      skip_line(start);
      continue;
    }
    pos++;
    const size_t first = w;
    int depth = 0, ternary = 0;
    while (pos < n && tokens[pos].t != Tok::kEof) {
      const Tok tt = tokens[pos].t;
      if (tt == Tok::kNewline && depth <= 0 && ternary <= 0) {
        size_t peek = pos + 1;
        while (peek < n && tokens[peek].t == Tok::kNewline) peek++;
        const Tok next = peek < n ? tokens[peek].t : Tok::kEof;
        if (next == Tok::kQuestion || (next == Tok::kColon && ternary > 0)) {
          pos++;
          continue;
        }
        break;
      }
      if (tt == Tok::kNewline) {
        pos++;
        continue;
      }
      if (tt == Tok::kLParen || tt == Tok::kLBrack || tt == Tok::kLBrace) {
        depth++;
      } else if ((tt == Tok::kRParen || tt == Tok::kRBrack || tt == Tok::kRBrace) && depth > 0) {
        depth--;
      } else if (tt == Tok::kQuestion && depth == 0) {
        ternary++;
      } else if (tt == Tok::kColon && depth == 0 && ternary > 0) {
        ternary--;
      }
      tokens[w++] = tokens[pos++];
    }
    stmt.end = pos < n ? tokens[pos].pos : text.size();
    if (w == first) {
      if (skipped) {
        std::string_view line = internal::JsTrim(
            text.substr(stmt.begin, (stmt.end > stmt.begin ? stmt.end : stmt.begin) - stmt.begin));
        skipped->push_back(SkippedLine{std::string(line.substr(0, 120))});
      }
      continue;
    }
    stmt.tokens = std::span<const Token>(tokens.data() + first, w - first);
    out.push_back(stmt);
  }
  return out;
}

}  // namespace affordance::surface
