#include "text/split_pattern.h"

#include "text/char_class.h"
#include "text/utf8.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <fmt/format.h>

namespace affordance::text {
namespace {

constexpr const char* kLlama3Regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr const char* kQwenRegex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// Oniguruma's \s: the Unicode White_Space property.
constexpr const char* kSpaceItems =
    R"(\t\n\x{0B}\f\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000})";

// Rewrites \s and \S so PCRE2 agrees with Oniguruma on what a space is.
std::string RewriteSpaces(const std::string& pattern) {
  std::string out;
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      char d = pattern[i + 1];
      if (d == 's') {
        out += in_class ? std::string(kSpaceItems) : fmt::format("[{}]", kSpaceItems);
      } else if (d == 'S' && !in_class) {
        out += fmt::format("[^{}]", kSpaceItems);
      } else {
        out += c;
        out += d;
      }
      ++i;
      continue;
    }
    if (c == '[' && !in_class) {
      in_class = true;
      out += c;
      // A ']' right after '[' or '[^' is a literal member.
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') out += pattern[++i];
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') out += pattern[++i];
      continue;
    }
    if (c == ']' && in_class) in_class = false;
    out += c;
  }
  return out;
}

class LiteralPattern final : public SplitPattern {
 public:
  explicit LiteralPattern(std::string literal) : literal_(std::move(literal)) {}
  void FindMatches(std::string_view text, std::vector<Span>& out) const override {
    if (literal_.empty()) return;
    size_t pos = 0;
    while ((pos = text.find(literal_, pos)) != std::string_view::npos) {
      out.emplace_back(pos, pos + literal_.size());
      pos += literal_.size();
    }
  }

 private:
  std::string literal_;
};

class Pcre2Pattern final : public SplitPattern {
 public:
  static Result<std::unique_ptr<SplitPattern>> Compile(const std::string& pattern) {
    std::string rewritten = RewriteSpaces(pattern);
    int err = 0;
    PCRE2_SIZE err_offset = 0;
    pcre2_code* code =
        pcre2_compile(reinterpret_cast<PCRE2_SPTR>(rewritten.data()), rewritten.size(),
                      PCRE2_UTF | PCRE2_UCP, &err, &err_offset, nullptr);
    if (!code) {
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(err, message, sizeof message);
      return MakeError("tokenizer.bad_regex", "a Split pattern is not a valid regex",
                       fmt::format("{} at offset {} in {}", reinterpret_cast<char*>(message),
                                   err_offset, pattern));
    }
    pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // falls back to the interpreter if JIT fails
    return std::unique_ptr<SplitPattern>(new Pcre2Pattern(code));
  }
  ~Pcre2Pattern() override { pcre2_code_free(code_); }

  void FindMatches(std::string_view text, std::vector<Span>& out) const override {
    pcre2_match_data* md = pcre2_match_data_create_from_pattern(code_, nullptr);
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    size_t last_end = 0;
    bool have_last = false;
    size_t last_match_end = 0;
    while (last_end <= text.size()) {
      int rc = pcre2_match(code_, subject, text.size(), last_end, PCRE2_NO_UTF_CHECK, md, nullptr);
      if (rc < 0) break;
      PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
      size_t s = ov[0], e = ov[1];
      if (s == e && have_last && last_match_end == last_end && s == last_end) {
        // Oniguruma's iterator: no empty match right after the previous one; step one character.
        if (last_end >= text.size()) break;
        last_end += utf8::SequenceLength(static_cast<unsigned char>(text[last_end]));
        continue;
      }
      out.emplace_back(s, e);
      last_end = e;
      last_match_end = e;
      have_last = true;
      if (s == e && e >= text.size()) break;
    }
    pcre2_match_data_free(md);
  }

 private:
  explicit Pcre2Pattern(pcre2_code* code) : code_(code) {}
  pcre2_code* code_;
};

bool IsNewline(char32_t c) { return c == '\r' || c == '\n'; }

// A hand-written matcher for
//   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,D}| ?[^\s\p{L}\p{N}]+[\r\n]*
//   |\s*[\r\n]+|\s+(?!\S)|\s+
// Every character is a letter, a number, a space or "other", so some alternative matches at every
// position and the matches tile the text.
class Gpt4Scanner final : public SplitPattern {
 public:
  explicit Gpt4Scanner(int max_digits) : max_digits_(max_digits) {}

  bool tiles() const override { return true; }

  void FindMatches(std::string_view text, std::vector<Span>& out) const override {
    size_t pos = 0;
    while (pos < text.size()) {
      size_t end = MatchEnd(text, pos);
      out.emplace_back(pos, end);
      pos = end;
    }
  }

