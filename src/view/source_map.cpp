#include "view/source_map.h"

#include <cstdint>

namespace affordance::view {
namespace {

constexpr int64_t kLimit = 1 << 28;  // positions beyond this are rejected as damage

// One base64 VLQ value starting at *i; false on a malformed or oversized value.
bool DecodeVlq(std::string_view s, size_t* i, int64_t* value) {
  int64_t result = 0;
  int shift = 0;
  while (*i < s.size()) {
    char c = s[(*i)++];
    int digit;
    if (c >= 'A' && c <= 'Z')
      digit = c - 'A';
    else if (c >= 'a' && c <= 'z')
      digit = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      digit = c - '0' + 52;
    else if (c == '+')
      digit = 62;
    else if (c == '/')
      digit = 63;
    else
      return false;
    if (shift > 30) return false;
    result += static_cast<int64_t>(digit & 31) << shift;
    shift += 5;
    if (!(digit & 32)) {
      *value = (result & 1) ? -(result >> 1) : (result >> 1);
      return true;
    }
  }
  return false;
}

}  // namespace

SourceMap SourceMap::Decode(std::string_view mappings) {
  SourceMap map;
  map.lines_.emplace_back();
  int64_t source_line = 0, source_column = 0, generated_column = 0;
  size_t i = 0;
  while (i < mappings.size()) {
    char c = mappings[i];
    if (c == ';') {
      map.lines_.emplace_back();
      generated_column = 0;
      ++i;
      continue;
    }
    if (c == ',') {
      ++i;
      continue;
    }
    int64_t fields[5] = {0, 0, 0, 0, 0};
    int n = 0;
    while (i < mappings.size() && mappings[i] != ',' && mappings[i] != ';') {
      if (n == 5 || !DecodeVlq(mappings, &i, &fields[n++])) return SourceMap{};
    }
    generated_column += fields[0];
    if (n >= 4) {
      // fields[1] is the source index: sucrase maps one source per file.
      source_line += fields[2];
      source_column += fields[3];
    }
    if (generated_column < 0 || generated_column > kLimit || source_line < 0 ||
        source_line > kLimit || source_column < 0 || source_column > kLimit) {
      return SourceMap{};
    }
    if (n >= 4) {
      map.lines_.back().push_back({static_cast<int>(generated_column),
                                   static_cast<int>(source_line), static_cast<int>(source_column)});
    }
  }
  return map;
}

SourcePosition SourceMap::Original(SourcePosition generated) const {
  if (generated.line < 1 || generated.line > static_cast<int>(lines_.size())) return generated;
  const auto& segments = lines_[generated.line - 1];
  const Segment* best = nullptr;
  for (const Segment& s : segments) {
    if (s.generated_column <= generated.column - 1)
      best = &s;
    else
      break;
  }
  if (!best) return generated;
  return {best->source_line + 1,
          best->source_column + 1 + (generated.column - 1 - best->generated_column)};
}

}  // namespace affordance::view
