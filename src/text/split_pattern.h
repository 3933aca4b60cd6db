// Regex matching for the Split pre-tokenizer.
//
// `SplitPattern` finds the non-overlapping matches of a tokenizer.json Split pattern the way the
// reference library does (Oniguruma's find_iter: an empty match right after the previous match is
// skipped). Regexes run on PCRE2 with JIT and Unicode properties; `\s`/`\S` are rewritten to the
// Unicode White_Space set Oniguruma uses. The two pre-tokenizer regexes of the GPT-4 family (Llama
// 3 with \p{N}{1,3}, Qwen 2/3 with \p{N}) are recognised and matched by a hand-written scanner that
// the fuzzer checks against PCRE2.
#pragma once

#include "base/result.h"

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace affordance::text {

using Span = std::pair<size_t, size_t>;  // [begin, end) byte offsets

class SplitPattern {
 public:
  virtual ~SplitPattern() = default;
  // A literal string pattern (tokenizer.json {"String": ...}).
  static std::unique_ptr<SplitPattern> Literal(std::string literal);
  // A regex (tokenizer.json {"Regex": ...}). `allow_fast_path` = false forces PCRE2 (for tests).
  // Errors: "tokenizer.bad_regex".
  static Result<std::unique_ptr<SplitPattern>> Regex(const std::string& pattern,
                                                     bool allow_fast_path = true);

  // Appends the matches in valid UTF-8 `text` to `out`.
  virtual void FindMatches(std::string_view text, std::vector<Span>& out) const = 0;
  // True when every position starts a match, so the matches tile the text (fast paths use this).
  virtual bool tiles() const { return false; }
  // For tiling patterns: the end of the match that starts at `pos` (< text.size()).
  virtual size_t MatchEnd(std::string_view, size_t pos) const { return pos; }
};

// The hand-written scanner for the GPT-4-family regex with at most `max_digits` digits per number
// (3 for Llama 3, 1 for Qwen); exposed for the fuzzer.
std::unique_ptr<SplitPattern> Gpt4StyleScanner(int max_digits);

}  // namespace affordance::text
