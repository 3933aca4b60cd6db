#include "text/vocabulary.h"

#include <xxhash.h>

namespace affordance::text {

uint64_t Vocabulary::Hash(std::string_view s) { return XXH3_64bits(s.data(), s.size()); }

bool Vocabulary::Add(std::string_view token, TokenId id) {
  if (id < 0) return false;
  if (static_cast<size_t>(id) >= by_id_.size()) by_id_.resize(static_cast<size_t>(id) + 1);
  Entry& e = by_id_[static_cast<size_t>(id)];
  e.offset = static_cast<uint32_t>(arena_.size());
  e.length = static_cast<uint32_t>(token.size());
  e.present = true;
  arena_.append(token);
  ++count_;
  return true;
}

void Vocabulary::Seal() {
  size_t cap = 16;
  while (cap < count_ * 2) cap <<= 1;
  slots_.assign(cap, -1);
  mask_ = cap - 1;
  for (size_t id = 0; id < by_id_.size(); ++id) {
    if (!by_id_[id].present) continue;
    std::string_view s = View(by_id_[id]);
    for (uint64_t h = Hash(s) & mask_;; h = (h + 1) & mask_) {
      int32_t slot = slots_[h];
      if (slot < 0) {
        slots_[h] = static_cast<int32_t>(id);
        break;
      }
      if (View(by_id_[static_cast<size_t>(slot)]) == s) break;  // duplicate string: first id wins
    }
  }
}

std::optional<TokenId> Vocabulary::Find(std::string_view token) const {
  if (slots_.empty()) return std::nullopt;
  for (uint64_t h = Hash(token) & mask_;; h = (h + 1) & mask_) {
    int32_t slot = slots_[h];
    if (slot < 0) return std::nullopt;
    if (View(by_id_[static_cast<size_t>(slot)]) == token) return slot;
  }
}

std::optional<std::string_view> Vocabulary::StringOf(TokenId id) const {
  if (id < 0 || static_cast<size_t>(id) >= by_id_.size() || !by_id_[static_cast<size_t>(id)].present)
    return std::nullopt;
  return View(by_id_[static_cast<size_t>(id)]);
}

}  // namespace affordance::text
