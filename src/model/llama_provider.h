// The embedded llama.cpp provider: token IDs in, many steps at once as parallel sequences of one
// context (continuous batching), each sequence's KV cache kept between steps.
//
// Each step feeds the request's prompt token IDs straight to llama.cpp (no text, no template, no
// re-tokenization). Sampled tokens go through the tokenizer's incremental decoder and the
// format's parser like every other token-native provider. Sampling: greedy at temperature 0, else
// temperature + seeded sampling (each step its own sampler chain, with its grammar if any). A
// step ends at an end-of-generation token of the model's vocabulary, at the format's end-of-turn
// token, or at max_tokens ("length").
//
// Slots and continuous batching (the way llama-server's slots work): the context has `parallel`
// sequences; slot i owns sequence i and remembers the tokens its KV cache holds (a previous
// prompt plus the tokens sampled and evaluated after it). A queued step takes a free slot,
// preferring the one whose cached tokens share the longest prefix with its prompt (ties: the
// least recently used), so a conversation's next step reuses its own prefix; the rest of that
// sequence is removed and only the tokens after the prefix are evaluated. finish-step reports
// prompt_tokens, cached_prompt_tokens (the reused prefix; at most prompt_tokens - 1, because the
// last prompt token is always evaluated to get the next-token distribution) and
// generated_tokens. One engine thread owns the context: each iteration builds one batch with the
// next token of every generating slot plus prompt tokens of slots still evaluating their prompts
// (at most batch_tokens in all), runs one llama_decode and samples every slot that needs it. A
// step waiting for a slot starts as soon as one frees, joining the running batch.
//
// Context budget: llama.cpp's kv_unified is left off (its default), so every sequence has its own
// fixed share of the KV cache, n_ctx_seq = context_tokens / parallel rounded up to a multiple of
// 256 by llama.cpp (the context grows to parallel * n_ctx_seq). A step's prompt + max_tokens must
// fit n_ctx_seq (model.context_overflow); a step never runs out of KV cells because of the others.
//
// Cancellation wakes the engine thread; a cancelled step ends (open parts closed, then abort) at
// the next iteration, between batches, and frees its slot; the others go on.
//
// Errors: model.llama_unavailable (built without AFFORDANCE_LLAMA), model.llama_load (the GGUF
// file cannot be loaded, or the context cannot be created), model.bad_request (empty prompt, an
// ID outside the vocabulary), model.context_overflow (prompt + max_tokens exceed one sequence's
// share of the context), model.bad_grammar, model.llama_decode (a failed batch fails the steps in
// it and clears their sequences; the others go on), model.stopping (the provider was destroyed
// while the step was queued or running).
//
// Thread-safety: StreamAsync()/Stream() from any thread, any number at once (concurrent()). Parts
// and `done` run on the engine thread, in order, never concurrently for one step; a sink or `done`
// must not call Stream() on the same provider (it would wait for its own thread).
#pragma once

#include "model/provider.h"

namespace affordance::model {

struct LlamaProviderOptions {
  std::string model_path;  // a GGUF file
  formats::ChatFormat format = formats::ChatFormat::kQwen3;
  int context_tokens = 4096;  // the whole context, shared by the `parallel` sequences
  int batch_tokens = 512;     // tokens in one llama_decode batch (at least `parallel`)
  int threads = 2;
  int parallel = 1;  // sequences of the one context = steps served at once (n_seq_max)
};

class LlamaProvider final : public Provider {
 public:
  // True when this build has the embedded provider (CMake option AFFORDANCE_LLAMA).
  static bool Available();
  static Result<std::unique_ptr<LlamaProvider>> Open(
      std::shared_ptr<const text::Tokenizer> tokenizer, LlamaProviderOptions options);
  // Stops the engine thread; steps still queued or running end with the error model.stopping.
  ~LlamaProvider() override;

  // StreamAsync() and a wait.
  Status Stream(const StepRequest& request, const PartSink& sink,
                const CancelToken& cancel) override;
  // Queues the step and returns at once; validation and every part happen on the engine thread.
  void StreamAsync(StepRequest request, PartSink sink, CancelToken cancel, StepDone done) override;
  bool concurrent() const override { return true; }
  std::string_view kind() const override { return "llama"; }

  // Tests and diagnostics. The tokens the KV cache holds now for the slot that the most recently
  // started step took (after that step finished: its prompt plus the sampled tokens that were
  // evaluated), in order.
  std::vector<text::TokenId> cached_tokens() const;
  // The most sequences that one llama_decode batch has held so far.
  int max_batched_sequences() const;

 private:
  struct Engine;
  explicit LlamaProvider(std::unique_ptr<Engine> engine);
  std::unique_ptr<Engine> engine_;
};

}  // namespace affordance::model
