// The token strings of a model: id <-> string, stored in one arena with an open-addressing index
// (fast to build from tokenizer.json, compact in memory).
#pragma once

#include "text/huge_pages.h"
#include "text/tokenizer.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::text {

class Vocabulary {
 public:
  // Adds `token` with `id`. A token string already present keeps its first id; returns false then.
  bool Add(std::string_view token, TokenId id);
  // Room for ids below `id_limit` and `bytes` of token text, so loading never regrows the tables.
  void Reserve(size_t id_limit, size_t bytes) {
    by_id_.reserve(id_limit);
    arena_.reserve(bytes);
  }
  // Builds the lookup index; call once after the last Add().
  void Seal();

  std::optional<TokenId> Find(std::string_view token) const;
  // Find with a precomputed Hash(token), and a prefetch of its slot, for batched lookups.
  static uint64_t Hash(std::string_view s);
  std::optional<TokenId> FindHashed(std::string_view token, uint64_t hash) const;
  void Prefetch(uint64_t hash) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash & mask_]);
  }
  // The string of `id`, or nullopt when no token has that id.
  std::optional<std::string_view> StringOf(TokenId id) const;
  // One past the largest id.
  size_t IdLimit() const { return by_id_.size(); }
  size_t size() const { return count_; }
  // Total bytes of token text.
  size_t bytes() const { return arena_.size(); }

 private:
  struct Entry {
    uint32_t offset = 0;
    uint32_t length = 0;
    bool present = false;
  };
  std::string_view View(const Entry& e) const { return {arena_.data() + e.offset, e.length}; }

  BigVector<char> arena_;
  BigVector<Entry> by_id_;
  // 16 bytes; a token of up to kInline bytes is compared inside the slot (one cache miss).
  static constexpr size_t kInline = 7;
  struct Slot {
    uint32_t tag;  // high bits of the hash, checked before touching the string
    int32_t id;    // -1 = empty
    uint8_t length;
    char inline_bytes[kInline];
  };
  bool Matches(const Slot& slot, uint32_t tag, std::string_view s) const;
  BigVector<Slot> slots_;
  uint64_t mask_ = 0;
  size_t count_ = 0;
};

}  // namespace affordance::text
