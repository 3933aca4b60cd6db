// llama.cpp's tokenizer vectors (third_party/llama.cpp/models/ggml-vocab-*.gguf.inp/.out, written
// by llama.cpp from the Hugging Face tokenizers) for the vocabularies that match ours: llama-bpe is
// the Llama 3 vocabulary, qwen2 the Qwen 2 vocabulary that Qwen 3 keeps. Read the way
// tests/test-tokenizer-0.cpp reads them: inputs separated by "\n__ggml_vocab_test__\n", one line
// of space-separated IDs per input, encoded without special tokens.
#include "test_models.h"

#include <fstream>
#include <sstream>

namespace affordance::text {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void CheckVectors(const char* model, const std::string& vocab) {
  std::string base = std::string(AFFORDANCE_THIRD_PARTY_DIR) + "/llama.cpp/models/" + vocab;
  std::string inp = Slurp(base + ".inp"), out = Slurp(base + ".out");
  ASSERT_FALSE(inp.empty()) << base << ".inp (fetched by scripts/setup)";
  std::vector<std::string> inputs;
  const std::string sep = "\n__ggml_vocab_test__\n";
  for (size_t pos = 0; pos < inp.size();) {
    size_t next = inp.find(sep, pos);
    if (next == std::string::npos) {
      inputs.push_back(inp.substr(pos));
      break;
    }
    inputs.push_back(inp.substr(pos, next - pos));
    pos = next + sep.size();
  }
  std::vector<std::vector<TokenId>> outputs;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::vector<TokenId> ids;
    for (TokenId id; words >> id;) ids.push_back(id);
    outputs.push_back(ids);
  }
  ASSERT_EQ(inputs.size(), outputs.size());
  auto t = testing::Model(model);
  ASSERT_TRUE(t);
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto ids = t->Encode(inputs[i]);
    ASSERT_TRUE(ids.ok());
    EXPECT_EQ(*ids, outputs[i]) << vocab << " case " << i << ": " << inputs[i];
  }
  EXPECT_GT(inputs.size(), 30u);
}

TEST(LlamaCppVectors, LlamaBpe) { CheckVectors(testing::kLlama, "ggml-vocab-llama-bpe.gguf"); }
TEST(LlamaCppVectors, Qwen2) { CheckVectors(testing::kQwen, "ggml-vocab-qwen2.gguf"); }

}  // namespace
}  // namespace affordance::text
