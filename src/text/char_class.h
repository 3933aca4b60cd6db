// The character classes the pre-tokenizer regexes use (\p{L}, \p{N}, \s), for the hand-written
// splitter. Categories come from utf8proc (Unicode 15); \s is the Unicode White_Space property as
// Oniguruma (the reference library's regex engine) defines it.
#pragma once

#include <cstdint>

namespace affordance::text {

enum class CharClass : uint8_t { kOther = 0, kLetter = 1, kNumber = 2, kSpace = 3 };

// Class of code point `cp` (any value up to U+10FFFF). Thread-safe; the first call builds a table.
CharClass ClassOf(char32_t cp);

}  // namespace affordance::text
