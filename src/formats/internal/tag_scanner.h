// Splits a stream of text pieces into text runs and tags, holding back a tail that could still
// become a tag. Tags are literal spellings that begin with '<' ("<tool_call>", "<|eot_id|>").
#pragma once

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::formats::internal {

class TagScanner {
 public:
  explicit TagScanner(std::vector<std::string> tags) : tags_(std::move(tags)) {}

  // Scans `piece` after what is held back. Calls on_text(std::string_view) for text that can no
  // longer be part of a tag and on_tag(int index) for each whole tag, in order.
  template <class OnText, class OnTag>
  void Push(std::string_view piece, OnText&& on_text, OnTag&& on_tag) {
    std::string_view buf = piece;
    if (!held_.empty()) {
      scratch_.assign(held_);
      scratch_.append(piece);
      held_.clear();
      buf = scratch_;
    }
    size_t start = 0, i = 0;
    while (i < buf.size()) {
      const void* hit = std::memchr(buf.data() + i, '<', buf.size() - i);
      if (hit == nullptr) break;
      i = static_cast<const char*>(hit) - buf.data();
      std::string_view rest = buf.substr(i);
      int whole = -1;
      bool partial = false;
      for (size_t t = 0; t < tags_.size(); ++t) {
        const std::string& tag = tags_[t];
        if (rest.size() >= tag.size()) {
          if (rest.compare(0, tag.size(), tag) == 0) {
            whole = static_cast<int>(t);
            break;
          }
        } else if (tag.compare(0, rest.size(), rest) == 0) {
          partial = true;
        }
      }
      if (whole >= 0) {
        if (i > start) on_text(buf.substr(start, i - start));
        on_tag(whole);
        i += tags_[whole].size();
        start = i;
      } else if (partial) {
        if (i > start) on_text(buf.substr(start, i - start));
        held_.assign(rest);
        return;
      } else {
        ++i;
      }
    }
    if (start < buf.size()) on_text(buf.substr(start));
  }

  // Releases what is held back as text (the stream ended; it was not a tag after all).
  template <class OnText>
  void Flush(OnText&& on_text) {
    if (held_.empty()) return;
    std::string held = std::move(held_);
    held_.clear();
    on_text(std::string_view(held));
  }

  bool holding() const { return !held_.empty(); }

 private:
  std::vector<std::string> tags_;
  std::string held_;
  std::string scratch_;
};

}  // namespace affordance::formats::internal
