// Source Map v3 "mappings" decoding, to report TSX positions for errors in transformed code.
// Internal to src/view.
#pragma once

#include <string_view>
#include <vector>

namespace affordance::view {

// A 1-based position in a source file.
struct SourcePosition {
  int line = 0;
  int column = 0;
};

// Maps generated JavaScript positions back to the TSX source, from sucrase's token-level source
// map ("mappings" in the Source Map v3 VLQ encoding). Lines are kept 1:1 by sucrase; columns are
// mapped to the last mapped token at or before the generated column.
class SourceMap {
 public:
  static SourceMap Decode(std::string_view mappings);
  SourcePosition Original(SourcePosition generated) const;

 private:
  struct Segment {
    int generated_column;
    int source_line;
    int source_column;
  };
  std::vector<std::vector<Segment>> lines_;
};

}  // namespace affordance::view
