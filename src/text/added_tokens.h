// Added tokens (tokenizer.json "added_tokens"): control tokens such as <|im_end|> and extra
// vocabulary, with the reference library's matching rules (leftmost-longest; single_word, lstrip
// and rstrip; `normalized` tokens match the normalized text, the others the raw text).
#pragma once

#include "text/tokenizer.h"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::text {

struct AddedToken {
  TokenId id = 0;
  std::string content;
  bool single_word = false;
  bool lstrip = false;
  bool rstrip = false;
  bool normalized = false;
  bool special = false;
};

// One piece of text after added-token extraction: either an added token or text to encode.
struct AddedSplit {
  size_t begin = 0, end = 0;
  std::optional<TokenId> token;
};

class AddedTokenMatcher {
 public:
  // `patterns` are the spellings to look for (a token's content, or its normalized content).
  void Add(std::string pattern, const AddedToken& token);
  // Builds the matching index; call once after the last Add().
  void Finish() { Seal(); }
  bool empty() const { return patterns_.empty(); }

  // Splits `text` the way the reference's AddedVocabulary::find_matches does.
  void Split(std::string_view text, std::vector<AddedSplit>& out) const;

 private:
  struct Pattern {
    std::string text;
    TokenId id;
    bool single_word, lstrip, rstrip;
  };
  // Longest pattern starting at `pos`, or nullptr.
  const Pattern* LongestAt(std::string_view text, size_t pos) const;

  // A byte trie over the patterns: node n's children are edges_[first_edge_[n] ..
  // first_edge_[n + 1]) sorted by byte (built lazily, see Seal()); terminal_[n] is a pattern
  // index or -1.
  struct Edge {
    unsigned char byte;
    uint32_t node;
  };
  void Seal();
  std::vector<Pattern> patterns_;
  std::array<bool, 256> first_byte_{};
  std::vector<uint32_t> first_edge_;
  std::vector<Edge> edges_;
  std::vector<int32_t> terminal_;
};

}  // namespace affordance::text
