#include "text/vocabulary.h"

#include <xxhash.h>

#include <algorithm>
#include <cstring>

namespace affordance::text {

uint64_t Vocabulary::Hash(std::string_view s) { return XXH3_64bits(s.data(), s.size()); }

bool Vocabulary::Add(std::string_view token, TokenId id) {
  if (id < 0) return false;
  if (static_cast<size_t>(id) >= by_id_.size()) by_id_.resize(static_cast<size_t>(id) + 1);
  Entry& e = by_id_[static_cast<size_t>(id)];
  e.offset = static_cast<uint32_t>(arena_.size());
  e.length = static_cast<uint32_t>(token.size());
  e.present = true;
  arena_.insert(arena_.end(), token.begin(), token.end());
  ++count_;
  return true;
}

bool Vocabulary::Matches(const Slot& slot, uint32_t tag, std::string_view s) const {
  if (slot.tag != tag) return false;
  if (s.size() <= kInline)
    return slot.length == s.size() && std::memcmp(slot.inline_bytes, s.data(), s.size()) == 0;
  return View(by_id_[static_cast<size_t>(slot.id)]) == s;
}

void Vocabulary::Seal() {
  size_t cap = 16;
  while (cap < count_ + count_ / 2) cap <<= 1;  // load factor <= 2/3
  slots_.assign(cap, Slot{0, -1, 0, {}});
  mask_ = cap - 1;
  // Hash everything first, then insert with the slot of entry id + 8 prefetched: the table is
  // larger than the cache and loading time is mostly these misses.
  BigVector<uint64_t> hashes(by_id_.size());
  for (size_t id = 0; id < by_id_.size(); ++id)
    if (by_id_[id].present) hashes[id] = Hash(View(by_id_[id]));
  for (size_t id = 0; id < by_id_.size(); ++id) {
    if (id + 8 < by_id_.size()) __builtin_prefetch(&slots_[hashes[id + 8] & mask_], 1);
    if (!by_id_[id].present) continue;
    std::string_view s = View(by_id_[id]);
    uint64_t hash = hashes[id];
    uint32_t tag = static_cast<uint32_t>(hash >> 32);
    for (uint64_t h = hash & mask_;; h = (h + 1) & mask_) {
      Slot& slot = slots_[h];
      if (slot.id < 0) {
        slot = Slot{tag, static_cast<int32_t>(id), 0, {}};
        slot.length = static_cast<uint8_t>(std::min<size_t>(s.size(), 255));
        if (s.size() <= kInline) std::memcpy(slot.inline_bytes, s.data(), s.size());
        break;
      }
      if (Matches(slot, tag, s)) break;  // a duplicate string keeps its first id
    }
  }
}

std::optional<TokenId> Vocabulary::Find(std::string_view token) const {
  return FindHashed(token, Hash(token));
}

std::optional<TokenId> Vocabulary::FindHashed(std::string_view token, uint64_t hash) const {
  if (slots_.empty()) return std::nullopt;
  uint32_t tag = static_cast<uint32_t>(hash >> 32);
  for (uint64_t h = hash & mask_;; h = (h + 1) & mask_) {
    const Slot& slot = slots_[h];
    if (slot.id < 0) return std::nullopt;
    if (Matches(slot, tag, token)) return slot.id;
  }
}

std::optional<std::string_view> Vocabulary::StringOf(TokenId id) const {
  if (id < 0 || static_cast<size_t>(id) >= by_id_.size() ||
      !by_id_[static_cast<size_t>(id)].present)
    return std::nullopt;
  return View(by_id_[static_cast<size_t>(id)]);
}

}  // namespace affordance::text
