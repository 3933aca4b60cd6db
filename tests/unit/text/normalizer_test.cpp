// NFC by segments (normalizer.cpp): text is split before every "inert" character and only the
// segments holding other characters go through utf8proc. These tests hold the segmented NFC to
// utf8proc normalizing the whole string at once, on random strings built from the characters
// where segmentation could go wrong (composition seconds that are starters, Hangul jamo,
// singletons, excluded composites, characters whose decomposition starts with a second).
#include "text/normalizer.h"
#include "text/utf8.h"

#include <gtest/gtest.h>
#include <utf8proc.h>

#include <cstdlib>
#include <memory>
#include <random>
#include <string>

namespace affordance::text {
namespace {

std::string WholeNfc(const std::string& s) {
  utf8proc_uint8_t* r = nullptr;
  utf8proc_ssize_t n = utf8proc_map(
      reinterpret_cast<const utf8proc_uint8_t*>(s.data()), static_cast<utf8proc_ssize_t>(s.size()),
      &r, static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owned(r, &std::free);
  EXPECT_GE(n, 0);
  return n < 0 ? std::string()
               : std::string(reinterpret_cast<const char*>(r), static_cast<size_t>(n));
}

TEST(Nfc, InertCharacters) {
  for (char32_t c = 0; c < 0x80; ++c) EXPECT_TRUE(IsNfcInert(c)) << static_cast<int>(c);
  // Starters NFC keeps and that never compose with what precedes them.
  for (char32_t c : {0x4E00, 0x00E9, 0xAC00, 0xAC01, 0x0627, 0x0E01, 0x0915, 0x1F600, 0x20000})
    EXPECT_TRUE(IsNfcInert(c)) << std::hex << static_cast<int>(c);
  // Combining marks; starters that compose with a preceding character (Hangul vowel and trailing
  // jamo, Tamil AU length mark, Sinhala vowel signs, Kaithi nukta pair); singletons and excluded
  // composites NFC changes (Angstrom sign, U+0344, U+0F73, U+095C).
  for (char32_t c : {0x0301, 0x0338, 0x1161, 0x11A8, 0x0BBE, 0x0BD7, 0x0DCF, 0x0DCA, 0x110BA,
                     0x212B, 0x0344, 0x0F73, 0x095C, 0x2F800})
    EXPECT_FALSE(IsNfcInert(c)) << std::hex << static_cast<int>(c);
}

TEST(Nfc, SegmentedEqualsWholeStringNfc) {
  const char32_t tricky[] = {
      'a',    'e',    'o',    'A',    '<',    '=',         ' ',        0xE9,    0x301,   0x300,
      0x323,  0x338,  0x1100, 0x1161, 0x11A8, 0xAC00,      0xAC01,     0x0BC6,  0x0BBE,  0x0BD7,
      0x0DD9, 0x0DCF, 0x0DCA, 0x0DDF, 0x212B, 0x0344,      0x0F73,     0x0F71,  0x0F72,  0x0F80,
      0x1E14, 0x0112, 0x095C, 0x0915, 0x093C, 0x110BA,     0x11099,    0x1D15E, 0x1D165, 0x2F800,
      0x0CC6, 0x0CC2, 0x0CD5, 0x0B47, 0x0B3E, 0x0B57,      0x1B05,     0x1B35,  0x3099,  0x304B,
      0x309A, 0x0E01, 0x0E48, 0x4E00, 0x0627, 0x0653,      0x0654,     0x0655,  0x1F600, 0x200D,
      0xFB1D, 0x05B4, 0x0345, 0x03B1, 0x0313, 0x1100 + 18, 0x1161 + 20};
  std::mt19937 rng(20261130);
  size_t mismatches = 0;
  for (int it = 0; it < 200000; ++it) {
    std::string s;
    const int len = 1 + static_cast<int>(rng() % 12);
    for (int k = 0; k < len; ++k) {
      char32_t c;
      if (rng() % 4 == 0) {
        do c = rng() % 0x30000;
        while (c >= 0xD800 && c <= 0xDFFF);
      } else {
        c = tricky[rng() % (sizeof tricky / sizeof *tricky)];
      }
      utf8::Append(s, c);
    }
    std::string got;
    AppendNfc(s, got);
    if (got != WholeNfc(s) && ++mismatches <= 5) ADD_FAILURE() << "NFC differs for " << s;
  }
  EXPECT_EQ(mismatches, 0u);
}

TEST(Nfc, AppendsAfterExistingContent) {
  std::string out = "x";
  AppendNfc("e\u0301 \u1100\u1161\u11A8 plain", out);
  EXPECT_EQ(out, "x\u00E9 \uAC01 plain");
  Normalizer nfc = Normalizer::Nfc();
  nfc.Apply("A\u030A\u212B", out);  // Apply replaces the contents
  EXPECT_EQ(out, "\u00C5\u00C5");
}

}  // namespace
}  // namespace affordance::text
