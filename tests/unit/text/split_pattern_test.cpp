// The hand-written scanner for the Llama 3 / Qwen pre-tokenizer regexes agrees with PCRE2 running
// the regex itself, and the Split behaviors group pieces as the reference does.
#include "text/split_pattern.h"
#include "test_models.h"
#include "text/char_class.h"
#include "text/utf8.h"

#include <random>

namespace affordance::text {
namespace {

constexpr const char* kLlama3 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr const char* kQwen =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

std::string RandomText(std::mt19937& rng) {
  static const char32_t kAlphabet[] = {'a',    'Z',     '1',    '9',    ' ',   ' ',   '\t',   '\n',
                                       '\r',   '\'',    's',    'S',    'l',   'L',   'e',    'r',
                                       'v',    'd',     'm',    't',    '.',   '!',   '-',    0xA0,
                                       0x3000, 0x2028,  0x85,   0x0B,   0x17F, 0x301, 0x4E2D, 0x665,
                                       0x00BD, 0x1F600, 0x200D, 0x0E01, 0xAC00};
  std::string s;
  int n = static_cast<int>(rng() % 30);
  for (int i = 0; i < n; ++i) utf8::Append(s, kAlphabet[rng() % std::size(kAlphabet)]);
  return s;
}

TEST(SplitPattern, ScannerAgreesWithPcre2) {
  for (const char* pattern : {kLlama3, kQwen}) {
    auto fast = SplitPattern::Regex(pattern);
    auto pcre = SplitPattern::Regex(pattern, /*allow_fast_path=*/false);
    ASSERT_TRUE(fast.ok() && pcre.ok());
    ASSERT_TRUE((*fast)->tiles());
    ASSERT_FALSE((*pcre)->tiles());
    std::mt19937 rng(99);
    for (int i = 0; i < 20000; ++i) {
      std::string text = RandomText(rng);
      std::vector<Span> a, b;
      (*fast)->FindMatches(text, a);
      (*pcre)->FindMatches(text, b);
      ASSERT_EQ(a, b) << text;
    }
  }
}

TEST(SplitPattern, ContractionsAreCaseInsensitive) {
  auto fast = SplitPattern::Regex(kLlama3);
  ASSERT_TRUE(fast.ok());
  std::vector<Span> m;
  (*fast)->FindMatches("it'LL he'Re X'S", m);
  std::vector<Span> want{{0, 2}, {2, 5}, {5, 8}, {8, 11}, {11, 13}, {13, 15}};
  EXPECT_EQ(m, want);
}

TEST(SplitPattern, LiteralPatternFindsNonOverlappingMatches) {
  auto lit = SplitPattern::Literal("aa");
  std::vector<Span> m;
  lit->FindMatches("aaaXaa", m);
  std::vector<Span> want{{0, 2}, {4, 6}};
  EXPECT_EQ(m, want);
}

TEST(SplitPattern, EmptyMatchesAreSteppedOverLikeOniguruma) {
  auto re = SplitPattern::Regex("x*");
  ASSERT_TRUE(re.ok());
  std::vector<Span> m;
  (*re)->FindMatches("axxb", m);
  // Oniguruma's iterator: "" at 0, "xx" at 1, then an empty match right after it is skipped, ""
  // at 4.
  std::vector<Span> want{{0, 0}, {1, 3}, {4, 4}};
  EXPECT_EQ(m, want);
}

}  // namespace
}  // namespace affordance::text
