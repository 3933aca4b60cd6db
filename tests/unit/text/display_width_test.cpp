// Display width (src/text/display_width.h): what a terminal gives each character, and cutting
// text to a number of columns without breaking characters or leaving styling open.
#include "text/display_width.h"

#include <gtest/gtest.h>

namespace affordance::text {
namespace {

TEST(DisplayWidth, AsciiIsOneColumnEach) {
  EXPECT_EQ(DisplayWidth(""), 0u);
  EXPECT_EQ(DisplayWidth("Team standup"), 12u);
}

TEST(DisplayWidth, EastAsianWideCharactersAreTwoColumns) {
  EXPECT_EQ(DisplayWidth("東京"), 4u);
  EXPECT_EQ(DisplayWidth("ｶﾀｶﾅ"), 4u);  // halfwidth katakana: one each
  EXPECT_EQ(DisplayWidth("ＡＢ"), 4u);  // fullwidth Latin: two each
  EXPECT_EQ(DisplayWidth("한국어 회의"), 11u);
}

TEST(DisplayWidth, CombiningMarksAndZeroWidthCharactersAreZero) {
  EXPECT_EQ(DisplayWidth("Cafe\u0301"), 4u);  // e + COMBINING ACUTE ACCENT
  EXPECT_EQ(DisplayWidth("Café"), 4u);        // precomposed
  EXPECT_EQ(DisplayWidth("a\u200Bb"), 2u);    // ZERO WIDTH SPACE
}

TEST(DisplayWidth, EscapeSequencesAndControlsTakeNoColumns) {
  EXPECT_EQ(DisplayWidth("\033[1;31mred\033[0m"), 3u);
  EXPECT_EQ(DisplayWidth("\033]8;;https://example.com\033\\link\033]8;;\a"), 4u);
  EXPECT_EQ(DisplayWidth("a\tb"), 2u);
}

TEST(DisplayWidth, IllFormedBytesAreOneColumnEach) {
  EXPECT_EQ(DisplayWidth("a\xFF\xFE"), 3u);
  EXPECT_EQ(DisplayWidth("\xE6\x9D"), 2u);  // a truncated three-byte sequence
}

TEST(FitWidth, TextThatFitsIsUnchanged) {
  EXPECT_EQ(FitWidth("Room 4", 6), "Room 4");
  EXPECT_EQ(FitWidth("東京", 4), "東京");
}

TEST(FitWidth, LongerTextEndsWithAnEllipsisWithinTheWidth) {
  EXPECT_EQ(FitWidth("Design review", 8), "Design …");
  EXPECT_EQ(FitWidth("Design review", 1), "…");
  EXPECT_EQ(FitWidth("Design review", 0), "");
  // A wide character that would straddle the cut is left out: the result is one column short.
  EXPECT_EQ(FitWidth("東京タワー", 6), "東京…");
  EXPECT_EQ(DisplayWidth(FitWidth("東京タワー", 6)), 5u);
  EXPECT_EQ(FitWidth("東京タワー", 5), "東京…");
  // Combining marks stay with their base character.
  EXPECT_EQ(FitWidth("Cafe\u0301 Müller", 5), "Cafe\u0301…");
}

TEST(FitWidth, StylingIsKeptAndClosedWhenCut) {
  EXPECT_EQ(FitWidth("\033[1mDesign review\033[0m", 7), "\033[1mDesign…\033[0m");
  EXPECT_EQ(DisplayWidth(FitWidth("\033[1mDesign review\033[0m", 7)), 7u);
}

TEST(FittingPrefix, NeverSplitsACharacter) {
  EXPECT_EQ(FittingPrefix("Room 4", 4), 4u);
  EXPECT_EQ(FittingPrefix("東京タワー", 5), 6u);  // 東京: two characters, four columns
  EXPECT_EQ(FittingPrefix("\033[1mab\033[0m", 1), 5u);
  EXPECT_EQ(FittingPrefix("ab", 0), 0u);
}

TEST(Pad, PadsToDisplayColumns) {
  EXPECT_EQ(PadRight("東京", 6), "東京  ");
  EXPECT_EQ(PadLeft("42", 5), "   42");
  EXPECT_EQ(PadRight("too wide", 3), "too wide");
}

}  // namespace
}  // namespace affordance::text
