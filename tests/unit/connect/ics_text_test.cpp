// The calendar text map of the write path (src/connect/ics_text.cpp): content lines over the
// original bytes, the first VCALENDAR's VEVENT spans, TEXT escaping and 75-octet folding.
#include "connect/internal/ics_text.h"

#include <gtest/gtest.h>

#include <string>

namespace affordance::connect::ics {
namespace {

// True when every byte sequence of `s` is well-formed UTF-8 (no sequence cut off at either end).
bool WholeUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

std::vector<std::string> PhysicalLines(const std::string& folded, const std::string& eol) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < folded.size()) {
    size_t end = folded.find(eol, at);
    EXPECT_NE(end, std::string::npos) << "every physical line ends with the line ending";
    if (end == std::string::npos) break;
    out.push_back(folded.substr(at, end - at));
    at = end + eol.size();
  }
  return out;
}

TEST(IcsText, ContentLinesUnfoldKeepEveryByteAndFindTheValueAfterQuotedColons) {
  const std::string text =
      "\xEF\xBB\xBF"
      "BEGIN:VCALENDAR\r\n"
      "ATTENDEE;CN=\"Doe: Jane\";ROLE=CHAIR:mailto:jane@example.com\r\n"
      "DESCRIPTION:one \r\n two\r\n\tthree\r\n"
      "summary:lower-case name\n"
      "\r\n"
      "END:VCALENDAR";
  auto lines = SplitContentLines(text);
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[0].begin, 0u) << "the BOM belongs to the first line's bytes";
  EXPECT_EQ(lines[0].unfolded, "BEGIN:VCALENDAR");
  EXPECT_EQ(lines[1].name, "ATTENDEE");
  EXPECT_EQ(lines[1].value(), "mailto:jane@example.com");
  EXPECT_EQ(lines[2].unfolded, "DESCRIPTION:one twothree");
  EXPECT_EQ(text.substr(lines[2].begin, lines[2].end - lines[2].begin),
            "DESCRIPTION:one \r\n two\r\n\tthree\r\n");
  EXPECT_EQ(lines[3].name, "SUMMARY");
  EXPECT_EQ(lines[3].value(), "lower-case name");
  EXPECT_EQ(lines[4].name, "");
  EXPECT_EQ(lines[5].end, text.size());
  for (size_t i = 1; i < lines.size(); ++i) EXPECT_EQ(lines[i].begin, lines[i - 1].end);
}

TEST(IcsText, MapFindsTheCalendarsEventsTheirUidsAndItsEnd) {
  const std::string text =
      "BEGIN:VCALENDAR\n"
      "BEGIN:VTIMEZONE\nTZID:X\nEND:VTIMEZONE\n"
      "BEGIN:VEVENT\nUID:a\\,1\nBEGIN:VALARM\nUID:alarm\nEND:VALARM\nEND:VEVENT\n"
      "begin:vevent\nSUMMARY:no uid\nend:vevent\n"
      "END:VCALENDAR\n";
  auto layout = MapCalendar(text);
  ASSERT_TRUE(layout.ok()) << layout.error().ToString();
  EXPECT_EQ(layout->line_ending, "\n");
  ASSERT_EQ(layout->events.size(), 2u);
  const EventSpan& first = layout->events[0];
  EXPECT_EQ(text.substr(first.begin, first.end - first.begin),
            "BEGIN:VEVENT\nUID:a\\,1\nBEGIN:VALARM\nUID:alarm\nEND:VALARM\nEND:VEVENT\n");
  EXPECT_EQ(first.uid, "a,1") << "the VEVENT's UID, unescaped, not its VALARM's";
  EXPECT_EQ(layout->events[1].uid, "");
  EXPECT_EQ(text.substr(layout->calendar_end), "END:VCALENDAR\n");
  auto crlf = MapCalendar("BEGIN:VCALENDAR\r\nEND:VCALENDAR");
  ASSERT_TRUE(crlf.ok());
  EXPECT_EQ(crlf->line_ending, "\r\n");
}

TEST(IcsText, MapRefusesTextThatIsNotOneClosedCalendar) {
  auto none = MapCalendar("BEGIN:VEVENT\r\nEND:VEVENT\r\n");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, "connect.ics_invalid");
  EXPECT_EQ(none.error().message, "the file has no BEGIN:VCALENDAR");
  auto open = MapCalendar("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nEND:VEVENT\r\n");
  ASSERT_FALSE(open.ok());
  EXPECT_EQ(open.error().message, "the calendar has no END:VCALENDAR line");
  auto crossed = MapCalendar("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nEND:VALARM\r\nEND:VCALENDAR\r\n");
  ASSERT_FALSE(crossed.ok());
  EXPECT_EQ(crossed.error().message, "the calendar's VEVENT is closed by END:VALARM");
}

TEST(IcsText, TextEscapingRoundTripsAndDropsWhatTextCannotHold) {
  EXPECT_EQ(EscapeText("a\\b;c,d\ne\r\nf\rg\th\x01i"), "a\\\\b\\;c\\,d\\ne\\nf\\ng\thi");
  EXPECT_EQ(UnescapeText("a\\\\b\\;c\\,d\\ne\\Nf\\:g"), "a\\b;c,d\ne\nf\\:g");
  const std::string value = "Café; Müller, \\ 東京\nline two";
  EXPECT_EQ(UnescapeText(EscapeText(value)), value);
}

TEST(IcsText, FoldingKeepsLinesWithin75OctetsAndUtf8SequencesWhole) {
  EXPECT_EQ(FoldLine("SUMMARY:short", "\r\n"), "SUMMARY:short\r\n");
  EXPECT_EQ(FoldLine("", "\n"), "\n");
  std::string exact(75, 'x');
  EXPECT_EQ(FoldLine(exact, "\r\n"), exact + "\r\n");
  EXPECT_EQ(FoldLine(exact + "y", "\r\n"), exact + "\r\n y\r\n");
  // A three-octet character that would straddle octet 75 moves whole to the next line.
  std::string straddle = std::string(74, 'x') + "東";
  EXPECT_EQ(FoldLine(straddle, "\n"), std::string(74, 'x') + "\n 東\n");

  std::string mixed = "SUMMARY:";
  for (int i = 0; i < 40; ++i) mixed += "Café Müller 東京ミーティング 🎉 ";
  std::string folded = FoldLine(mixed, "\r\n");
  std::string unfolded;
  auto lines = PhysicalLines(folded, "\r\n");
  ASSERT_GT(lines.size(), 10u);
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_LE(lines[i].size(), 75u) << i;
    EXPECT_TRUE(WholeUtf8(lines[i])) << "line " << i << " splits a UTF-8 sequence";
    if (i > 0) {
      ASSERT_EQ(lines[i][0], ' ');
      EXPECT_GT(lines[i].size(), 1u);
    }
    unfolded += i == 0 ? lines[i] : lines[i].substr(1);
  }
  EXPECT_EQ(unfolded, mixed);
}

}  // namespace
}  // namespace affordance::connect::ics
