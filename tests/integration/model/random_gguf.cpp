#include "random_gguf.h"

#include <ggml.h>
#include <gguf.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

namespace affordance::model::testing {
namespace {

constexpr int kEmbd = 64, kHeads = 2, kKvHeads = 1, kHeadDim = 32, kFf = 128, kLayers = 1;

Error Fail(std::string message, std::string detail = {}) {
  return MakeError("test.gguf", std::move(message), std::move(detail));
}

}  // namespace

Status WriteRandomQwen3Gguf(const std::string& tokenizer_dir, const std::string& path,
                            unsigned seed) {
  std::ifstream in(tokenizer_dir + "/tokenizer.json");
  if (!in) return Fail("cannot read tokenizer.json", tokenizer_dir);
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json tj = nlohmann::json::parse(ss.str(), nullptr, false);
  if (tj.is_discarded()) return Fail("tokenizer.json is not JSON");

  // Tokens by id: the BPE vocabulary, then the added tokens.
  std::vector<std::string> tokens;
  std::vector<int32_t> types;
  for (auto& [piece, id] : tj["model"]["vocab"].items()) {
    size_t i = id.get<size_t>();
    if (tokens.size() <= i) tokens.resize(i + 1), types.resize(i + 1, 1);
    tokens[i] = piece;
    types[i] = 1;  // normal
  }
  for (const auto& added : tj["added_tokens"]) {
    size_t i = added["id"].get<size_t>();
    if (tokens.size() <= i) tokens.resize(i + 1), types.resize(i + 1, 1);
    tokens[i] = added["content"].get<std::string>();
    types[i] = added.value("special", false) ? 3 : 4;  // control : user-defined
  }
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].empty()) return Fail("the vocabulary has a hole", std::to_string(i));
  }
  std::vector<std::string> merges;
  for (const auto& m : tj["model"]["merges"]) {
    merges.push_back(m.is_string() ? m.get<std::string>()
                                   : m[0].get<std::string>() + " " + m[1].get<std::string>());
  }
  const int64_t n_vocab = static_cast<int64_t>(tokens.size());

  gguf_context* g = gguf_init_empty();
  gguf_set_val_str(g, "general.architecture", "qwen3");
  gguf_set_val_str(g, "general.name", "affordance random-weight qwen3 (test stand-in)");
  gguf_set_val_u32(g, "general.alignment", 32);
  gguf_set_val_u32(g, "qwen3.context_length", 8192);
  gguf_set_val_u32(g, "qwen3.embedding_length", kEmbd);
  gguf_set_val_u32(g, "qwen3.block_count", kLayers);
  gguf_set_val_u32(g, "qwen3.feed_forward_length", kFf);
  gguf_set_val_u32(g, "qwen3.attention.head_count", kHeads);
  gguf_set_val_u32(g, "qwen3.attention.head_count_kv", kKvHeads);
  gguf_set_val_u32(g, "qwen3.attention.key_length", kHeadDim);
  gguf_set_val_u32(g, "qwen3.attention.value_length", kHeadDim);
  gguf_set_val_f32(g, "qwen3.attention.layer_norm_rms_epsilon", 1e-6f);
  gguf_set_val_f32(g, "qwen3.rope.freq_base", 1000000.0f);
  gguf_set_val_str(g, "tokenizer.ggml.model", "gpt2");
  gguf_set_val_str(g, "tokenizer.ggml.pre", "qwen2");
  std::vector<const char*> token_ptrs, merge_ptrs;
  for (const auto& t : tokens) token_ptrs.push_back(t.c_str());
  for (const auto& m : merges) merge_ptrs.push_back(m.c_str());
  gguf_set_arr_str(g, "tokenizer.ggml.tokens", token_ptrs.data(), token_ptrs.size());
  gguf_set_arr_data(g, "tokenizer.ggml.token_type", GGUF_TYPE_INT32, types.data(), types.size());
  gguf_set_arr_str(g, "tokenizer.ggml.merges", merge_ptrs.data(), merge_ptrs.size());
  gguf_set_val_u32(g, "tokenizer.ggml.eos_token_id", 151645);
  gguf_set_val_u32(g, "tokenizer.ggml.bos_token_id", 151643);
  gguf_set_val_u32(g, "tokenizer.ggml.padding_token_id", 151643);
  gguf_set_val_bool(g, "tokenizer.ggml.add_bos_token", false);

  struct Shape {
    std::string name;
    int64_t ne0, ne1;
    bool norm;
  };
  std::vector<Shape> shapes = {{"token_embd.weight", kEmbd, n_vocab, false},
                               {"output_norm.weight", kEmbd, 1, true}};
  for (int l = 0; l < kLayers; ++l) {
    std::string b = "blk." + std::to_string(l) + ".";
    shapes.push_back({b + "attn_norm.weight", kEmbd, 1, true});
    shapes.push_back({b + "attn_q.weight", kEmbd, kHeads * kHeadDim, false});
    shapes.push_back({b + "attn_k.weight", kEmbd, kKvHeads * kHeadDim, false});
    shapes.push_back({b + "attn_v.weight", kEmbd, kKvHeads * kHeadDim, false});
    shapes.push_back({b + "attn_output.weight", kHeads * kHeadDim, kEmbd, false});
    shapes.push_back({b + "attn_q_norm.weight", kHeadDim, 1, true});
    shapes.push_back({b + "attn_k_norm.weight", kHeadDim, 1, true});
    shapes.push_back({b + "ffn_norm.weight", kEmbd, 1, true});
    shapes.push_back({b + "ffn_gate.weight", kEmbd, kFf, false});
    shapes.push_back({b + "ffn_up.weight", kEmbd, kFf, false});
    shapes.push_back({b + "ffn_down.weight", kFf, kEmbd, false});
  }
  size_t bytes = 0;
  for (const auto& s : shapes) bytes += static_cast<size_t>(s.ne0 * s.ne1) * sizeof(float) + 1024;
  ggml_init_params params = {bytes + 1024 * 1024, nullptr, false};
  ggml_context* ctx = ggml_init(params);
  if (ctx == nullptr) {
    gguf_free(g);
    return Fail("ggml_init failed");
  }
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 0.5f);
  for (const auto& s : shapes) {
    ggml_tensor* t = s.ne1 == 1 ? ggml_new_tensor_1d(ctx, GGML_TYPE_F32, s.ne0)
                                : ggml_new_tensor_2d(ctx, GGML_TYPE_F32, s.ne0, s.ne1);
    ggml_set_name(t, s.name.c_str());
    float* data = static_cast<float*>(t->data);
    for (int64_t i = 0; i < s.ne0 * s.ne1; ++i) data[i] = s.norm ? 1.0f : dist(rng);
    gguf_add_tensor(g, t);
  }
  bool ok = gguf_write_to_file(g, path.c_str(), /*only_meta=*/false);
  ggml_free(ctx);
  gguf_free(g);
  if (!ok) return Fail("gguf_write_to_file failed", path);
  return {};
}

Result<std::string> RandomQwen3Gguf() {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(AFFORDANCE_BINARY_DIR) / "test-tmp";
  fs::create_directories(dir);
  fs::path path = dir / "random-qwen3-l1-e64-seed7.gguf";
  if (fs::exists(path)) return path.string();
  fs::path tmp = dir / ("random-qwen3.partial." + std::to_string(::getpid()));
  auto status = WriteRandomQwen3Gguf(
      std::string(AFFORDANCE_SOURCE_DIR) + "/models/Qwen__Qwen3-4B-Instruct-2507", tmp.string());
  if (!status.ok()) return status.error();
  fs::rename(tmp, path);
  return path.string();
}

}  // namespace affordance::model::testing
