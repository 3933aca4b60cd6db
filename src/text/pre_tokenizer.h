// The pre-tokenizer stage: splits normalized text into pre-tokens (words) that BPE encodes one at
// a time. Supports the tokenizer.json components Split (regex or string pattern, every behavior,
// invert), ByteLevel (add_prefix_space, use_regex; trim_offsets only affects offsets) and Sequence.
// ByteLevel must come last: it spells bytes in the byte-level alphabet, which BPE does implicitly.
#pragma once

#include "base/result.h"
#include "text/split_pattern.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::text {

enum class SplitBehavior { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };

struct SplitStep {
  std::unique_ptr<SplitPattern> pattern;
  SplitBehavior behavior = SplitBehavior::kIsolated;
  bool invert = false;
};

class PreTokenizer {
 public:
  void AddSplit(SplitStep step) {
    splits_.push_back(std::move(step));
    UpdateFastPath();
  }
  // The final ByteLevel step; its regex, when used, is the GPT-2 one.
  Status SetByteLevel(bool add_prefix_space, bool use_regex);

  // True when every word Run emits is a view into the text it was given (no prefix space is
  // added), so the words stay valid after Run returns.
  bool words_point_into_text() const { return !prefix_space_; }

  // Calls emit(word) for each non-empty pre-token of valid UTF-8 `text`, in order. The views stay
  // valid until Run returns.
  template <class Emit>
  void Run(std::string_view text, Emit&& emit) const {
    if (text.empty()) return;
    if (fast_) {
      const SplitPattern& p = *splits_.front().pattern;
      for (size_t pos = 0; pos < text.size();) {
        size_t end = p.MatchEnd(text, pos);
        emit(text.substr(pos, end - pos));
        pos = end;
      }
      return;
    }
    std::vector<std::string_view> words;
    std::vector<std::string> arena;
    RunGeneric(text, words, arena);
    for (std::string_view w : words) emit(w);
  }

 private:
  void RunGeneric(std::string_view text, std::vector<std::string_view>& words,
                  std::vector<std::string>& arena) const;
  void UpdateFastPath();

  std::vector<SplitStep> splits_;
  bool prefix_space_ = false;
  std::unique_ptr<SplitPattern> byte_level_regex_;
  bool fast_ = false;  // one tiling Isolated split and nothing else
};

}  // namespace affordance::text
