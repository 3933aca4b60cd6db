// FrontMatter: the YAML front matter a SKILL.md opens with, read by a small strict parser of the
// subset below (there is no YAML library in the build, and a skill needs only flat fields).
//
// The subset. Anything outside it is refused, never guessed at:
//   - The file begins with a line `---` (no byte-order mark) and the front matter ends at the next
//     line `---`; spaces after either marker are allowed. Lines end with LF or CRLF.
//   - Blank lines and comment lines (first non-blank character `#`) are skipped.
//   - A field is `key: value` at column 0. A key is 1-64 of A-Z a-z 0-9 _ - and appears once.
//   - A value on the same line is one of:
//       plain     the rest of the line, trimmed, up to a ` #` comment. It may not begin with one of
//                 [ ] { } & * ! | > % @ ` , or with "- ", "? ", ": ", and may not contain ": "
//                 (YAML reads that as a nested mapping, so it is refused rather than misread)
//       'single'  ends on the same line; '' is a quote
//       "double"  ends on the same line; escapes \" \\ \/ \n \t \r \uXXXX (not a surrogate)
//       [a, b]    a flow sequence on one line of plain (no , [ ] { } # in them) or quoted items
//   - A key with nothing after the colon takes the indented lines below it (spaces only, the same
//     indentation on each): either all `- item` (a sequence of scalars) or all `key: scalar` (a
//     mapping of scalars, e.g. `metadata:`). With no indented line the value is null.
//   - Refused: block scalars (| >), anchors and aliases (& *), tags (!), flow mappings ({ }),
//     nesting deeper than one level, tabs in indentation, a second document, invalid escapes, a
//     quote left open, a missing closing `---`.
// Errors are "skills.bad_front_matter" with a message that names the line ("line 3: ...").
//
// The parser is linear in the input and allocates only the values it returns (fuzzed:
// tests/fuzz/skills/front_matter_fuzzer.cpp).
#pragma once

#include "base/result.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace affordance::skills {

struct FrontMatterValue {
  enum class Kind { kNull, kScalar, kSequence, kMapping };
  Kind kind = Kind::kNull;
  std::string scalar;                                        // kScalar
  std::vector<std::string> items;                            // kSequence
  std::vector<std::pair<std::string, std::string>> entries;  // kMapping, in file order
};

struct FrontMatter {
  std::vector<std::pair<std::string, FrontMatterValue>> fields;  // in file order, keys unique
  size_t body_offset = 0;  // the first byte after the closing `---` line

  // The value of `key`, or null when the front matter has no such field.
  const FrontMatterValue* Find(std::string_view key) const;
};

// Parses the front matter at the start of `text` (see the file comment).
Result<FrontMatter> ParseFrontMatter(std::string_view text);

}  // namespace affordance::skills