  size_t MatchEnd(std::string_view text, size_t pos) const override {
    const size_t n = text.size();
    size_t i = pos;
    char32_t c = utf8::Next(text, i);  // i is now just past c
    // 1. Contractions, case-insensitively (U+017F LONG S folds to 's').
    if (c == '\'' && i < n) {
      if (size_t e = Contraction(text, i)) return e;
    }
    CharClass cc = ClassOf(c);
    // 2. [^\r\n\p{L}\p{N}]?\p{L}+
    if (cc == CharClass::kLetter) return LetterRun(text, i);
    if (cc != CharClass::kNumber && !IsNewline(c) && i < n) {
      size_t j = i;
      char32_t d = utf8::Next(text, j);
      if (ClassOf(d) == CharClass::kLetter) return LetterRun(text, j);
    }
    // 3. \p{N}{1,D}
    if (cc == CharClass::kNumber) {
      int count = 1;
      while (count < max_digits_ && i < n) {
        size_t j = i;
        if (ClassOf(utf8::Next(text, j)) != CharClass::kNumber) break;
        i = j;
        ++count;
      }
      return i;
    }
    // 4. ' ?[^\s\p{L}\p{N}]+[\r\n]*'
    if (cc == CharClass::kOther) return OtherRun(text, i);
    if (c == ' ' && i < n) {
      size_t j = i;
      if (ClassOf(utf8::Next(text, j)) == CharClass::kOther) return OtherRun(text, j);
    }
    // c is a space. Find the whitespace run [pos, run_end) and its last newline.
    size_t run_end = i, last_newline_end = 0, last_char_start = pos;
    if (IsNewline(c)) last_newline_end = i;
    while (run_end < n) {
      size_t j = run_end;
      char32_t d = utf8::Next(text, j);
      if (ClassOf(d) != CharClass::kSpace) break;
      if (IsNewline(d)) last_newline_end = j;
      last_char_start = run_end;
      run_end = j;
    }
    // 5. \s*[\r\n]+
    if (last_newline_end) return last_newline_end;
    // 6. \s+(?!\S): all of the run at the end of text, else all but its last character.
    if (run_end == n) return run_end;
    if (last_char_start > pos) return last_char_start;
    // 7. \s+
    return run_end;
  }

 private:
  static char Fold(std::string_view text, size_t& i) {
    if (i >= text.size()) return 0;
    char32_t c = utf8::Next(text, i);
    if (c == 0x17F) return 's';
    if (c >= 'A' && c <= 'Z') return static_cast<char>(c - 'A' + 'a');
    return c < 0x80 ? static_cast<char>(c) : 0;
  }
  // `i` is just past the apostrophe; returns the end of the contraction or 0.
  static size_t Contraction(std::string_view text, size_t i) {
    size_t j = i;
    char a = Fold(text, j);
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return j;
    size_t k = j;
    char b = Fold(text, k);
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return k;
    return 0;
  }
  static size_t LetterRun(std::string_view text, size_t i) {
    while (i < text.size()) {
      unsigned char b = static_cast<unsigned char>(text[i]);
      if (b < 0x80) {
        if ((b | 0x20) >= 'a' && (b | 0x20) <= 'z') {
          ++i;
          continue;
        }
        break;
      }
      size_t j = i;
      if (ClassOf(utf8::Next(text, j)) != CharClass::kLetter) break;
      i = j;
    }
    return i;
  }
  static size_t OtherRun(std::string_view text, size_t i) {
    while (i < text.size()) {
      size_t j = i;
      if (ClassOf(utf8::Next(text, j)) != CharClass::kOther) break;
      i = j;
    }
    while (i < text.size() && (text[i] == '\r' || text[i] == '\n')) ++i;
    return i;
  }

  int max_digits_;
};

}  // namespace

std::unique_ptr<SplitPattern> SplitPattern::Literal(std::string literal) {
  return std::make_unique<LiteralPattern>(std::move(literal));
}

std::unique_ptr<SplitPattern> Gpt4StyleScanner(int max_digits) {
  return std::make_unique<Gpt4Scanner>(max_digits);
}

Result<std::unique_ptr<SplitPattern>> SplitPattern::Regex(const std::string& pattern,
                                                          bool allow_fast_path) {
  if (allow_fast_path && pattern == kLlama3Regex) return Gpt4StyleScanner(3);
  if (allow_fast_path && pattern == kQwenRegex) return Gpt4StyleScanner(1);
  return Pcre2Pattern::Compile(pattern);
}

}  // namespace affordance::text
