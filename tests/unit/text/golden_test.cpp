// Exactness against the reference: every case of the goldens file written by
// tools/tokenizer_references.mjs (Hugging Face tokenizers over a > 1 MB corpus per model, with and
// without special-token matching, with the post-processor, and decode vectors, plus a multilingual
// corpus of many scripts, emoji, combining marks, code and numbers) must match exactly.
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

// A small tokenizer.json exercising component options, with the reference's IDs for many texts.
void CheckVariant(const nlohmann::json& c, Tally& k) {
  const std::string name = c["name"];
  auto t = Tokenizer::FromJson(c["tokenizer"].get<std::string>());
  ASSERT_TRUE(t.ok()) << name << ": " << t.error().ToString();
  const auto& texts = c["texts"];
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::string text = texts[i];
    for (const char* mode : {"plain", "special", "bos"}) {
      EncodeOptions options;
      options.match_special = std::string(mode) != "plain";
      options.add_special_tokens = std::string(mode) == "bos";
      auto got = (*t)->Encode(text, options);
      ASSERT_TRUE(got.ok());
      ++k.cases;
      k.bytes += text.size();
      auto want = c[mode][i].get<std::vector<TokenId>>();
      if (*got != want && ++k.mismatches <= 5) {
        ADD_FAILURE() << "variant " << name << "/" << mode << " " << nlohmann::json(text).dump()
                      << "\n got " << nlohmann::json(*got) << "\nwant " << nlohmann::json(want);
      }
    }
  }
}

TEST(TokenizerGolden, MatchesReferenceOnEveryCase) {
  std::ifstream in(AFFORDANCE_TEXT_GOLDENS);
  ASSERT_TRUE(in) << "missing goldens " << AFFORDANCE_TEXT_GOLDENS
                  << " (built by the text_goldens target)";
  std::map<std::string, std::shared_ptr<const Tokenizer>> models{{"qwen", Model(testing::kQwen)},
                                                                 {"llama", Model(testing::kLlama)}};
  ASSERT_TRUE(models["qwen"] && models["llama"]);
  std::map<std::string, Tally> tally;
  std::string line;
  std::vector<TokenId> got;
  while (std::getline(in, line)) {
    auto c = nlohmann::json::parse(line);
    if (c["mode"] == "variant") {
      CheckVariant(c, tally["variants"]);
      continue;
    }
    const std::string model = c["model"], mode = c["mode"];
    const Tokenizer& t = *models.at(model);
    const std::string corpus = c.value("corpus", "");
    Tally& k = tally[model + "/" + mode + (corpus.empty() ? "" : "/" + corpus)];
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
                    << nlohmann::json(std::vector<TokenId>(
                           got.begin() + i, got.begin() + std::min(got.size(), i + 8)))
                    << "\nwant "
                    << nlohmann::json(std::vector<TokenId>(
                           want.begin() + i, want.begin() + std::min(want.size(), i + 8)));
    }
  }
  for (const char* model : {"qwen", "llama"}) {
    for (const char* mode : {"plain", "special"}) {
      const Tally& k = tally[fmt::format("{}/{}", model, mode)];
      EXPECT_GE(k.bytes, 1000000u) << model << "/" << mode << ": the corpus must be >= 1 MB";
    }
  }
  for (const char* model : {"qwen", "llama"}) {
    for (const char* mode : {"plain", "special"}) {
      const Tally& k = tally[fmt::format("{}/{}/multilingual", model, mode)];
      EXPECT_GE(k.bytes, 500000u) << model << "/" << mode
                                  << ": the multilingual corpus must be >= 500 KB";
    }
  }
  EXPECT_GE(tally["variants"].cases, 17u * 3 * 100) << "every component variant must be checked";
  for (auto& [name, k] : tally) {
    EXPECT_EQ(k.mismatches, 0u) << name;
    std::cout << fmt::format("{:26} {:6} cases {:9} bytes {} mismatches\n", name, k.cases, k.bytes,
                             k.mismatches);
  }
}

}  // namespace
}  // namespace affordance::text
