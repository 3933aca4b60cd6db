// Arbitrary bytes as a calendar file for the write path's text map (src/connect/ics_text.cpp):
// content lines cover every byte in order, a mapped calendar's VEVENT spans are ordered, inside
// the text and before its END:VCALENDAR, and folding any line keeps every physical line within 75
// octets and unfolds back to the line. Never a crash.
#include "connect/internal/ics_text.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace ics = affordance::connect::ics;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  size_t at = 0;
  for (const auto& line : ics::SplitContentLines(text)) {
    if (line.begin != at || line.end <= line.begin || line.value_at > line.unfolded.size()) {
      std::abort();
    }
    at = line.end;
  }
  if (at != text.size()) std::abort();

  auto layout = ics::MapCalendar(text);
  if (layout.ok()) {
    size_t end = 0;
    for (const auto& e : layout->events) {
      if (e.begin < end || e.end <= e.begin || e.end > layout->calendar_end) std::abort();
      end = e.end;
    }
    if (layout->calendar_end >= text.size()) std::abort();
  } else if (layout.error().code != "connect.ics_invalid" || layout.error().message.empty()) {
    std::abort();
  }

  std::string line = text.substr(0, text.find_first_of("\r\n"));
  std::string folded = ics::FoldLine(line, "\r\n"), unfolded;
  for (size_t p = 0, first = 1; p < folded.size(); first = 0) {
    size_t eol = folded.find("\r\n", p);
    if (eol == std::string::npos || eol - p > 75) std::abort();
    if (!first && folded[p] != ' ') std::abort();
    unfolded += folded.substr(p + (first ? 0 : 1), eol - p - (first ? 0 : 1));
    p = eol + 2;
  }
  if (unfolded != line) std::abort();
  return 0;
}
