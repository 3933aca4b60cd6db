// The embedded llama.cpp provider: token IDs in, the KV cache kept between steps.
//
// Each step feeds the request's prompt token IDs straight to llama.cpp (no text, no template, no
// re-tokenization). The provider remembers which tokens its KV cache holds (the previous prompt
// plus the tokens it sampled and evaluated) and reuses the longest common token prefix with the
// new prompt: only the tokens after it are evaluated. finish-step reports prompt_tokens,
// cached_prompt_tokens (the reused prefix; at most prompt_tokens - 1, because the last prompt
// token is always evaluated to get the next-token distribution) and generated_tokens. Sampled
// tokens go through the tokenizer's incremental decoder and the format's parser like every other
// token-native provider. Sampling: greedy at temperature 0, else temperature + seeded sampling.
// A step ends at an end-of-generation token of the model's vocabulary, at the format's
// end-of-turn token, or at max_tokens ("length"). Cancellation is checked between prompt batches
// and between tokens.
//
// Errors: model.llama_unavailable (built without AFFORDANCE_LLAMA), model.llama_load (the GGUF
// file cannot be loaded), model.bad_request (empty prompt, an ID outside the vocabulary),
// model.context_overflow (prompt + max_tokens exceed the context), model.llama_decode.
// Thread-safety: one step at a time (Stream() serializes).
#pragma once

#include "model/provider.h"

namespace affordance::model {

struct LlamaProviderOptions {
  std::string model_path;  // a GGUF file
  formats::ChatFormat format = formats::ChatFormat::kQwen3;
  int context_tokens = 4096;
  int batch_tokens = 512;
  int threads = 2;
};

class LlamaProvider final : public Provider {
 public:
  // True when this build has the embedded provider (CMake option AFFORDANCE_LLAMA).
  static bool Available();
  static Result<std::unique_ptr<LlamaProvider>> Open(
      std::shared_ptr<const text::Tokenizer> tokenizer, LlamaProviderOptions options);
  ~LlamaProvider() override;

  Status Stream(const StepRequest& request, const PartSink& sink,
                const CancelToken& cancel) override;
  std::string_view kind() const override { return "llama"; }

  // The tokens the KV cache holds now, in order.
  std::vector<text::TokenId> cached_tokens() const;

 private:
  struct Engine;
  explicit LlamaProvider(std::unique_ptr<Engine> engine);
  std::unique_ptr<Engine> engine_;
};

}  // namespace affordance::model
