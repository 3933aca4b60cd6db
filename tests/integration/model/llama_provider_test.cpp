// The embedded llama.cpp provider on a random-weight model with the real Qwen3 vocabulary
// (random_gguf.h): prompt token IDs in, KV-cache prefix reuse across steps reported and correct.
#include "model/llama_provider.h"
#include "random_gguf.h"
#include "well_formed.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace affordance::model::testing {
namespace {

using formats::PartType;

class RandomWeightQwen3Embedded : public ::testing::Test {
 protected:
  void SetUp() override {
    auto tok = text::LoadModel("Qwen__Qwen3-4B-Instruct-2507");
    ASSERT_TRUE(tok.ok()) << tok.error().ToString();
    tokenizer_ = *tok;
    auto path = RandomQwen3Gguf();
    ASSERT_TRUE(path.ok()) << path.error().ToString();
    path_ = *path;
  }
  std::unique_ptr<LlamaProvider> Open() {
    auto p = LlamaProvider::Open(tokenizer_, {.model_path = path_, .context_tokens = 2048});
    EXPECT_TRUE(p.ok()) << p.error().ToString();
    return p.ok() ? std::move(p).value() : nullptr;
  }
  std::vector<text::TokenId> Encode(const std::string& s) {
    auto ids = tokenizer_->Encode(s, {.match_special = true});
    EXPECT_TRUE(ids.ok());
    return *ids;
  }
  static const formats::StreamPart& FinishStep(const CollectedStep& s) {
    return s.parts[s.parts.size() - 2];
  }
  std::shared_ptr<const text::Tokenizer> tokenizer_;
  std::string path_;
};

TEST_F(RandomWeightQwen3Embedded, PrefixReuseAcrossTwoStepsIsReportedAndCorrect) {
  auto provider = Open();
  ASSERT_NE(provider, nullptr);
  StepRequest first;
  first.prompt = Encode(
      "<|im_start|>system\nYou are "
      "terse.<|im_end|>\n<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n");
  first.max_tokens = 8;
  first.step_id = "s1-";
  auto a = Collect(*provider, first);
  ASSERT_TRUE(a.status.ok()) << a.status.error().ToString();
  ExpectWellFormedStep(a.parts);
  const auto& fa = FinishStep(a);
  EXPECT_EQ(fa.usage.prompt_tokens, static_cast<int64_t>(first.prompt.size()));
  EXPECT_EQ(fa.usage.cached_prompt_tokens, 0);
  EXPECT_EQ(fa.usage.generated_tokens, static_cast<int64_t>(fa.tokens.size()));
  EXPECT_GE(fa.usage.generated_tokens, 1);
  EXPECT_LE(fa.usage.generated_tokens, 8);

  // Step 2: the history (prompt + the model's own sampled tokens, kept verbatim) plus a new turn.
  StepRequest second = first;
  second.step_id = "s2-";
  second.prompt.insert(second.prompt.end(), fa.tokens.begin(), fa.tokens.end());
  size_t history = second.prompt.size();
  auto more = Encode("<|im_end|>\n<|im_start|>user\nagain<|im_end|>\n<|im_start|>assistant\n");
  second.prompt.insert(second.prompt.end(), more.begin(), more.end());
  // What the cache can hold: the prompt plus every sampled token that was evaluated (an
  // end-of-generation token ends the step unevaluated).
  auto cached = provider->cached_tokens();
  EXPECT_TRUE(std::equal(cached.begin(), cached.end(), second.prompt.begin()));
  auto b = Collect(*provider, second);
  ASSERT_TRUE(b.status.ok()) << b.status.error().ToString();
  ExpectWellFormedStep(b.parts);
  const auto& fb = FinishStep(b);
  EXPECT_EQ(fb.usage.prompt_tokens, static_cast<int64_t>(second.prompt.size()));
  EXPECT_EQ(fb.usage.cached_prompt_tokens, static_cast<int64_t>(cached.size()));
  EXPECT_GE(fb.usage.cached_prompt_tokens, static_cast<int64_t>(first.prompt.size()));
  EXPECT_LE(fb.usage.cached_prompt_tokens, static_cast<int64_t>(history));

  // Correctness: a fresh provider with an empty cache samples exactly the same tokens.
  auto fresh = Open();
  auto c = Collect(*fresh, second);
  ASSERT_TRUE(c.status.ok());
  EXPECT_EQ(FinishStep(c).usage.cached_prompt_tokens, 0);
  EXPECT_EQ(FinishStep(c).tokens, fb.tokens);

  // A prompt that diverges early reuses only the common prefix.
  StepRequest third = first;
  third.prompt[5] = third.prompt[5] == 100 ? 101 : 100;
  auto d = Collect(*provider, third);
  ASSERT_TRUE(d.status.ok());
  EXPECT_EQ(FinishStep(d).usage.cached_prompt_tokens, 5);
  // The same prompt again reuses all but the last token.
  auto e = Collect(*provider, third);
  EXPECT_EQ(FinishStep(e).usage.cached_prompt_tokens,
            static_cast<int64_t>(third.prompt.size()) - 1);
}

TEST_F(RandomWeightQwen3Embedded, BadRequestsAreErrors) {
  auto provider = Open();
  ASSERT_NE(provider, nullptr);
  auto empty = Collect(*provider, {});
  ASSERT_FALSE(empty.status.ok());
  EXPECT_EQ(empty.status.error().code, "model.bad_request");
  StepRequest bad;
  bad.prompt = {1, 2, 99999999};
  auto out_of_range = Collect(*provider, bad);
  EXPECT_EQ(out_of_range.status.error().code, "model.bad_request");
  StepRequest huge;
  huge.prompt = {1, 2, 3};
  huge.max_tokens = 100000;
  auto overflow = Collect(*provider, huge);
  EXPECT_EQ(overflow.status.error().code, "model.context_overflow");
  ExpectWellFormedStep(overflow.parts);
  auto missing = LlamaProvider::Open(tokenizer_, {.model_path = "/nonexistent.gguf"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, "model.llama_load");
}

TEST_F(RandomWeightQwen3Embedded, CancelBetweenTokensAborts) {
  auto provider = Open();
  ASSERT_NE(provider, nullptr);
  StepRequest r;
  r.prompt = Encode("<|im_start|>user\nwrite a lot<|im_end|>\n<|im_start|>assistant\n");
  r.max_tokens = 200;
  r.temperature = 1.0;
  r.seed = 3;
  CancelToken cancel;
  std::vector<formats::StreamPart> parts;
  int deltas = 0;
  auto status = provider->Stream(
      r,
      [&](const formats::StreamPart& p) {
        parts.push_back(p);
        if (p.type == PartType::kTextDelta && ++deltas == 2) cancel.Cancel();
      },
      cancel);
  ASSERT_GE(deltas, 2) << "seeded sampling on this model produces text before an end token";
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, "model.cancelled");
  EXPECT_EQ(parts.back().type, PartType::kAbort);
  ExpectWellFormedStep(parts);
}

}  // namespace
}  // namespace affordance::model::testing
