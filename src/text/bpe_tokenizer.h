// The Tokenizer implementation: added-token extraction -> normalizer -> pre-tokenizer -> BPE ->
// post-processor, and the ByteLevel decoder. Built by the tokenizer.json loader
// (tokenizer_json.cpp); immutable afterwards.
#pragma once

#include "text/added_tokens.h"
#include "text/bpe.h"
#include "text/normalizer.h"
#include "text/pre_tokenizer.h"
#include "text/tokenizer.h"

#include <memory>
#include <string>
#include <vector>

namespace affordance::text {

// One item of a TemplateProcessing "single" template: either the sequence or fixed IDs.
struct TemplatePiece {
  bool is_sequence = false;
  std::vector<TokenId> ids;
};

struct TokenizerParts {
  Normalizer normalizer;
  PreTokenizer pre_tokenizer;
  std::unique_ptr<Bpe> bpe;
  std::vector<AddedToken> added;
  // TemplateProcessing steps in application order (ByteLevel post-processing changes no IDs).
  std::vector<std::vector<TemplatePiece>> templates;
};

class BpeTokenizer final : public Tokenizer {
 public:
  explicit BpeTokenizer(TokenizerParts parts);

  Result<std::vector<TokenId>> Encode(std::string_view text,
                                      const EncodeOptions& options) const override;
  Status EncodeInto(std::string_view text, std::vector<TokenId>& out,
                    const EncodeOptions& options) const override;
  Result<std::string> Decode(std::span<const TokenId> ids) const override;
  Result<std::string> TokenBytes(TokenId id) const override;
  std::optional<std::string_view> TokenString(TokenId id) const override;
  std::optional<TokenId> TokenIdOf(std::string_view token) const override;
  bool IsSpecial(TokenId id) const override;
  size_t VocabSize() const override { return vocab_size_; }

 private:
  void EncodeSegment(std::string_view raw, std::vector<TokenId>& out, bool match_special) const;
  void EncodeNormalized(std::string_view text, std::vector<TokenId>& out) const;
  // `hash`: XXH3_64bits of the word (its key in the per-thread word cache).
  void EncodeWord(std::string_view word, uint64_t hash, std::vector<TokenId>& out) const;
  std::optional<std::string_view> BytesOf(TokenId id) const;

  TokenizerParts parts_;
  AddedTokenMatcher raw_matcher_;         // added tokens with normalized = false
  AddedTokenMatcher normalized_matcher_;  // added tokens with normalized = true
  size_t vocab_size_ = 0;
  uint64_t instance_ = 0;  // keys the per-thread word cache
  // Decoded bytes of every ID: bytes_[offsets_[id] .. offsets_[id + 1]); kinds_[id]: 0 = no
  // token, 1 = model token, 2 = added token, 3 = special added token.
  std::string bytes_;
  std::vector<uint32_t> offsets_;
  std::vector<uint8_t> kinds_;
  std::vector<int32_t> added_index_;  // id -> index into parts_.added, -1 otherwise
};

}  // namespace affordance::text
