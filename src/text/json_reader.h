// A strict, fast JSON reader for tokenizer.json. Documents are ~10 MB, almost all of it the
// vocabulary and the merges, so those two are streamed into flat lists while everything else
// becomes nlohmann::json values. Errors name the byte offset ("tokenizer.malformed_json").
#pragma once

#include "base/result.h"
#include "text/huge_pages.h"

#include <nlohmann/json.hpp>

#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace affordance::text {

// Views point into the parsed text (which must outlive the document) or, for strings with escapes,
// into `decoded`. Nothing is copied for the common case, which keeps loading fast.
struct TokenizerDocument {
  nlohmann::json root;  // the document without model.vocab and model.merges
  bool has_vocab = false, has_merges = false;
  BigVector<std::pair<std::string_view, int64_t>> vocab;  // in document order
  // Each merge as (left, right); `merge_error` >= 0 names the first merge that was neither
  // "a b" (one space) nor ["a", "b"].
  BigVector<std::pair<std::string_view, std::string_view>> merges;
  std::deque<std::string> decoded;
  int64_t merge_error = -1;
  bool vocab_ids_are_integers = true;
  std::string first_bad_vocab_key;
};

// Parses `text`. model.vocab must be an object of integers and model.merges an array to be
// streamed; other shapes are kept in `root` for the loader to report.
Result<TokenizerDocument> ReadTokenizerDocument(std::string_view text);

}  // namespace affordance::text
