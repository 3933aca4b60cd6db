// TSX -> JavaScript for views: the embedded sucrase bytecode (transforms typescript + jsx,
// classic runtime h/Fragment, ES module syntax kept, line numbers kept) plus an on-disk cache.
//
// Internal to src/view.
#pragma once

#include "base/result.h"
#include "view/source_map.h"

#include <string>
#include <string_view>

namespace affordance::view {

struct TransformedModule {
  std::string code;      // JavaScript (ES module syntax)
  std::string mappings;  // the source map's "mappings" (empty for .js input)
  bool from_cache = false;
};

// Transforms a .tsx/.ts source. `file_path` names the file in errors. With a non-empty
// `cache_dir`, a result is looked up / stored under a key = hash(source, transformer version,
// options); the cache is written atomically and a damaged entry is treated as a miss.
// Errors: "view.syntax" with detail "file:line:column" in the TSX source.
Result<TransformedModule> TransformTsx(std::string_view source, const std::string& file_path,
                                       const std::string& cache_dir);

// The cache folder for ViewOptions::cache_dir "" (XDG default), or the folder given; "" when
// caching is disabled ("-").
std::string ResolveCacheDir(const std::string& configured);

// The transformer identity that is part of every cache key (sucrase version + options).
std::string_view TransformerIdentity();

}  // namespace affordance::view
