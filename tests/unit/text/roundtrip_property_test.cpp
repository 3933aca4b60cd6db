// Property: decode(encode(x)) == NFC(x) for Qwen (NFC normalizer) and == x for Llama, for
// arbitrary valid UTF-8 x (seeded random strings over many blocks, including special spellings
// and every kind of space). The libFuzzer target tests/fuzz/text checks the same on fuzzed input.
#include "test_models.h"
#include "text/normalizer.h"
#include "text/utf8.h"

#include <utf8proc.h>

#include <cstdlib>
#include <random>

namespace affordance::text {
namespace {

std::string RandomText(std::mt19937& rng) {
  static const std::pair<char32_t, char32_t> kBlocks[] = {
      {0x20, 0x7E},     {0x01, 0x7F},     {0xA0, 0x2FF},      {0x300, 0x36F},
      {0x370, 0x52F},   {0x600, 0x6FF},   {0x900, 0x97F},     {0xE00, 0xE7F},
      {0x1100, 0x11FF}, {0x2000, 0x206F}, {0x3000, 0x30FF},   {0x4E00, 0x9FFF},
      {0xAC00, 0xD7A3}, {0xFE00, 0xFFFF}, {0x1F300, 0x1FAFF}, {0x10000, 0x10FFFF}};
  static const char* kPieces[] = {"<|im_end|>", "<|eot_id|>", " ",      "  ",     "\r\n",
                                  "\n",         "\t",         "'s",     "'LL",    "123456",
                                  "\u00A0",     "\u3000",     "\u200D", "e\u0301"};
  std::string s;
  int n = std::uniform_int_distribution<int>(0, 40)(rng);
  for (int i = 0; i < n; ++i) {
    if (rng() % 4 == 0) {
      s += kPieces[rng() % std::size(kPieces)];
      continue;
    }
    auto [lo, hi] = kBlocks[rng() % std::size(kBlocks)];
    char32_t cp;
    do {
      cp = lo + rng() % (hi - lo + 1);
    } while (cp >= 0xD800 && cp <= 0xDFFF);
    utf8::Append(s, cp);
  }
  return s;
}

TEST(TokenizerProperty, DecodeOfEncodeRestoresTheNormalizedText) {
  auto qwen = testing::Model(testing::kQwen), llama = testing::Model(testing::kLlama);
  ASSERT_TRUE(qwen && llama);
  std::mt19937 rng(20241129);
  for (int i = 0; i < 3000; ++i) {
    std::string x = RandomText(rng);
    std::string nfc;
    AppendNfc(x, nfc);
    for (bool special : {false, true}) {
      EncodeOptions options;
      options.match_special = special;
      EXPECT_EQ(*qwen->Decode(*qwen->Encode(x, options)), nfc);
      EXPECT_EQ(*llama->Decode(*llama->Encode(x, options)), x);
    }
    if (HasFailure()) break;
  }
}

TEST(TokenizerProperty, NfcMatchesUtf8procOnWholeStrings) {
  // Our NFC splits the text at ASCII characters for speed; it must equal one utf8proc call.
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    std::string x = RandomText(rng);
    std::string ours;
    AppendNfc(x, ours);
    utf8proc_uint8_t* whole = utf8proc_NFC(reinterpret_cast<const utf8proc_uint8_t*>(x.c_str()));
    ASSERT_NE(whole, nullptr);
    EXPECT_EQ(ours, reinterpret_cast<const char*>(whole)) << x;
    std::free(whole);
    if (HasFailure()) break;
  }
}

}  // namespace
}  // namespace affordance::text
