#include "text/added_tokens.h"

#include "text/utf8.h"

#include <utf8proc.h>

#include <algorithm>
#include <cstring>
#include <map>

namespace affordance::text {
namespace {

// Rust's char::is_alphanumeric() or '_' (regex \w over Unicode): letters, numbers, marks,
// connector punctuation.
bool IsWordChar(char32_t c) {
  switch (utf8proc_category(static_cast<utf8proc_int32_t>(c))) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
    case UTF8PROC_CATEGORY_PC:
      return true;
    default:
      return false;
  }
}

bool IsSpace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

char32_t LastChar(std::string_view s) {
  size_t i = s.size();
  while (i > 0 && (static_cast<unsigned char>(s[i - 1]) & 0xC0) == 0x80) --i;
  if (i > 0) --i;
  size_t j = i;
  return utf8::Next(s, j);
}

}  // namespace

void AddedTokenMatcher::Add(std::string pattern, const AddedToken& token) {
  if (pattern.empty()) return;
  first_byte_[static_cast<unsigned char>(pattern[0])] = true;
  patterns_.push_back(
      Pattern{std::move(pattern), token.id, token.single_word, token.lstrip, token.rstrip});
}

void AddedTokenMatcher::Seal() {
  // Build the trie breadth-first so every node's edges are contiguous and sorted.
  struct Build {
    std::map<unsigned char, uint32_t> children;
    int32_t terminal = -1;
  };
  std::vector<Build> nodes(1);
  for (size_t i = 0; i < patterns_.size(); ++i) {
    uint32_t n = 0;
    for (unsigned char b : patterns_[i].text) {
      auto it = nodes[n].children.find(b);
      if (it == nodes[n].children.end()) {
        nodes.emplace_back();
        it = nodes[n].children.emplace(b, static_cast<uint32_t>(nodes.size() - 1)).first;
      }
      n = it->second;
    }
    if (nodes[n].terminal < 0) nodes[n].terminal = static_cast<int32_t>(i);  // first one wins
  }
  first_edge_.assign(nodes.size() + 1, 0);
  edges_.clear();
  terminal_.assign(nodes.size(), -1);
  for (size_t n = 0; n < nodes.size(); ++n) {
    first_edge_[n] = static_cast<uint32_t>(edges_.size());
    for (auto [b, child] : nodes[n].children) edges_.push_back(Edge{b, child});
    terminal_[n] = nodes[n].terminal;
  }
  first_edge_[nodes.size()] = static_cast<uint32_t>(edges_.size());
}

const AddedTokenMatcher::Pattern* AddedTokenMatcher::LongestAt(std::string_view text,
                                                               size_t pos) const {
  if (!first_byte_[static_cast<unsigned char>(text[pos])]) return nullptr;
  const Pattern* best = nullptr;
  uint32_t n = 0;
  for (size_t i = pos; i < text.size(); ++i) {
    unsigned char b = static_cast<unsigned char>(text[i]);
    const Edge* lo = edges_.data() + first_edge_[n];
    const Edge* hi = edges_.data() + first_edge_[n + 1];
    const Edge* e =
        std::lower_bound(lo, hi, b, [](const Edge& x, unsigned char v) { return x.byte < v; });
    if (e == hi || e->byte != b) break;
    n = e->node;
    if (terminal_[n] >= 0) best = &patterns_[static_cast<size_t>(terminal_[n])];
  }
  return best;
}

void AddedTokenMatcher::Split(std::string_view text, std::vector<AddedSplit>& out) const {
  size_t start_offset = 0;
  size_t pos = 0;
  if (patterns_.empty()) {
    if (!text.empty()) out.push_back({0, text.size(), std::nullopt});
    return;
  }
  while (pos < text.size()) {
    const Pattern* p = LongestAt(text, pos);
    if (!p) {
      ++pos;
      continue;
    }
    size_t start = pos, stop = pos + p->text.size();
    pos = stop;  // the scan resumes after this match whether or not it is kept
    if (p->single_word) {
      bool start_space = start == 0 || !IsWordChar(LastChar(text.substr(0, start)));
      bool stop_space = true;
      if (stop < text.size()) {
        size_t j = stop;
        stop_space = !IsWordChar(utf8::Next(text, j));
      }
      if (!start_space || !stop_space) continue;
    }
    if (p->lstrip) {
      size_t s = start;
      while (s > 0) {
        size_t k = s - 1;
        while (k > 0 && (static_cast<unsigned char>(text[k]) & 0xC0) == 0x80) --k;
        size_t j = k;
        if (!IsSpace(utf8::Next(text, j))) break;
        s = k;
      }
      start = std::max(s, start_offset);
    }
    if (p->rstrip) {
      while (stop < text.size()) {
        size_t j = stop;
        if (!IsSpace(utf8::Next(text, j))) break;
        stop = j;
      }
      pos = std::max(pos, stop);
    }
    if (start_offset < start) out.push_back({start_offset, start, std::nullopt});
    out.push_back({start, stop, p->id});
    start_offset = stop;
  }
  if (start_offset < text.size()) out.push_back({start_offset, text.size(), std::nullopt});
}

}  // namespace affordance::text
