// Private to src/connect: a calendar file's text as content lines over its original bytes, so that
// a write (calendar_write.cpp) splices the bytes of the VEVENTs it touches and leaves every other
// byte as it was: line endings, folds, property and parameter order, unknown and X- properties, a
// BOM, the trailing newline or its absence.
//
// RFC 5545 section 3.1: a content line is one or more physical lines; a physical line that starts
// with a space or a tab continues the previous one. Lines end in CRLF; bare LF is accepted too.
// Names are case-insensitive. Reads keep libical's semantics (calendar.cpp); this is only the map
// a write needs of where things are.
#pragma once

#include "base/result.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::connect::ics {

// One content line: the bytes [begin, end) of its physical lines, their terminators included.
struct ContentLine {
  size_t begin = 0;
  size_t end = 0;
  std::string unfolded;  // terminators and each continuation's leading space or tab removed
  std::string name;      // the property name, ASCII upper-cased: "BEGIN", "SUMMARY", "X-FOO"
  size_t value_at = 0;   // offset in `unfolded` just past the first ':' outside a quoted
                         // parameter value; unfolded.size() when there is no ':'

  std::string_view value() const { return std::string_view(unfolded).substr(value_at); }
};

// Splits `text` into content lines, covering every byte: a leading UTF-8 BOM belongs to the first
// line's bytes but not to its unfolded text. Never fails; a blank line is a line with no name.
std::vector<ContentLine> SplitContentLines(std::string_view text);

// A VEVENT directly inside the calendar: the bytes from the start of its BEGIN:VEVENT line through
// the terminator of its END:VEVENT line, and its UID (unescaped; empty when it has none).
struct EventSpan {
  size_t begin = 0;
  size_t end = 0;
  std::string uid;
};

struct CalendarLayout {
  std::string line_ending;        // the first line's terminator; "\r\n" when the text has none
  std::vector<EventSpan> events;  // the VEVENTs of the first VCALENDAR, in file order
  size_t calendar_end = 0;        // where the END:VCALENDAR line closing that VCALENDAR starts
};

// Maps the first VCALENDAR of `text`. Errors: "connect.ics_invalid" when the text has no
// BEGIN:VCALENDAR, a component is closed by another's END, or the VCALENDAR is never closed.
Result<CalendarLayout> MapCalendar(std::string_view text);

// RFC 5545 TEXT escaping: `\` `;` `,` are backslash-escaped and a newline (CRLF, LF or CR) becomes
// `\n`; other control characters except tab, which a TEXT value cannot hold, are dropped.
std::string EscapeText(std::string_view value);
// The inverse for reading: `\\` `\;` `\,` `\n` `\N` are unescaped; any other backslash stays.
std::string UnescapeText(std::string_view value);

// `line` (one unfolded content line) as physical lines of at most 75 octets each, terminators
// excluded: continuations start with a space, and no fold splits a UTF-8 sequence. Each physical
// line ends with `eol`.
std::string FoldLine(std::string_view line, std::string_view eol);

}  // namespace affordance::connect::ics
