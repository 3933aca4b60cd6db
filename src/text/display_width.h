// How wide text is on a terminal: the columns a monospaced terminal gives each character, and
// cutting text to a number of columns. Widths come from utf8proc (Unicode 15): East Asian wide and
// fullwidth characters (CJK, most emoji) take 2 columns, combining marks and other zero-width
// characters 0, everything else 1. ANSI escape sequences (CSI `ESC [ ... final` and OSC
// `ESC ] ... BEL|ESC \`) take 0 columns, so styled text measures as it shows. A byte that is not
// part of well-formed UTF-8 counts as 1 column (a terminal shows it as one replacement glyph).
// A grapheme cluster made of several wide code points (an emoji ZWJ sequence) is over-counted;
// terminals disagree about those anyway.
//
// Thread-safe; no allocation except in the functions that return strings.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace affordance::text {

// Columns of code point `cp` (0, 1 or 2). Control characters are 0.
int CodePointWidth(char32_t cp);

// Columns of `s` (see the file comment).
size_t DisplayWidth(std::string_view s);

// `s` if it fits in `width` columns; else its longest prefix that fits in `width - 1` columns
// followed by "…" (one column), which may be a column narrower than `width` when a wide character
// would have straddled the cut. Escape sequences before the cut are kept, and when `s` is cut
// after one a reset (`ESC [0m`) is appended so styling does not bleed into what follows.
// `width` 0 gives "".
std::string FitWidth(std::string_view s, size_t width);

// `s` made safe to print on a terminal: C0 controls, DEL and U+2028/U+2029 become a space, so ESC
// can start no escape sequence and CR cannot overwrite a line; C1 controls (U+0080..U+009F, where
// U+009B is a CSI) and the characters that reorder or hide text (IsHiddenControl) are shown as
// "⟨U+202E⟩"; ill-formed UTF-8 becomes U+FFFD. With `keep_newlines`, '\n' stays (answer text).
// For text that comes from a model, a connector or a tool before it reaches the person's screen:
// the one helper every terminal door uses (the web UI's twin is web/src/visible.ts).
std::string Printable(std::string_view s, bool keep_newlines = false);

// Characters that change how text around them reads without showing themselves: bidi embeddings,
// overrides, isolates and marks (U+202A..U+202E, U+2066..U+2069, U+200E, U+200F, U+061C), zero
// width space, word joiner and invisible operators (U+200B, U+2060..U+2064), U+FEFF, U+180E and
// tag characters (U+E0000..U+E007F). ZWNJ and ZWJ (U+200C, U+200D) are not: they join letters and
// emoji sequences.
bool IsHiddenControl(char32_t cp);

// JSON text (as nlohmann's dump writes it, UTF-8 unescaped) with every raw C1 control, hidden
// control (IsHiddenControl) and U+2028/U+2029 written as a \uXXXX escape: the same JSON value,
// but a terminal that prints the line runs no CSI and reorders nothing. For every `--json` line.
std::string EscapeHiddenInJson(std::string_view json_text);

// The byte length of the longest prefix of `s` that fits in `width` columns; a character is never
// split, and escape sequences right after the prefix are not included.
size_t FittingPrefix(std::string_view s, size_t width);

// `s` followed by spaces up to `width` columns (`s` unchanged when it is already as wide).
std::string PadRight(std::string_view s, size_t width);
// Spaces up to `width` columns followed by `s`.
std::string PadLeft(std::string_view s, size_t width);

}  // namespace affordance::text
