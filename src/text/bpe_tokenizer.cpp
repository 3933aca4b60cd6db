#include "text/bpe_tokenizer.h"

#include "text/byte_level.h"
#include "text/huge_pages.h"
#include "text/utf8.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cstring>

namespace affordance::text {
namespace {

std::atomic<uint64_t> next_instance{1};

// A per-thread cache of words -> IDs, so each distinct word goes through BPE once. Words of every
// length up to kMaxWord are cached: text in scripts without spaces (Chinese, Japanese, Thai) and
// long words of Indic scripts make pre-tokens of dozens to hundreds of bytes, and a corpus of many
// scripts has tens of thousands of distinct words, which a small direct-mapped cache of short words
// thrashed on. The index is 4-way set associative (most recently used first); keys and IDs live in
// an arena that is emptied, together with the index, when it reaches kArenaLimit. Entries carry
// the tokenizer instance, so tokenizers never see each other's words; nothing is shared between
// threads.
struct WordCache {
  static constexpr size_t kWays = 4;
  static constexpr size_t kSets = size_t{1} << 15;  // 131072 entries, 3 MiB of index
  static constexpr size_t kMaxWord = 1024;
  static constexpr size_t kArenaLimit = size_t{8} << 20;
  struct Entry {
    uint64_t instance = 0;  // 0: empty (tokenizer instances count from 1)
    uint32_t tag = 0;       // high bits of the word's hash
    uint32_t offset = 0;    // key bytes at arena[offset], then id_count IDs
    uint16_t key_len = 0;
    uint16_t id_count = 0;
  };
  // Huge-page backed: a few page faults instead of thousands when a process first fills them.
  BigVector<Entry> entries = BigVector<Entry>(kWays * kSets);
  BigVector<char> arena;

  WordCache() { arena.reserve(kArenaLimit); }
  void Clear() {
    std::fill(entries.begin(), entries.end(), Entry{});
    arena.clear();
  }
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
  if (!parts_.pre_tokenizer.words_point_into_text()) {
    parts_.pre_tokenizer.Run(text, [&](std::string_view word) {
      EncodeWord(word, XXH3_64bits(word.data(), word.size()), out);
    });
    return;
  }
  // Words are looked up in batches: hashing a word and prefetching its cache set (and then its
  // arena bytes) well before the lookup hides the cache misses of a table too large for the CPU
  // caches. The words are views into `text`, so they outlive the pre-tokenizer's callback.
  WordCache& cache = ThreadCache();
  constexpr size_t kBatch = 16;
  std::string_view words[kBatch];
  uint64_t hashes[kBatch];
  size_t pending = 0;
  auto flush = [&] {
    for (size_t k = 0; k < pending; ++k) {
      const WordCache::Entry* set =
          &cache.entries[WordCache::kWays * (hashes[k] & (WordCache::kSets - 1))];
      const uint32_t tag = static_cast<uint32_t>(hashes[k] >> 32);
      for (size_t way = 0; way < WordCache::kWays; ++way) {
        if (set[way].tag == tag && set[way].instance == instance_) {
          __builtin_prefetch(cache.arena.data() + set[way].offset);
          break;
        }
      }
    }
    for (size_t k = 0; k < pending; ++k) EncodeWord(words[k], hashes[k], out);
    pending = 0;
  };
  parts_.pre_tokenizer.Run(text, [&](std::string_view word) {
    const uint64_t h = XXH3_64bits(word.data(), word.size());
    const WordCache::Entry* set = &cache.entries[WordCache::kWays * (h & (WordCache::kSets - 1))];
    __builtin_prefetch(set);
    __builtin_prefetch(set + WordCache::kWays - 1);  // a set spans two cache lines
    words[pending] = word;
    hashes[pending] = h;
    if (++pending == kBatch) flush();
  });
  flush();
}

void BpeTokenizer::EncodeWord(std::string_view word, uint64_t h, std::vector<TokenId>& out) const {
  if (word.size() > WordCache::kMaxWord) {
    parts_.bpe->EncodeWord(word, out);
    return;
  }
  WordCache& cache = ThreadCache();
  const uint32_t tag = static_cast<uint32_t>(h >> 32);
  WordCache::Entry* set = &cache.entries[WordCache::kWays * (h & (WordCache::kSets - 1))];
  for (size_t way = 0; way < WordCache::kWays; ++way) {
    const WordCache::Entry& e = set[way];
    if (e.tag == tag && e.instance == instance_ && e.key_len == word.size() &&
        std::memcmp(cache.arena.data() + e.offset, word.data(), word.size()) == 0) {
      const char* ids = cache.arena.data() + e.offset + e.key_len;
      size_t at = out.size();
      out.resize(at + e.id_count);
      std::memcpy(out.data() + at, ids, e.id_count * sizeof(TokenId));
      std::rotate(set, set + way, set + way + 1);
      return;
    }
  }
  const size_t before = out.size();
  parts_.bpe->EncodeWord(word, out);
  const size_t count = out.size() - before;
  const size_t need = word.size() + count * sizeof(TokenId);
  if (count > UINT16_MAX) return;
  if (cache.arena.size() + need > WordCache::kArenaLimit) cache.Clear();
  std::copy_backward(set, set + WordCache::kWays - 1, set + WordCache::kWays);
  set[0] = WordCache::Entry{instance_, tag, static_cast<uint32_t>(cache.arena.size()),
                            static_cast<uint16_t>(word.size()), static_cast<uint16_t>(count)};
  cache.arena.insert(cache.arena.end(), word.begin(), word.end());
  const char* ids = reinterpret_cast<const char*>(out.data() + before);
  cache.arena.insert(cache.arena.end(), ids, ids + count * sizeof(TokenId));
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
      return MakeError(
          "tokenizer.unknown_id", "a token ID is not in the vocabulary",
          fmt::format("ID {} at position {} (valid IDs are 0..{})", id, k, vocab_size_ - 1));
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
