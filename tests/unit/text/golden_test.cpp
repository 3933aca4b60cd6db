// Exactness against the reference: every case of the goldens file written by
// tools/tokenizer_references.mjs (Hugging Face tokenizers over a > 1 MB corpus per model, with and
// without special-token matching, with the post-processor, and decode vectors) must match exactly.
#include "test_models.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>

namespace affordance::text {
namespace {

using testing::Model;

struct Tally {
  size_t cases = 0, bytes = 0, mismatches = 0;
};

TEST(TokenizerGolden, MatchesReferenceOnEveryCase) {
  std::ifstream in(AFFORDANCE_TEXT_GOLDENS);
  ASSERT_TRUE(in) << "missing goldens " << AFFORDANCE_TEXT_GOLDENS
                  << " (built by the text_goldens target)";
  std::map<std::string, std::shared_ptr<const Tokenizer>> models{
      {"qwen", Model(testing::kQwen)}, {"llama", Model(testing::kLlama)}};
  ASSERT_TRUE(models["qwen"] && models["llama"]);
  std::map<std::string, Tally> tally;
  std::string line;
  std::vector<TokenId> got;
  while (std::getline(in, line)) {
    auto c = nlohmann::json::parse(line);
    const std::string model = c["model"], mode = c["mode"];
    const Tokenizer& t = *models.at(model);
    Tally& k = tally[model + "/" + mode];
    ++k.cases;
    std::vector<TokenId> want = c["ids"].get<std::vector<TokenId>>();
    const std::string text = c["text"];
    k.bytes += text.size();
    if (mode == "decode") {
      auto decoded = t.Decode(want);
      ASSERT_TRUE(decoded.ok()) << decoded.error().ToString();
      if (*decoded != text && ++k.mismatches <= 3)
        ADD_FAILURE() << model << " decode mismatch for " << c["ids"].dump();
      continue;
    }
    EncodeOptions options;
    options.match_special = mode != "plain";
    options.add_special_tokens = mode == "bos";
    got.clear();
    ASSERT_TRUE(t.EncodeInto(text, got, options).ok());
    if (got != want && ++k.mismatches <= 3) {
      size_t i = 0;
      while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
      ADD_FAILURE() << model << "/" << mode << " mismatch at token " << i << " of "
                    << nlohmann::json(text).dump() << "\n got "
                    << nlohmann::json(std::vector<TokenId>(got.begin() + i,
                                                           got.begin() + std::min(got.size(), i + 8)))
                    << "\nwant "
                    << nlohmann::json(std::vector<TokenId>(want.begin() + i,
                                                           want.begin() + std::min(want.size(), i + 8)));
    }
  }
  for (const char* model : {"qwen", "llama"}) {
    for (const char* mode : {"plain", "special"}) {
      const Tally& k = tally[fmt::format("{}/{}", model, mode)];
      EXPECT_GE(k.bytes, 1000000u) << model << "/" << mode << ": the corpus must be >= 1 MB";
    }
  }
  for (auto& [name, k] : tally) {
    EXPECT_EQ(k.mismatches, 0u) << name;
    std::cout << fmt::format("{:16} {:6} cases {:9} bytes {} mismatches\n", name, k.cases, k.bytes,
                             k.mismatches);
  }
}

}  // namespace
}  // namespace affordance::text
