// Text pieces of the terminal renderer (text_render.cpp): printable text, word wrapping by display
// width, cell formats shared with the web UI's table, and the text of an Html canvas.
#pragma once

#include "surface/value.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::surface::internal {

// text::Printable(s): text from a program or a row can neither move the cursor nor style the
// terminal (newlines and tabs are spaces too).
std::string Printable(std::string_view s);

// `text` (printable, one paragraph) broken into lines of at most `width` display columns at
// spaces; a word wider than `width` is broken inside. Runs of spaces collapse. "" gives no lines.
std::vector<std::string> Wrap(std::string_view text, size_t width);

// Wrap, with every line after the first indented by `indent` spaces (and wrapped to fit).
std::vector<std::string> WrapHanging(std::string_view text, size_t width, size_t indent);

// A table cell as the web UI's table shows it (web/src/library.tsx `cell`): null is empty, "date"
// strings as "Mon, Nov 30, 09:00" in local time ("Mon, Nov 30" for a date without a time),
// "currency" numbers as US dollars ("$1,234.50"), objects and arrays as JSON, the rest as
// JavaScript's String(). Printable.
std::string CellText(const Json& value, std::string_view format);

// The lines of an Html canvas's markup: {{path}} and {{#each path}}…{{/each}} placeholders filled
// from `data` (inside an each, paths read the item first; {{this}} is the item), tags dropped,
// block elements (p, div, li, tr, h1-h6, br, ...) on lines of their own, list items marked "• ",
// table cells separated by " │ ", character references decoded, whitespace collapsed, empty
// lines dropped. An element with data-mount="name" becomes a line of its own holding
// kMountMarker followed by the name. Lines are printable but not wrapped.
inline constexpr char kMountMarker = '\x01';
std::vector<std::string> HtmlLines(std::string_view markup, const Json& data);

}  // namespace affordance::surface::internal
