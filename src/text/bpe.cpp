#include "text/bpe.h"

#include "text/byte_level.h"
#include "text/utf8.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <queue>

namespace affordance::text {
namespace {

inline uint64_t PairKey(TokenId left, TokenId right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}

inline uint64_t Mix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  return k;
}

}  // namespace

Bpe::Bpe(Vocabulary vocab, BpeSettings settings) : vocab_(std::move(vocab)), settings_(settings) {
  std::string spelled;
  for (int b = 0; b < 256; ++b) {
    spelled.clear();
    utf8::Append(spelled, byte_level::CharOf(static_cast<uint8_t>(b)));
    byte_token_[b] = vocab_.Find(spelled).value_or(-1);
    fallback_token_[b] = vocab_.Find(fmt::format("<0x{:02X}>", b)).value_or(-1);
  }
  if (settings_.ignore_merges) {
    std::string raw;
    raw_words_.Reserve(vocab_.IdLimit(), vocab_.bytes());
    for (size_t id = 0; id < vocab_.IdLimit(); ++id) {
      auto s = vocab_.StringOf(static_cast<TokenId>(id));
      raw.clear();
      if (s && byte_level::UnspellInto(*s, raw)) raw_words_.Add(raw, static_cast<TokenId>(id));
    }
    raw_words_.Seal();
  }
}

Status Bpe::MergeError(std::string_view left, std::string_view right, uint32_t rank, bool l, bool r,
                       std::string_view joined) const {
  if (!l || !r) {
    return MakeError(
        "tokenizer.unknown_merge_token", "a merge names a token that is not in the vocabulary",
        fmt::format("merge {}: \"{} {}\" (unknown: \"{}\")", rank, left, right, !l ? left : right));
  }
  return MakeError("tokenizer.unknown_merge_token",
                   "a merge produces a token that is not in the vocabulary",
                   fmt::format("merge {}: \"{} {}\" (unknown: \"{}\")", rank, left, right, joined));
}

Status Bpe::SetMerges(std::span<const std::pair<std::string_view, std::string_view>> merges) {
  size_t cap = 16;
  while (cap < merges.size() + merges.size() / 2) cap <<= 1;  // load factor <= 2/3
  merges_.assign(cap, Merge{kEmptyKey, 0, 0});
  mask_ = cap - 1;
  // Loading is dominated by cache misses, so it is a three-stage pipeline: merge i + 2k is
  // hashed and its vocabulary slots prefetched, merge i + k is resolved to IDs and its table slot
  // prefetched, and merge i is inserted.
  constexpr size_t kAhead = 8;
  struct Stage {
    std::string joined;
    uint64_t h[3];
    Merge merge;
    bool ok;
  };
  std::array<Stage, 2 * kAhead> ring;
  auto hash = [&](size_t i) {
    Stage& s = ring[i % ring.size()];
    const auto& [left, right] = merges[i];
    s.joined.assign(left).append(right);
    s.h[0] = Vocabulary::Hash(left);
    s.h[1] = Vocabulary::Hash(right);
    s.h[2] = Vocabulary::Hash(s.joined);
    for (uint64_t h : s.h) vocab_.Prefetch(h);
  };
  auto resolve = [&](size_t i) {
    Stage& s = ring[i % ring.size()];
    const auto& [left, right] = merges[i];
    auto l = vocab_.FindHashed(left, s.h[0]);
    auto r = vocab_.FindHashed(right, s.h[1]);
    auto m = vocab_.FindHashed(s.joined, s.h[2]);
    s.ok = l && r && m;
    if (!s.ok) return;
    s.merge = Merge{PairKey(*l, *r), static_cast<uint32_t>(i), *m};
    __builtin_prefetch(&merges_[Mix(s.merge.key) & mask_], 1);
  };
  const size_t n = merges.size();
  for (size_t i = 0; i < std::min(2 * kAhead, n); ++i) hash(i);
  for (size_t i = 0; i < std::min(kAhead, n); ++i) resolve(i);
  for (size_t i = 0; i < n; ++i) {
    Stage& s = ring[i % ring.size()];
    if (!s.ok) {
      const auto& [left, right] = merges[i];
      return MergeError(left, right, static_cast<uint32_t>(i),
                        vocab_.FindHashed(left, s.h[0]).has_value(),
                        vocab_.FindHashed(right, s.h[1]).has_value(), s.joined);
    }
    const Merge merge = s.merge;
    if (i + 2 * kAhead < n) hash(i + 2 * kAhead);
    if (i + kAhead < n) resolve(i + kAhead);
    for (uint64_t h = Mix(merge.key) & mask_;; h = (h + 1) & mask_) {
      if (merges_[h].key == kEmptyKey || merges_[h].key == merge.key) {
        merges_[h] = merge;  // a repeated pair keeps its last rank, as the reference's map does
        break;
      }
    }
  }
  return {};
}

