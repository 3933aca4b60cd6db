// A surface as text: what a terminal shows for a program the model composed, component by
// component, with the rows its Query() bindings read (ReadBindings, query.h) filled in.
//
//   ParseResult program = Parse(body, Library::Default());
//   BoundRows rows = ReadBindings(store, road, &authority, artifact, program, by);
//   std::string text = RenderText(program, rows, {.width = 100, .color = false});
//
// How each component of the default library looks (docs/SURFACE.md "In the terminal"):
//   Stack       children one below the other (a blank line between, none for gap "s"); a row
//               stack puts them side by side when they fit the width, else one below the other
//   Card        a box drawn with ╭─╮ │ ╰─╯, its title in the top edge
//   CardHeader  the title in bold, the subtitle dimmed on the next line
//   TextContent a paragraph wrapped at the width (large: bold, small: dimmed)
//   Callout     ℹ ✓ ⚠ ✗ by variant, the title, then the description indented
//   Button      [Label]
//   Table, Col  aligned columns: widths from the content (display width: East Asian wide
//               characters count 2, combining marks 0), numbers right-aligned, a rule under the
//               header, at most `max_rows` rows and then "… N more rows", cells cut with "…" when
//               the table is wider than the width; a binding whose rows could not be read shows
//               the header and a line saying why (wrapped, not cut,
//               when the width is narrow); a Col outside a table is "Header: a, b, c"
//   Input       [ value or placeholder ]           Select  [ choice ▾ ] and the other options
//   FormControl the label, then its field          Form    its fields, then the submit button
//   Html        the markup's text ({{field}} and {{#each list}}…{{/each}} filled from its data,
//               block elements on lines of their own, tags dropped), then its mounts
//   HtmlMount   its child;                         SelectItem  its label
// Any other component (a library of its own) prints its name, then its text props as
// "key: value" and its element children, indented.
//
// Every line is at most `width` display columns (the width is never taken below 8) and contains
// no control characters from the program or the rows (they become spaces), so neither can move
// the cursor or restyle the terminal; `color` false: no escape sequence at all. Never fails.
#pragma once

#include "surface/program.h"
#include "surface/query.h"

#include <cstddef>
#include <string>

namespace affordance::surface {

struct TextOptions {
  size_t width = 80;     // terminal columns
  bool color = false;    // ANSI styling (bold, dim, colours)
  size_t max_rows = 20;  // table rows shown before "… N more rows"
};

// The program's root as text, one "\n"-terminated line per line; "" when nothing renders.
// `rows` holds the Query() statements' rows (a statement absent from it counts as not read).
std::string RenderText(const ParseResult& program, const BoundRows& rows,
                       const TextOptions& options);

}  // namespace affordance::surface
