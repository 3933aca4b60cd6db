// Text clean-up and statement splitting: transcriptions of lang-core's parser.ts (stripFences,
// stripComments, preprocess) and statements.ts (autoClose, split).
#include "surface/internal/json_text.h"
#include "surface/syntax.h"

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

}  // namespace

std::string StripFences(std::string_view input) {
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
  std::string fenced = StripFences(internal::JsTrim(input));
  std::string clean = StripComments(fenced);
  return std::string(internal::JsTrim(clean));
}

AutoClosed AutoClose(std::string_view input) {
  std::string stack;
  internal::QuoteTracker quotes;
  for (char c : input) {
    if (quotes.Consume(c)) continue;
    if (c == '(' || c == '[' || c == '{') {
      stack += c;
    } else if (!stack.empty() &&
               ((c == ')' && stack.back() == '(') || (c == ']' && stack.back() == '[') ||
                (c == '}' && stack.back() == '{'))) {
      stack.pop_back();
    }
  }
  AutoClosed out;
  out.incomplete = quotes.in_str != 0 || !stack.empty();
  out.text.assign(input);
  if (!out.incomplete) return out;
  if (quotes.in_str) {
    if (quotes.esc) out.text += '\\';
    out.text += quotes.in_str;
  }
  for (size_t j = stack.size(); j-- > 0;) {
    out.text += stack[j] == '(' ? ')' : stack[j] == '[' ? ']' : '}';
  }
  return out;
}

std::vector<RawStatement> SplitStatements(const std::vector<Token>& tokens, std::string_view text,
                                          std::vector<SkippedLine>* skipped) {
  std::vector<RawStatement> out;
  size_t pos = 0;
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
      stmt.tokens.push_back(tokens[pos++]);
    }
    stmt.end = pos < n ? tokens[pos].pos : text.size();
    if (stmt.tokens.empty()) {
      if (skipped) {
        std::string_view line = internal::JsTrim(
            text.substr(stmt.begin, (stmt.end > stmt.begin ? stmt.end : stmt.begin) - stmt.begin));
        skipped->push_back(SkippedLine{std::string(line.substr(0, 120))});
      }
      continue;
    }
    out.push_back(std::move(stmt));
  }
  return out;
}

}  // namespace affordance::surface