const Bpe::Merge* Bpe::FindMerge(TokenId left, TokenId right) const {
  const uint64_t key = PairKey(left, right);
  return Probe(key, Mix(key) & mask_);
}

const Bpe::Merge* Bpe::Probe(uint64_t key, uint64_t slot) const {
  for (uint64_t h = slot;; h = (h + 1) & mask_) {
    const Merge& m = merges_[h];
    if (m.key == key) return &m;
    if (m.key == kEmptyKey) return nullptr;
  }
}

void Bpe::InitialSymbols(std::string_view bytes, std::vector<TokenId>& symbols) const {
  bool last_unk = false;
  for (unsigned char b : bytes) {
    TokenId id = byte_token_[b];
    if (id < 0 && settings_.byte_fallback) id = fallback_token_[b];
    if (id >= 0) {
      symbols.push_back(id);
      last_unk = false;
    } else if (settings_.unk) {
      if (!(settings_.fuse_unk && last_unk)) symbols.push_back(*settings_.unk);
      last_unk = true;
    }
    // With neither byte fallback nor an unknown token the byte is dropped, as the reference does.
  }
}

void Bpe::EncodeWord(std::string_view bytes, std::vector<TokenId>& out) const {
  if (bytes.empty()) return;
  if (settings_.ignore_merges) {
    if (auto id = raw_words_.Find(bytes)) {
      out.push_back(*id);
      return;
    }
  }
  thread_local std::vector<TokenId> symbols;
  symbols.clear();
  InitialSymbols(bytes, symbols);
  if (symbols.size() <= kShortWord) {
    MergeShort(symbols);
  } else {
    MergeLong(symbols);
  }
  out.insert(out.end(), symbols.begin(), symbols.end());
}

// Quadratic in the word length but with tiny constants: short words, the common case.
void Bpe::MergeShort(std::vector<TokenId>& symbols) const {
  size_t n = symbols.size();
  if (n < 2) return;
  uint32_t ranks[kShortWord];
  TokenId merged[kShortWord];
  uint64_t slots[kShortWord];
  auto fill = [&](size_t i) {
    const Merge* m = FindMerge(symbols[i], symbols[i + 1]);
    ranks[i] = m ? m->rank : kNoRank;
    merged[i] = m ? m->merged : 0;
  };
  // The first lookups are independent: start every table load before waiting on any.
  for (size_t i = 0; i + 1 < n; ++i) {
    slots[i] = Mix(PairKey(symbols[i], symbols[i + 1])) & mask_;
    __builtin_prefetch(&merges_[slots[i]]);
  }
  for (size_t i = 0; i + 1 < n; ++i) {
    const Merge* m = Probe(PairKey(symbols[i], symbols[i + 1]), slots[i]);
    ranks[i] = m ? m->rank : kNoRank;
    merged[i] = m ? m->merged : 0;
  }
  while (n > 1) {
    size_t best = 0;
    uint32_t best_rank = kNoRank;
    for (size_t i = 0; i + 1 < n; ++i) {
      if (ranks[i] < best_rank) {
        best_rank = ranks[i];
        best = i;
      }
    }
    if (best_rank == kNoRank) break;
    symbols[best] = merged[best];
    for (size_t i = best + 1; i + 1 < n; ++i) {
      symbols[i] = symbols[i + 1];
      ranks[i] = ranks[i + 1];
      merged[i] = merged[i + 1];
    }
    --n;
    if (best + 1 < n) fill(best);
    if (best > 0) fill(best - 1);
  }
  symbols.resize(n);
}

