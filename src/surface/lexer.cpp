// Lexer: a byte-wise transcription of lang-core's tokenize(). Every syntactic character is ASCII,
// so scanning UTF-8 bytes gives the same tokens as scanning UTF-16 code units.
#include "surface/ast.h"
#include "surface/internal/json_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace affordance::surface {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsWord(char c) { return IsAlpha(c) || IsDigit(c); }

// JavaScript's `+text` for the number shapes the lexer produces (NaN when incomplete, e.g. "1e").
double JsUnaryPlus(std::string_view text) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) {
    // from_chars reports overflow/underflow; JS gives +-Infinity or +-0.
    bool negative = !text.empty() && text[0] == '-';
    size_t e = text.find_first_of("eE");
    bool tiny = e != std::string_view::npos && text.find('-', e) != std::string_view::npos;
    if (tiny) return negative ? -0.0 : 0.0;
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  }
  if (ec != std::errc() || end != text.data() + text.size()) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return value;
}

bool EndsValue(const std::vector<Token>& tokens) {
  if (tokens.empty()) return false;
  switch (tokens.back().t) {
    case Tok::kNum:
    case Tok::kStr:
    case Tok::kIdent:
    case Tok::kType:
    case Tok::kRParen:
    case Tok::kRBrack:
    case Tok::kTrue:
    case Tok::kFalse:
    case Tok::kNull:
    case Tok::kStateVar:
    case Tok::kBuiltinCall:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::vector<Token> Tokenize(std::string_view src, Arena& strings) {
  std::vector<Token> tokens;
  Tokenize(src, strings, &tokens);
  return tokens;
}

void Tokenize(std::string_view src, Arena& strings, std::vector<Token>* out) {
  std::vector<Token>& tokens = *out;
  tokens.clear();
  tokens.reserve(src.size() / 3 + 2);  // about one token per three bytes of typical programs
  size_t i = 0;
  const size_t n = src.size();
  auto push = [&](Tok t, size_t pos, size_t width) {
    tokens.push_back(Token{t, {}, 0, pos});
    i += width;
  };
  while (i < n) {
    while (i < n && (src[i] == ' ' || src[i] == '\t' || src[i] == '\r')) i++;
    if (i >= n) break;
    const char c = src[i];
    const char next = i + 1 < n ? src[i + 1] : '\0';
    switch (c) {
      case '\n':
        push(Tok::kNewline, i, 1);
        continue;
      case '(':
        push(Tok::kLParen, i, 1);
        continue;
      case ')':
        push(Tok::kRParen, i, 1);
        continue;
      case '[':
        push(Tok::kLBrack, i, 1);
        continue;
      case ']':
        push(Tok::kRBrack, i, 1);
        continue;
      case '{':
        push(Tok::kLBrace, i, 1);
        continue;
      case '}':
        push(Tok::kRBrace, i, 1);
        continue;
      case ',':
        push(Tok::kComma, i, 1);
        continue;
      case ':':
        push(Tok::kColon, i, 1);
        continue;
      case '=':
        next == '=' ? push(Tok::kEqEq, i, 2) : push(Tok::kEquals, i, 1);
        continue;
      case '!':
        next == '=' ? push(Tok::kNotEq, i, 2) : push(Tok::kNot, i, 1);
        continue;
      case '>':
        next == '=' ? push(Tok::kGreaterEq, i, 2) : push(Tok::kGreater, i, 1);
        continue;
      case '<':
        next == '=' ? push(Tok::kLessEq, i, 2) : push(Tok::kLess, i, 1);
        continue;
      case '&':
        push(Tok::kAnd, i, next == '&' ? 2 : 1);
        continue;
      case '|':
        push(Tok::kOr, i, next == '|' ? 2 : 1);
        continue;
      case '.':
        push(Tok::kDot, i, 1);
        continue;
      case '?':
        push(Tok::kQuestion, i, 1);
        continue;
      case '+':
        push(Tok::kPlus, i, 1);
        continue;
      case '*':
        push(Tok::kStar, i, 1);
        continue;
      case '/':
        push(Tok::kSlash, i, 1);
        continue;
      case '%':
        push(Tok::kPercent, i, 1);
        continue;
      default:
        break;
    }
    if (c == '"') {
      const size_t start = i++;
      bool closed = false, plain = true;  // plain: no escape or control character
      while (i < n) {
        const unsigned char ch = static_cast<unsigned char>(src[i]);
        if (ch == '\\') {
          plain = false;
          i += 2;
        } else if (ch == '"') {
          i++;
          closed = true;
          break;
        } else {
          if (ch < 0x20) plain = false;
          i++;
        }
      }
      if (i > n) i = n;
      std::string_view value;
      if (plain) {
        // JSON.parse of a string without escapes or control characters is its content.
        value = src.substr(start + 1, i - start - 1 - (closed ? 1 : 0));
      } else {
        std::string raw(src.substr(start, i - start));
        if (!closed) raw += '"';
        std::string decoded;
        if (internal::DecodeJsonString(raw, &decoded)) {
          value = strings.Copy(decoded);
        } else {
          // lang-core: rawString.replace(/^"|"$/g, "") on the unmodified raw text.
          std::string_view r = src.substr(start, i - start);
          if (!r.empty() && r.front() == '"') r.remove_prefix(1);
          if (!r.empty() && r.back() == '"') r.remove_suffix(1);
          value = r;
        }
      }
      tokens.push_back(Token{Tok::kStr, value, 0, start});
      continue;
    }
    if (c == '\'') {
      const size_t start = i++;
      std::string value;  // the decoded content, once an escape was seen
      bool escaped = false;
      size_t end = n;  // end of the content
      while (i < n) {
        if (src[i] == '\\') {
          if (!escaped) value.assign(src.substr(start + 1, i - start - 1));
          escaped = true;
          i++;
          if (i < n) {
            const char e = src[i];
            value += e == 'n' ? '\n' : e == 't' ? '\t' : e;
            i++;
          }
        } else if (src[i] == '\'') {
          end = i;
          i++;
          break;
        } else {
          if (escaped) value += src[i];
          i++;
        }
      }
      tokens.push_back(Token{Tok::kStr,
                             escaped ? strings.Copy(value) : src.substr(start + 1, end - start - 1),
                             0, start});
      continue;
    }
    if (c == '-' && (EndsValue(tokens) || !IsDigit(next))) {
      push(Tok::kMinus, i, 1);
      continue;
    }
    if (IsDigit(c) || c == '-') {
      const size_t start = i;
      if (src[i] == '-') i++;
      while (i < n && IsDigit(src[i])) i++;
      if (i < n && src[i] == '.' && i + 1 < n && IsDigit(src[i + 1])) {
        i++;
        while (i < n && IsDigit(src[i])) i++;
      }
      if (i < n && (src[i] == 'e' || src[i] == 'E')) {
        i++;
        if (i < n && (src[i] == '+' || src[i] == '-')) i++;
        while (i < n && IsDigit(src[i])) i++;
      }
      tokens.push_back(Token{Tok::kNum, {}, JsUnaryPlus(src.substr(start, i - start)), start});
      continue;
    }
    if (c == '$' && IsAlpha(next)) {
      const size_t start = i++;
      while (i < n && IsWord(src[i])) i++;
      tokens.push_back(Token{Tok::kStateVar, src.substr(start, i - start), 0, start});
      continue;
    }
    if (IsAlpha(c)) {
      const size_t start = i;
      while (i < n && IsWord(src[i])) i++;
      std::string_view word = src.substr(start, i - start);
      if (word == "true") {
        tokens.push_back(Token{Tok::kTrue, {}, 0, start});
      } else if (word == "false") {
        tokens.push_back(Token{Tok::kFalse, {}, 0, start});
      } else if (word == "null") {
        tokens.push_back(Token{Tok::kNull, {}, 0, start});
      } else {
        Tok kind = (c >= 'A' && c <= 'Z') ? Tok::kType : Tok::kIdent;
        tokens.push_back(Token{kind, word, 0, start});
      }
      continue;
    }
    if (c == '@' && IsAlpha(next)) {
      const size_t start = ++i;
      while (i < n && IsWord(src[i])) i++;
      tokens.push_back(Token{Tok::kBuiltinCall, src.substr(start, i - start), 0, start - 1});
      continue;
    }
    i++;  // any other character (#, emoji bytes, stray backticks) is skipped
  }
  tokens.push_back(Token{Tok::kEof, {}, 0, n});
}

std::string JsNumberString(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value < 0 ? "-Infinity" : "Infinity";
  if (value == 0) return "0";
  // Shortest round-trip digits, then JavaScript's Number::toString layout.
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  (void)ec;
  std::string sci(buf, end);  // "-d.ddde+XX"
  std::string out;
  size_t p = 0;
  if (sci[0] == '-') {
    out += '-';
    p = 1;
  }
  size_t epos = sci.find('e');
  std::string digits;
  for (size_t k = p; k < epos; ++k) {
    if (sci[k] != '.') digits += sci[k];
  }
  int exp10 = std::stoi(sci.substr(epos + 1));
  const int k = static_cast<int>(digits.size());
  const int n = exp10 + 1;
  if (k <= n && n <= 21) {
    out += digits + std::string(n - k, '0');
  } else if (0 < n && n <= 21) {
    out += digits.substr(0, n) + "." + digits.substr(n);
  } else if (-6 < n && n <= 0) {
    out += "0." + std::string(-n, '0') + digits;
  } else {
    out += digits.substr(0, 1);
    if (k > 1) out += "." + digits.substr(1);
    out += "e";
    out += (n - 1 >= 0) ? "+" : "-";
    out += std::to_string(std::abs(n - 1));
  }
  return out;
}

}  // namespace affordance::surface
