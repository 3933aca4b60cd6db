// The embedded llama.cpp provider on a random-weight model with the real Qwen3 vocabulary
// (random_gguf.h): prompt token IDs in, KV-cache prefix reuse across steps reported and correct,
// many steps at once as parallel sequences of one context (continuous batching).
#include "model/llama_provider.h"
#include "random_gguf.h"
#include "well_formed.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <iostream>
#include <mutex>

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
  // One thread: on a busy 2-core machine, OpenMP's spinning between two threads costs more than it
  // brings to a model this small.
  std::unique_ptr<LlamaProvider> Open(int parallel = 4) {
    auto p = LlamaProvider::Open(
        tokenizer_,
        {.model_path = path_, .context_tokens = 2048, .threads = 1, .parallel = parallel});
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
  // Starts every request at once (StreamAsync) and waits for all of them; `on_part` (optional)
  // sees each part with its step's index.
  std::vector<CollectedStep> RunConcurrently(
      LlamaProvider& provider, const std::vector<StepRequest>& requests,
      const std::vector<CancelToken>& cancels = {},
      std::function<void(size_t, const formats::StreamPart&)> on_part = nullptr) {
    std::vector<CollectedStep> steps(requests.size());
    std::vector<int> done_calls(requests.size(), 0);
    std::mutex mu;
    std::condition_variable cv;
    size_t finished = 0;
    for (size_t i = 0; i < requests.size(); ++i) {
      provider.StreamAsync(
          requests[i],
          [&, i](const formats::StreamPart& p) {
            steps[i].parts.push_back(p);
            if (on_part) on_part(i, p);
          },
          i < cancels.size() ? cancels[i] : CancelToken(),
          [&, i](Status s) {
            std::lock_guard<std::mutex> lock(mu);
            steps[i].status = std::move(s);
            ++done_calls[i];
            ++finished;
            cv.notify_all();
          });
    }
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return finished == requests.size(); });
    for (int calls : done_calls) EXPECT_EQ(calls, 1);
    return steps;
  }
  // Short chat prompts that differ from their first tokens on.
  std::vector<StepRequest> ChatRequests(int n, int max_tokens) {
    static const char* kWords[] = {"apples",  "rivers",   "engines",  "violins",
                                   "deserts", "glaciers", "lanterns", "orbits"};
    std::vector<StepRequest> out;
    for (int i = 0; i < n; ++i) {
      StepRequest r;
      r.prompt = Encode(std::string(kWords[i % 8]) + " " + std::to_string(i) +
                        "<|im_end|>\n<|im_start|>assistant\n");
      r.max_tokens = max_tokens;
      r.step_id = "c" + std::to_string(i) + "-";
      out.push_back(std::move(r));
    }
    return out;
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

TEST_F(RandomWeightQwen3Embedded, ConcurrentStepsAreBatchedAndMatchSequentialRuns) {
  auto requests = ChatRequests(8, 8);
  // Each prompt alone, one after another (greedy).
  std::vector<std::vector<text::TokenId>> alone;
  {
    auto sequential = Open();
    ASSERT_NE(sequential, nullptr);
    for (const auto& r : requests) {
      auto s = Collect(*sequential, r);
      ASSERT_TRUE(s.status.ok()) << s.status.error().ToString();
      alone.push_back(FinishStep(s).tokens);
    }
    EXPECT_EQ(sequential->max_batched_sequences(), 1);
  }
  auto provider = Open(4);
  ASSERT_NE(provider, nullptr);
  auto steps = RunConcurrently(*provider, requests);
  for (size_t i = 0; i < steps.size(); ++i) {
    SCOPED_TRACE("step " + std::to_string(i));
    ASSERT_TRUE(steps[i].status.ok()) << steps[i].status.error().ToString();
    ExpectWellFormedStep(steps[i].parts);
    const auto& f = FinishStep(steps[i]);
    EXPECT_EQ(f.usage.prompt_tokens, static_cast<int64_t>(requests[i].prompt.size()));
    EXPECT_EQ(f.usage.cached_prompt_tokens, 0);
    EXPECT_GE(f.usage.generated_tokens, 1);
    EXPECT_LE(f.usage.generated_tokens, 8);
    // Continuous batching does not change what greedy sampling picks.
    EXPECT_EQ(f.tokens, alone[i]);
  }
  std::cout << "max batched sequences: " << provider->max_batched_sequences() << "\n";
  RecordProperty("max_batched_sequences", provider->max_batched_sequences());
  EXPECT_GE(provider->max_batched_sequences(), 2);
  EXPECT_LE(provider->max_batched_sequences(), 4);
}

TEST_F(RandomWeightQwen3Embedded, PrefixReuseSurvivesOtherSequences) {
  auto provider = Open(4);
  ASSERT_NE(provider, nullptr);
  StepRequest first;
  first.prompt = Encode("<|im_start|>user\nhello there<|im_end|>\n<|im_start|>assistant\n");
  first.max_tokens = 8;
  first.step_id = "a1-";
  auto a = Collect(*provider, first);
  ASSERT_TRUE(a.status.ok()) << a.status.error().ToString();
  auto cached = provider->cached_tokens();
  StepRequest second = first;
  second.step_id = "a2-";
  second.prompt.insert(second.prompt.end(), FinishStep(a).tokens.begin(),
                       FinishStep(a).tokens.end());
  auto more = Encode("<|im_end|>\n<|im_start|>user\nagain<|im_end|>\n<|im_start|>assistant\n");
  second.prompt.insert(second.prompt.end(), more.begin(), more.end());
  ASSERT_TRUE(std::equal(cached.begin(), cached.end(), second.prompt.begin()));
  // Three other conversations run (their prompts share no prefix with the first), then the
  // second step joins them.
  auto requests = ChatRequests(3, 12);
  requests.push_back(second);
  auto steps = RunConcurrently(*provider, requests);
  for (const auto& s : steps) {
    ASSERT_TRUE(s.status.ok()) << s.status.error().ToString();
    ExpectWellFormedStep(s.parts);
  }
  const auto& fb = FinishStep(steps.back());
  EXPECT_EQ(fb.usage.cached_prompt_tokens, static_cast<int64_t>(cached.size()));
  EXPECT_GE(fb.usage.cached_prompt_tokens, static_cast<int64_t>(first.prompt.size()));
  // Correct: a fresh provider with an empty cache samples the same tokens.
  auto fresh = Open();
  auto c = Collect(*fresh, second);
  ASSERT_TRUE(c.status.ok());
  EXPECT_EQ(FinishStep(c).tokens, fb.tokens);
}

TEST_F(RandomWeightQwen3Embedded, CancellingOneConcurrentStepLeavesTheOthers) {
  auto provider = Open(4);
  ASSERT_NE(provider, nullptr);
  auto requests = ChatRequests(4, 12);
  requests[1].max_tokens = 200;
  requests[1].temperature = 1.0;
  requests[1].seed = 3;
  std::vector<CancelToken> cancels(4);
  auto steps =
      RunConcurrently(*provider, requests, cancels, [&](size_t i, const formats::StreamPart& p) {
        if (i == 1 && p.type != PartType::kStartStep) cancels[1].Cancel();
      });
  for (size_t i = 0; i < steps.size(); ++i) {
    SCOPED_TRACE("step " + std::to_string(i));
    ExpectWellFormedStep(steps[i].parts);
    if (i == 1) {
      ASSERT_FALSE(steps[i].status.ok());
      EXPECT_EQ(steps[i].status.error().code, "model.cancelled");
      EXPECT_EQ(steps[i].parts.back().type, PartType::kAbort);
      EXPECT_LT(steps[i].parts.size(), 10u);
    } else {
      ASSERT_TRUE(steps[i].status.ok()) << steps[i].status.error().ToString();
      EXPECT_EQ(steps[i].parts.back().type, PartType::kFinish);
    }
  }
  // Its slot was freed: the provider serves more steps.
  auto again = Collect(*provider, requests[0]);
  EXPECT_TRUE(again.status.ok());
}

TEST_F(RandomWeightQwen3Embedded, BadRequestInAConcurrentBatchFailsOnlyThatStep) {
  auto provider = Open(4);
  ASSERT_NE(provider, nullptr);
  auto requests = ChatRequests(4, 8);
  requests[2].prompt.push_back(99999999);
  auto steps = RunConcurrently(*provider, requests);
  for (size_t i = 0; i < steps.size(); ++i) {
    SCOPED_TRACE("step " + std::to_string(i));
    ExpectWellFormedStep(steps[i].parts);
    if (i == 2) {
      ASSERT_FALSE(steps[i].status.ok());
      EXPECT_EQ(steps[i].status.error().code, "model.bad_request");
      EXPECT_EQ(steps[i].parts.back().type, PartType::kError);
    } else {
      EXPECT_TRUE(steps[i].status.ok()) << steps[i].status.error().ToString();
    }
  }
}

TEST_F(RandomWeightQwen3Embedded, ContextOverflowIsCheckedPerSequence) {
  // 2048 tokens shared by 4 sequences: 512 each.
  auto provider = Open(4);
  ASSERT_NE(provider, nullptr);
  StepRequest r;
  r.prompt = {1, 2, 3};
  r.max_tokens = 600;
  auto s = Collect(*provider, r);
  ASSERT_FALSE(s.status.ok());
  EXPECT_EQ(s.status.error().code, "model.context_overflow");
  EXPECT_THAT(s.status.error().ToString(), ::testing::HasSubstr("3 + 600 > 512"));
}

TEST_F(RandomWeightQwen3Embedded, DestroyingTheProviderEndsQueuedAndRunningSteps) {
  auto provider = Open(2);
  ASSERT_NE(provider, nullptr);
  auto requests = ChatRequests(5, 200);
  std::vector<CollectedStep> steps(requests.size());
  std::vector<int> done_calls(requests.size(), 0);
  for (size_t i = 0; i < requests.size(); ++i) {
    provider->StreamAsync(
        requests[i], [&, i](const formats::StreamPart& p) { steps[i].parts.push_back(p); },
        CancelToken(),
        [&, i](Status s) {
          steps[i].status = std::move(s);
          ++done_calls[i];
        });
  }
  provider.reset();  // joins the engine thread: every step has ended
  int stopped = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    SCOPED_TRACE("step " + std::to_string(i));
    EXPECT_EQ(done_calls[i], 1);
    ExpectWellFormedStep(steps[i].parts);
    if (!steps[i].status.ok()) {
      EXPECT_EQ(steps[i].status.error().code, "model.stopping");
      ++stopped;
    }
  }
  EXPECT_GE(stopped, 1) << "five 200-token steps cannot all finish before the provider goes";
}

}  // namespace
}  // namespace affordance::model::testing