// The reference algorithm for longer words (HF tokenizers `Word::merge_all`): a min-heap of
// candidate merges ordered by (rank, position) over a doubly linked list of symbols; a candidate
// whose pair has changed since it was pushed is skipped when popped. O(n log n), with per-thread
// scratch buffers so a word costs no allocation, and the first n - 1 table lookups issued together.
void Bpe::MergeLong(std::vector<TokenId>& symbols) const {
  const size_t n = symbols.size();
  struct Candidate {
    uint64_t order;  // (rank << 32) | position of the left symbol
    TokenId left, right, merged;
  };
  struct Scratch {
    std::vector<int32_t> prev, next;  // next[i] == -2: symbol i was merged into its left neighbour
    std::vector<uint64_t> slots;
    std::vector<Candidate> heap;
  };
  thread_local Scratch s;
  s.prev.resize(n);
  s.next.resize(n);
  s.slots.resize(n);
  s.heap.clear();
  int32_t* prev = s.prev.data();
  int32_t* next = s.next.data();
  for (size_t i = 0; i < n; ++i) {
    prev[i] = static_cast<int32_t>(i) - 1;
    next[i] = i + 1 < n ? static_cast<int32_t>(i + 1) : -1;
  }
  const auto later = [](const Candidate& a, const Candidate& b) { return a.order > b.order; };
  auto push = [&](size_t i, const Merge* m) {
    const size_t j = static_cast<size_t>(next[i]);
    s.heap.push_back(Candidate{(uint64_t{m->rank} << 32) | i, symbols[i], symbols[j], m->merged});
    std::push_heap(s.heap.begin(), s.heap.end(), later);
  };
  for (size_t i = 0; i + 1 < n; ++i) {
    s.slots[i] = Mix(PairKey(symbols[i], symbols[i + 1])) & mask_;
    __builtin_prefetch(&merges_[s.slots[i]]);
  }
  for (size_t i = 0; i + 1 < n; ++i) {
    const Merge* m = Probe(PairKey(symbols[i], symbols[i + 1]), s.slots[i]);
    if (m)
      s.heap.push_back(
          Candidate{(uint64_t{m->rank} << 32) | i, symbols[i], symbols[i + 1], m->merged});
  }
  std::make_heap(s.heap.begin(), s.heap.end(), later);
  while (!s.heap.empty()) {
    std::pop_heap(s.heap.begin(), s.heap.end(), later);
    const Candidate c = s.heap.back();
    s.heap.pop_back();
    const size_t i = static_cast<size_t>(c.order & 0xffffffffu);
    if (next[i] < 0) continue;  // merged away, or last
    const size_t j = static_cast<size_t>(next[i]);
    if (symbols[i] != c.left || symbols[j] != c.right) continue;  // stale
    symbols[i] = c.merged;
    next[i] = next[j];
    next[j] = -2;
    if (next[i] >= 0) prev[static_cast<size_t>(next[i])] = static_cast<int32_t>(i);
    // The two new pairs: (left neighbour, merged) and (merged, right neighbour).
    const Merge* left =
        prev[i] >= 0 ? FindMerge(symbols[static_cast<size_t>(prev[i])], symbols[i]) : nullptr;
    const Merge* right =
        next[i] >= 0 ? FindMerge(symbols[i], symbols[static_cast<size_t>(next[i])]) : nullptr;
    if (left) push(static_cast<size_t>(prev[i]), left);
    if (right) push(i, right);
  }
  size_t w = 0;
  for (size_t i = 0; i < n; ++i)
    if (next[i] != -2) symbols[w++] = symbols[i];
  symbols.resize(w);
}

}  // namespace affordance::text
