#include "render/run_cache.h"

#include <xxhash.h>

namespace affordance::render {

size_t RunCache::Hash::operator()(std::string_view s) const {
  return static_cast<size_t>(XXH3_64bits(s.data(), s.size()));
}

RunCache::RunCache(const text::Tokenizer& tokenizer, uint64_t max_bytes)
    : tokenizer_(&tokenizer), max_bytes_(max_bytes) {}

void RunCache::Clear() {
  runs_.clear();
  stats_.bytes = 0;
  stats_.entries = 0;
}

Status RunCache::Append(const text::Tokenizer& tokenizer, std::string_view text,
                        std::vector<text::TokenId>& out) {
  if (&tokenizer != tokenizer_) {
    return MakeError("render.cache_encoder",
                     "a run cache was used with an encoder other than the one it is bound to");
  }
  if (auto it = runs_.find(text); it != runs_.end()) {
    ++stats_.hits;
    out.insert(out.end(), it->second.begin(), it->second.end());
    return {};
  }
  ++stats_.misses;
  const size_t start = out.size();
  if (auto st = tokenizer.EncodeInto(text, out); !st.ok()) return st;
  const uint64_t cost = text.size() + 4 * (out.size() - start);
  if (cost > max_bytes_) return {};  // too large to keep; still encoded
  if (stats_.bytes + cost > max_bytes_) {
    Clear();
    ++stats_.evictions;
  }
  runs_.emplace(std::string(text), std::vector<text::TokenId>(out.begin() + start, out.end()));
  stats_.bytes += cost;
  ++stats_.entries;
  return {};
}

Status AppendRun(const text::Tokenizer& tokenizer, RunCache* cache, std::string_view text,
                 std::vector<text::TokenId>& out) {
  if (cache != nullptr) return cache->Append(tokenizer, text, out);
  return tokenizer.EncodeInto(text, out);
}

}  // namespace affordance::render
