#include "text/bpe_tokenizer.h"

#include "text/byte_level.h"
#include "text/utf8.h"

#include <xxhash.h>
#include <fmt/format.h>

#include <atomic>
#include <cstring>

namespace affordance::text {
namespace {

std::atomic<uint64_t> next_instance{1};

// A per-thread, direct-mapped cache of short words -> IDs. Entries are tagged with the tokenizer
// instance so tokenizers never see each other's words; nothing is shared between threads.
struct WordCache {
  static constexpr size_t kSlots = 8192;
  static constexpr size_t kMaxKey = 23;
  static constexpr size_t kMaxIds = 7;
  struct Slot {
    uint64_t instance = 0;
    uint8_t key_len = 0;
    uint8_t id_count = 0;
    char key[kMaxKey];
    TokenId ids[kMaxIds];
  };
  Slot slots[kSlots];
};

WordCache& ThreadCache() {
  thread_local std::unique_ptr<WordCache> cache = std::make_unique<WordCache>();
  return *cache;
}

}  // namespace

BpeTokenizer::BpeTokenizer(TokenizerParts parts)
    : parts_(std::move(parts)), instance_(next_instance.fetch_add(1)) {
  const Vocabulary& vocab = parts_.bpe->vocab();
  vocab_size_ = vocab.IdLimit();
  for (const AddedToken& t : parts_.added)
    vocab_size_ = std::max(vocab_size_, static_cast<size_t>(t.id) + 1);
  added_index_.assign(vocab_size_, -1);
  for (size_t i = 0; i < parts_.added.size(); ++i) {
    const AddedToken& t = parts_.added[i];
    added_index_[static_cast<size_t>(t.id)] = static_cast<int32_t>(i);
    if (t.normalized) {
      std::string normalized;
      parts_.normalizer.Apply(t.content, normalized);
      normalized_matcher_.Add(std::move(normalized), t);
    } else {
      raw_matcher_.Add(t.content, t);
    }
  }
  raw_matcher_.Finish();
  normalized_matcher_.Finish();
  kinds_.assign(vocab_size_, 0);
  offsets_.assign(vocab_size_ + 1, 0);
  bytes_.reserve(vocab.IdLimit() * 8);
  for (size_t id = 0; id < vocab_size_; ++id) {
    offsets_[id] = static_cast<uint32_t>(bytes_.size());
    std::optional<std::string_view> s;
    if (added_index_[id] >= 0) {
      const AddedToken& t = parts_.added[static_cast<size_t>(added_index_[id])];
      s = t.content;
      kinds_[id] = t.special ? 3 : 2;
    } else if ((s = vocab.StringOf(static_cast<TokenId>(id)))) {
      kinds_[id] = 1;
    }
    if (s) byte_level::UnspellInto(*s, bytes_);
  }
  offsets_[vocab_size_] = static_cast<uint32_t>(bytes_.size());
}

Result<std::vector<TokenId>> BpeTokenizer::Encode(std::string_view text,
                                                  const EncodeOptions& options) const {
  std::vector<TokenId> ids;
  ids.reserve(text.size() / 3 + 4);
  Status status = EncodeInto(text, ids, options);
  if (!status.ok()) return status.error();
  return ids;
}

Status BpeTokenizer::EncodeInto(std::string_view text, std::vector<TokenId>& out,
                                const EncodeOptions& options) const {
  size_t bad = utf8::FirstInvalid(text);
  if (bad != utf8::kValid) {
    return MakeError("tokenizer.invalid_utf8", "text to encode is not valid UTF-8",
                     fmt::format("byte offset {}", bad));
  }
  if (!options.add_special_tokens || parts_.templates.empty()) {
    EncodeSegment(text, out, options.match_special);
    return {};
  }
  // Templates nest: the first one wraps the sequence, the next wraps that result, and so on.
  std::vector<TokenId> seq;
  EncodeSegment(text, seq, options.match_special);
  for (const auto& tmpl : parts_.templates) {
    std::vector<TokenId> wrapped;
    for (const TemplatePiece& piece : tmpl) {
      const auto& src = piece.is_sequence ? seq : piece.ids;
      wrapped.insert(wrapped.end(), src.begin(), src.end());
    }
    seq.swap(wrapped);
  }
  out.insert(out.end(), seq.begin(), seq.end());
  return {};
}

void BpeTokenizer::EncodeSegment(std::string_view raw, std::vector<TokenId>& out,
                                 bool match_special) const {
  if (!match_special || (raw_matcher_.empty() && normalized_matcher_.empty())) {
    if (parts_.normalizer.is_identity()) {
      EncodeNormalized(raw, out);
    } else {
      std::string normalized;
      parts_.normalizer.Apply(raw, normalized);
      EncodeNormalized(normalized, out);
    }
    return;
  }
  // The reference's extract_and_normalize: raw-matched tokens split the text first; each remaining
  // piece is normalized, then normalized-matched tokens split it again.
  std::vector<AddedSplit> raw_splits;
  raw_matcher_.Split(raw, raw_splits);
  std::string normalized;
  std::vector<AddedSplit> splits;
  for (const AddedSplit& s : raw_splits) {
    if (s.token) {
      out.push_back(*s.token);
      continue;
    }
    parts_.normalizer.Apply(raw.substr(s.begin, s.end - s.begin), normalized);
    splits.clear();
    normalized_matcher_.Split(normalized, splits);
    std::string_view text = normalized;
    for (const AddedSplit& t : splits) {
      if (t.token) {
        out.push_back(*t.token);
      } else {
        EncodeNormalized(text.substr(t.begin, t.end - t.begin), out);
      }
    }
  }
}

void BpeTokenizer::EncodeNormalized(std::string_view text, std::vector<TokenId>& out) const {
  parts_.pre_tokenizer.Run(text, [&](std::string_view word) { EncodeWord(word, out); });
}

void BpeTokenizer::EncodeWord(std::string_view word, std::vector<TokenId>& out) const {
  if (word.size() > WordCache::kMaxKey) {
    parts_.bpe->EncodeWord(word, out);
    return;
  }
  WordCache& cache = ThreadCache();
  uint64_t h = XXH3_64bits(word.data(), word.size());
  WordCache::Slot& slot = cache.slots[h & (WordCache::kSlots - 1)];
  if (slot.instance == instance_ && slot.key_len == word.size() &&
      std::memcmp(slot.key, word.data(), word.size()) == 0) {
    out.insert(out.end(), slot.ids, slot.ids + slot.id_count);
    return;
  }
  size_t before = out.size();
  parts_.bpe->EncodeWord(word, out);
  size_t count = out.size() - before;
  if (count <= WordCache::kMaxIds) {
    slot.instance = instance_;
    slot.key_len = static_cast<uint8_t>(word.size());
    slot.id_count = static_cast<uint8_t>(count);
    std::memcpy(slot.key, word.data(), word.size());
    std::memcpy(slot.ids, out.data() + before, count * sizeof(TokenId));
  }
}

std::optional<std::string_view> BpeTokenizer::BytesOf(TokenId id) const {
  if (id < 0 || static_cast<size_t>(id) >= vocab_size_ || kinds_[static_cast<size_t>(id)] == 0)
    return std::nullopt;
  size_t i = static_cast<size_t>(id);
  return std::string_view(bytes_).substr(offsets_[i], offsets_[i + 1] - offsets_[i]);
}

Result<std::string> BpeTokenizer::Decode(std::span<const TokenId> ids) const {
  size_t total = 0;
  for (size_t k = 0; k < ids.size(); ++k) {
    TokenId id = ids[k];
    if (id < 0 || static_cast<size_t>(id) >= vocab_size_ || kinds_[static_cast<size_t>(id)] == 0) {
      return MakeError("tokenizer.unknown_id", "a token ID is not in the vocabulary",
                       fmt::format("ID {} at position {} (valid IDs are 0..{})", id, k,
                                   vocab_size_ - 1));
    }
    size_t i = static_cast<size_t>(id);
    total += offsets_[i + 1] - offsets_[i];
  }
  std::string raw;
  raw.resize(total);
  char* w = raw.data();
  for (TokenId id : ids) {
    size_t i = static_cast<size_t>(id);
    size_t len = offsets_[i + 1] - offsets_[i];
    std::memcpy(w, bytes_.data() + offsets_[i], len);
    w += len;
  }
  if (utf8::FirstInvalid(raw) == utf8::kValid) return raw;
  std::string fixed;
  fixed.reserve(raw.size() + 16);
  utf8::AppendLossy(fixed, raw);
  return fixed;
}

Result<std::string> BpeTokenizer::TokenBytes(TokenId id) const {
  auto bytes = BytesOf(id);
  if (!bytes) {
    return MakeError("tokenizer.unknown_id", "a token ID is not in the vocabulary",
                     fmt::format("ID {} (valid IDs are 0..{})", id, vocab_size_ - 1));
  }
  return std::string(*bytes);
}

std::optional<std::string_view> BpeTokenizer::TokenString(TokenId id) const {
  if (id < 0 || static_cast<size_t>(id) >= vocab_size_) return std::nullopt;
  int32_t added = added_index_[static_cast<size_t>(id)];
  if (added >= 0) return std::string_view(parts_.added[static_cast<size_t>(added)].content);
  return parts_.bpe->vocab().StringOf(id);
}

std::optional<TokenId> BpeTokenizer::TokenIdOf(std::string_view token) const {
  for (const AddedToken& t : parts_.added)
    if (t.content == token) return t.id;
  return parts_.bpe->vocab().Find(token);
}

bool BpeTokenizer::IsSpecial(TokenId id) const {
  return id >= 0 && static_cast<size_t>(id) < vocab_size_ && kinds_[static_cast<size_t>(id)] == 3;
}

}  // namespace affordance::text
