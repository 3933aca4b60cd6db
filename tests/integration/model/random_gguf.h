// A tiny random-weight model with the REAL Qwen3 vocabulary, written at test time through gguf.h.
//
// No model weights exist on this machine, so the real-peer tests (llama-server, embedded
// llama.cpp) run on this stand-in: architecture qwen3, 1 layer, 64-wide embeddings, 2 query heads
// / 1 KV head of 32, feed-forward 128, f32 weights drawn from a seeded generator, and the
// tokenizer (tokens, token types, merges, pre-tokenizer "qwen2", <|im_end|> as EOS) of
// models/Qwen__Qwen3-4B-Instruct-2507. About 40 MB. Its output is random text: tests on it assert
// well-formed parts and consistent usage, never meaning.
#pragma once

#include "base/result.h"

#include <string>

namespace affordance::model::testing {

// Writes the model to `path` (deterministic for a seed). Errors: "test.gguf".
Status WriteRandomQwen3Gguf(const std::string& tokenizer_dir, const std::string& path,
                            unsigned seed = 7);

// The path of the shared test model under the build tree's temp folder, generated on first use
// (written to a temporary name and renamed, so concurrent test processes never see half a file).
Result<std::string> RandomQwen3Gguf();

}  // namespace affordance::model::testing
