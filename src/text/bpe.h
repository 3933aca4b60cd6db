// The BPE model over the byte-level alphabet: turns one pre-token (raw bytes) into token IDs by
// repeatedly applying the lowest-ranked merge, leftmost first, exactly as the reference library
// does (HF tokenizers `BPE::merge_word`).
#pragma once

#include "base/result.h"
#include "text/huge_pages.h"
#include "text/tokenizer.h"
#include "text/vocabulary.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::text {

struct BpeSettings {
  bool ignore_merges = false;  // a pre-token that is itself in the vocabulary is one token
  bool byte_fallback = false;  // a byte whose character is missing becomes <0xXX>
  bool fuse_unk = false;
  std::optional<TokenId> unk;
};

class Bpe {
 public:
  // `vocab` must be sealed.
  Bpe(Vocabulary vocab, BpeSettings settings);

  // Builds the merge index from every pair (left, right) of vocabulary strings, in rank order
  // (0, 1, ...). Call once. Errors when a side or the merged token is not in the vocabulary
  // ("tokenizer.unknown_merge_token").
  Status SetMerges(std::span<const std::pair<std::string_view, std::string_view>> merges);

  // Appends the IDs of the pre-token `bytes` (raw UTF-8 bytes, before byte-level spelling).
  void EncodeWord(std::string_view bytes, std::vector<TokenId>& out) const;

  const Vocabulary& vocab() const { return vocab_; }

 private:
  struct Merge {
    uint64_t key = 0;  // (left << 32) | right; kEmptyKey marks a free slot
    uint32_t rank = 0;
    TokenId merged = 0;
  };
  static constexpr uint64_t kEmptyKey = ~uint64_t{0};
  static constexpr uint32_t kNoRank = ~uint32_t{0};

  // Words of up to this many initial symbols take the quadratic merge loop, longer ones the heap.
  static constexpr size_t kShortWord = 24;

  const Merge* FindMerge(TokenId left, TokenId right) const;
  const Merge* Probe(uint64_t key, uint64_t slot) const;
  Status MergeError(std::string_view left, std::string_view right, uint32_t rank, bool l, bool r,
                    std::string_view joined) const;
  void InitialSymbols(std::string_view bytes, std::vector<TokenId>& symbols) const;
  void MergeShort(std::vector<TokenId>& symbols) const;
  void MergeLong(std::vector<TokenId>& symbols) const;

  Vocabulary vocab_;
  // With ignore_merges: the tokens spelled wholly in the byte alphabet, keyed by their raw bytes,
  // so a word is looked up without spelling it first.
  Vocabulary raw_words_;
  BpeSettings settings_;
  std::array<TokenId, 256> byte_token_{};      // -1 when the byte's character is not in the vocab
  std::array<TokenId, 256> fallback_token_{};  // <0xXX>, -1 when missing
  BigVector<Merge> merges_;                    // open-addressing table
  uint64_t mask_ = 0;
};

}  // namespace affordance::text
