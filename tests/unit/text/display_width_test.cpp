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

// Issue 43 item 9: C1 controls (U+009B is a CSI) and the characters that reorder or hide text are
// shown, never passed raw to a terminal; "Budget sync \u202Egnp.exe" must not read "exe.png".
TEST(Printable, ShowsC1AndBidiAndInvisibleCharactersAndBlanksC0) {
  EXPECT_EQ(Printable("Budget sync \u202Egnp.exe"), "Budget sync ⟨U+202E⟩gnp.exe");
  EXPECT_EQ(Printable("a\xC2\x9B"
                      "31mred"),
            "a⟨U+009B⟩31mred");
  EXPECT_EQ(Printable("x\xC2\x85y"), "x⟨U+0085⟩y");
  EXPECT_EQ(Printable("\u2066iso\u2069 \u200Bzw \u200Frlm \uFEFFbom \u2060wj"),
            "⟨U+2066⟩iso⟨U+2069⟩ ⟨U+200B⟩zw ⟨U+200F⟩rlm ⟨U+FEFF⟩bom ⟨U+2060⟩wj");
  EXPECT_EQ(Printable("tag\U000E0041"), "tag⟨U+E0041⟩");
  EXPECT_EQ(Printable("\x1B[2Jclear\rline\u2028"), " [2Jclear line ");
  EXPECT_EQ(Printable("one\ntwo", true), "one\ntwo");
  // Joiners join: emoji sequences and Persian words are left alone.
  EXPECT_EQ(Printable("👩\u200D💻 می\u200Cخواهم"), "👩\u200D💻 می\u200Cخواهم");
  EXPECT_EQ(Printable("caf\xC3"), "caf\uFFFD");
}

TEST(EscapeHiddenInJson, WritesEveryHiddenCharacterAsAJsonEscapeOfTheSameValue) {
  const std::string raw =
      "{\"s\":\"a\xC2\x9B"
      "b\u202Ec\U000E0041\u2028\"}";
  const std::string escaped = EscapeHiddenInJson(raw);
  EXPECT_EQ(escaped, "{\"s\":\"a\\u009bb\\u202ec\\udb40\\udc41\\u2028\"}");
  EXPECT_EQ(EscapeHiddenInJson("{\"s\":\"東京 👩\u200D💻\"}"), "{\"s\":\"東京 👩\u200D💻\"}");
}

}  // namespace
}  // namespace affordance::text
