// The HTTP provider against the REAL llama-server (built from the same llama.cpp source by
// scripts/build-llama) on loopback, serving the random-weight Qwen3-vocabulary model
// (random_gguf.h): token-array prompts, streaming, prefix cache reporting, cancellation, a timeout.
#include "llama_server.h"
#include "model/http_provider.h"
#include "random_gguf.h"
#include "scripted_server.h"
#include "well_formed.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <thread>

extern char** environ;

namespace affordance::model::testing {
namespace {

using formats::PartType;
using namespace std::chrono_literals;

class RandomWeightQwen3LlamaServer : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(LlamaServer::Get().ready()) << LlamaServer::Get().failure();
    auto tok = text::LoadModel("Qwen__Qwen3-4B-Instruct-2507");
    ASSERT_TRUE(tok.ok());
    tokenizer_ = *tok;
  }
  std::unique_ptr<HttpProvider> Provider(std::chrono::milliseconds read_timeout = 30s) {
    HttpProviderOptions o;
    o.base_url = LlamaServer::Get().url();
    o.read_timeout = read_timeout;
    // Random weights sample arbitrary bytes; llama-server parses even /v1/completions output as
    // chat content and ends the stream with an error when the text is not valid UTF-8 (that path
    // is model.server_error, tested in http_provider_test). A grammar keeps the output ASCII so
    // these tests measure streaming, cache reuse and cancellation, not the random draw.
    o.extra_body = {{"n_probs", 1}, {"cache_prompt", true}, {"grammar", "root ::= [a-z ]*"}};
    auto p = HttpProvider::Create(o);
    EXPECT_TRUE(p.ok());
    return std::move(p).value();
  }
  std::vector<text::TokenId> Encode(const std::string& s) {
    return *tokenizer_->Encode(s, {.match_special = true});
  }
  std::shared_ptr<const text::Tokenizer> tokenizer_;
};

TEST_F(RandomWeightQwen3LlamaServer, StreamsATokenArrayPromptAndReportsCacheReuse) {
  auto provider = Provider();
  StepRequest r;
  r.prompt = Encode(
      "<|im_start|>user\nhello there, how are you today?<|im_end|>\n<|im_start|>assistant\n");
  r.max_tokens = 12;
  r.step_id = "s1-";
  auto a = Collect(*provider, r);
  ASSERT_TRUE(a.status.ok()) << a.status.error().ToString();
  ExpectWellFormedStep(a.parts);
  const auto& fa = a.parts[a.parts.size() - 2];
  EXPECT_EQ(fa.usage.prompt_tokens, static_cast<int64_t>(r.prompt.size()));
  EXPECT_GE(fa.usage.generated_tokens, 1);
  EXPECT_LE(fa.usage.generated_tokens, 12);
  EXPECT_EQ(static_cast<int64_t>(fa.tokens.size()), fa.usage.generated_tokens);
  EXPECT_THAT(a.parts.back().finish_reason, ::testing::AnyOf("stop", "length", "tool-calls"));
  // The same prompt extended: llama-server's prompt cache serves the common prefix.
  StepRequest next = r;
  next.prompt.insert(next.prompt.end(), fa.tokens.begin(), fa.tokens.end());
  auto more = Encode("<|im_end|>\n<|im_start|>user\nmore<|im_end|>\n<|im_start|>assistant\n");
  next.prompt.insert(next.prompt.end(), more.begin(), more.end());
  auto b = Collect(*provider, next);
  ASSERT_TRUE(b.status.ok()) << b.status.error().ToString();
  ExpectWellFormedStep(b.parts);
  const auto& fb = b.parts[b.parts.size() - 2];
  EXPECT_EQ(fb.usage.prompt_tokens, static_cast<int64_t>(next.prompt.size()));
  EXPECT_GE(fb.usage.cached_prompt_tokens, static_cast<int64_t>(r.prompt.size()) - 1);
  EXPECT_LT(fb.usage.cached_prompt_tokens, fb.usage.prompt_tokens);
}

TEST_F(RandomWeightQwen3LlamaServer, CancellationAbortsAndTheServerStaysUsable) {
  auto provider = Provider();
  StepRequest r;
  r.prompt = Encode("<|im_start|>user\ncount<|im_end|>\n<|im_start|>assistant\n");
  r.max_tokens = 3000;
  r.temperature = 1.0;
  r.seed = 11;
  CancelToken cancel;
  std::vector<formats::StreamPart> parts;
  auto t0 = std::chrono::steady_clock::now();
  std::thread canceller([&] {
    std::this_thread::sleep_for(150ms);
    cancel.Cancel();
  });
  auto status = provider->Stream(
      r, [&](const formats::StreamPart& p) { parts.push_back(p); }, cancel);
  canceller.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, "model.cancelled") << status.error().ToString();
  ExpectWellFormedStep(parts);
  EXPECT_EQ(parts.back().type, PartType::kAbort);
  StepRequest small = r;
  small.max_tokens = 4;
  auto after = Collect(*provider, small);
  EXPECT_TRUE(after.status.ok()) << after.status.error().ToString();
}

TEST_F(RandomWeightQwen3LlamaServer, SilenceLongerThanTheReadTimeoutIsReportedNotResent) {
  // A long prompt keeps the server busy before its first byte; 1 ms of allowed silence is less.
  auto provider = Provider(1ms);
  StepRequest r;
  std::string long_text;
  for (int i = 0; i < 300; ++i) long_text += "word" + std::to_string(i) + " ";
  r.prompt = Encode("<|im_start|>user\n" + long_text + "<|im_end|>\n<|im_start|>assistant\n");
  r.max_tokens = 64;
  auto step = Collect(*provider, r);
  ASSERT_FALSE(step.status.ok());
  EXPECT_EQ(step.status.error().code, "model.read_timeout");
  EXPECT_EQ(provider->dispatched(), 1);
  ExpectWellFormedStep(step.parts);
}

}  // namespace
}  // namespace affordance::model::testing
