// An encoder-bound cache of encoded text runs: text -> token IDs, nothing else.
//
// Layout encodes every text run on its own, so a run's IDs depend only on its text and the
// encoder. A RunCache is bound to one Tokenizer at construction and refuses (returns an error) to
// be used with another, so IDs of one vocabulary never leak into another. It never holds schemas,
// spans, closures or hook state: those are rebuilt on every render.
//
// Two kinds exist at run time (same class): the caller's outer cache (e.g. `affordance render
// --cache` across a batch) and each View's projection cache (runs inside asChatTools), whose
// counters are reported separately by projection_cache_stats().
//
// Not thread-safe: one cache per rendering thread.
#pragma once

#include "base/result.h"
#include "text/tokenizer.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace affordance::render {

struct RunCacheStats {
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t bytes = 0;  // text bytes + 4 bytes per cached ID, of what is held now
  uint64_t entries = 0;
  uint64_t evictions = 0;  // times the cache was emptied because it outgrew max_bytes
};

class RunCache {
 public:
  // `max_bytes`: when an insertion would exceed it the cache is emptied first (cheap, predictable;
  // a render's working set is far smaller).
  explicit RunCache(const text::Tokenizer& tokenizer, uint64_t max_bytes = 64ull << 20);

  // Appends the IDs of `text` (encoded as untrusted text: special-token spellings stay plain text)
  // to `out`, from the cache or by encoding and remembering it. Errors: "render.cache_encoder" when
  // `tokenizer` is not the one this cache is bound to; tokenizer errors (invalid UTF-8) pass
  // through.
  Status Append(const text::Tokenizer& tokenizer, std::string_view text,
                std::vector<text::TokenId>& out);

  const text::Tokenizer& tokenizer() const { return *tokenizer_; }
  const RunCacheStats& stats() const { return stats_; }
  void Clear();

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const;
  };
  const text::Tokenizer* tokenizer_;
  uint64_t max_bytes_;
  RunCacheStats stats_;
  std::unordered_map<std::string, std::vector<text::TokenId>, Hash, std::equal_to<>> runs_;
};

// Encodes one run without a cache (the cold path), or through `cache` when it is not null.
Status AppendRun(const text::Tokenizer& tokenizer, RunCache* cache, std::string_view text,
                 std::vector<text::TokenId>& out);

}  // namespace affordance::render
