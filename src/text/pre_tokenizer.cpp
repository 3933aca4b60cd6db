#include "text/pre_tokenizer.h"

#include <algorithm>

namespace affordance::text {
namespace {

constexpr const char* kGpt2Regex =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

struct Piece {
  Span span;
  bool remove;
};

// The reference library's NormalizedString::split: matches (with the gaps between them) are
// grouped according to `behavior`; removed pieces are dropped and so are empty ones.
void SplitOne(std::string_view text, const SplitStep& step, std::vector<std::string_view>& out) {
  std::vector<Span> matches;
  step.pattern->FindMatches(text, matches);
  std::vector<std::pair<Span, bool>> marked;  // (span, is_match)
  size_t prev = 0;
  for (const Span& m : matches) {
    if (prev != m.first) marked.push_back({{prev, m.first}, false});
    marked.push_back({m, true});
    prev = m.second;
  }
  if (prev != text.size()) marked.push_back({{prev, text.size()}, false});
  if (step.invert)
    for (auto& m : marked) m.second = !m.second;

  std::vector<Piece> pieces;
  bool previous_match = false;
  switch (step.behavior) {
    case SplitBehavior::kIsolated:
      for (auto& [span, is_match] : marked) pieces.push_back({span, false});
      break;
    case SplitBehavior::kRemoved:
      for (auto& [span, is_match] : marked) pieces.push_back({span, is_match});
      break;
    case SplitBehavior::kContiguous:
      for (auto& [span, is_match] : marked) {
        if (is_match == previous_match && !pieces.empty()) {
          pieces.back().span.second = span.second;
        } else {
          pieces.push_back({span, false});
        }
        previous_match = is_match;
      }
      break;
    case SplitBehavior::kMergedWithPrevious:
      for (auto& [span, is_match] : marked) {
        if (is_match && !previous_match && !pieces.empty()) {
          pieces.back().span.second = span.second;
        } else {
          pieces.push_back({span, false});
        }
        previous_match = is_match;
      }
      break;
    case SplitBehavior::kMergedWithNext:
      for (auto it = marked.rbegin(); it != marked.rend(); ++it) {
        auto& [span, is_match] = *it;
        if (is_match && !previous_match && !pieces.empty()) {
          pieces.back().span.first = span.first;
        } else {
          pieces.push_back({span, false});
        }
        previous_match = is_match;
      }
      std::reverse(pieces.begin(), pieces.end());
      break;
  }
  for (const Piece& p : pieces) {
    if (p.remove || p.span.first == p.span.second) continue;
    out.push_back(text.substr(p.span.first, p.span.second - p.span.first));
  }
}

}  // namespace

Status PreTokenizer::SetByteLevel(bool add_prefix_space, bool use_regex) {
  prefix_space_ = add_prefix_space;
  byte_level_regex_.reset();
  if (use_regex) {
    auto regex = SplitPattern::Regex(kGpt2Regex);
    if (!regex.ok()) return regex.error();
    byte_level_regex_ = std::move(regex.value());
  }
  UpdateFastPath();
  return {};
}

void PreTokenizer::UpdateFastPath() {
  fast_ = splits_.size() == 1 && splits_[0].pattern->tiles() && !splits_[0].invert &&
          splits_[0].behavior == SplitBehavior::kIsolated && !prefix_space_ && !byte_level_regex_;
}

void PreTokenizer::RunGeneric(std::string_view text, std::vector<std::string_view>& words,
                              std::vector<std::string>& arena) const {
  std::vector<std::string_view> current{text}, next;
  for (const SplitStep& step : splits_) {
    next.clear();
    for (std::string_view piece : current) SplitOne(piece, step, next);
    current.swap(next);
  }
  if (prefix_space_) {
    // Stable storage for the prefixed copies: reserve so views into `arena` never move.
    // (Short strings keep their bytes inline, so a reallocation would invalidate the views.)
    arena.reserve(arena.size() + current.size());
    for (std::string_view& piece : current) {
      if (!piece.empty() && piece.front() == ' ') continue;
      std::string& prefixed = arena.emplace_back();
      prefixed.reserve(piece.size() + 1);
      prefixed.push_back(' ');
      prefixed.append(piece);
      piece = prefixed;
    }
  }
  if (byte_level_regex_) {
    next.clear();
    for (std::string_view piece : current) {
      std::vector<Span> matches;
      byte_level_regex_->FindMatches(piece, matches);
      size_t prev = 0;
      for (const Span& m : matches) {
        if (prev != m.first) next.push_back(piece.substr(prev, m.first - prev));
        if (m.first != m.second) next.push_back(piece.substr(m.first, m.second - m.first));
        prev = m.second;
      }
      if (prev != piece.size()) next.push_back(piece.substr(prev));
    }
    current.swap(next);
  }
  words = std::move(current);
}

}  // namespace affordance::text
