// The harness loop against real engines: embedded llama.cpp and the real llama-server, both on a
// random-weight model with the real Qwen3 vocabulary (generated at test time; no weights exist
// here). A grammar constrains the random output to valid tool calls, so real prompt IDs reach a
// real engine over several steps and every call runs through the loop. Meaning is not asserted
// (the weights are random): the tests assert the loop's contract and the prefix cache.
#include "llama_server.h"
#include "model/http_provider.h"
#include "model/llama_provider.h"
#include "random_gguf.h"
#include "support.h"

#include <gmock/gmock.h>

namespace affordance::harness::testing {
namespace {

const char* kCallsOnly =
    "root ::= \"<tool_call>\\n{\\\"name\\\": \\\"ListComponents\\\", \\\"arguments\\\": "
    "{\\\"names\\\": [\\\"\" name \"\\\"]}}\\n</tool_call>\"\n"
    "name ::= \"Table\" | \"Card\" | \"Col\" | \"Stack\"\n";

Rig::Options EngineOptions() {
  Rig::Options o;
  o.harness.stop.max_steps = 4;
  o.harness.max_tokens = 48;
  o.harness.grammar = kCallsOnly;
  return o;
}

void ExpectSeveralRealSteps(const TurnReport& report) {
  EXPECT_EQ(report.status, TurnStatus::kStepLimit);
  ASSERT_EQ(report.ledger.size(), 4u);
  for (const auto& step : report.ledger) {
    EXPECT_EQ(step.end, StepEntry::End::kFinished) << step.error_code << " " << step.error_text;
    ASSERT_EQ(step.calls.size(), 1u);
    EXPECT_EQ(step.calls[0].name, "ListComponents");
    EXPECT_EQ(step.calls[0].outcome, CallEntry::Outcome::kOk);
    EXPECT_GT(step.generated_tokens, 10);
  }
}

TEST(RandomWeightQwen3EmbeddedHarness, LoopRunsRealPromptIdsOverSeveralStepsAndReusesThePrefix) {
  if (!model::LlamaProvider::Available()) GTEST_SKIP() << "built without AFFORDANCE_LLAMA";
  auto gguf = model::testing::RandomQwen3Gguf();
  ASSERT_TRUE(gguf.ok()) << gguf.error().ToString();
  model::LlamaProviderOptions lo;
  lo.model_path = *gguf;
  lo.context_tokens = 8192;
  auto provider = model::LlamaProvider::Open(Tokenizer(), lo);
  ASSERT_TRUE(provider.ok()) << provider.error().ToString();
  model::LlamaProvider* engine = provider->get();
  Rig rig(std::move(*provider), EngineOptions());
  auto report = rig.Turn("Which components show a table?");
  ASSERT_TRUE(report.ok()) << report.error().ToString();
  ExpectSeveralRealSteps(*report);
  // Each step's prompt extends the previous one: the KV cache holds all of it but the new tool
  // result (the sampled tokens were evaluated when they were generated).
  for (size_t i = 1; i < report->ledger.size(); ++i) {
    const auto& prev = report->ledger[i - 1];
    const auto& step = report->ledger[i];
    EXPECT_GE(step.cached_prompt_tokens, prev.prompt_tokens + prev.generated_tokens - 1) << i;
    EXPECT_GT(static_cast<double>(step.cached_prompt_tokens) / step.prompt_tokens, 0.9) << i;
  }
  // The frames it rendered are what the engine holds.
  auto thread = rig.store->LoadThread(rig.thread);
  ASSERT_TRUE(thread.ok());
  EXPECT_FALSE(engine->cached_tokens().empty());
  // A second turn keeps the first turn's tokens: its first step reuses at least all of them.
  auto second = rig.Turn("And a card?");
  ASSERT_TRUE(second.ok());
  EXPECT_GE(second->ledger[0].cached_prompt_tokens,
            report->ledger.back().prompt_tokens + report->ledger.back().generated_tokens - 1);
}

TEST(RandomWeightQwen3LlamaServerHarness, LoopRunsRealPromptIdsOverSeveralSteps) {
  auto& server = model::testing::LlamaServer::Get();
  ASSERT_TRUE(server.ready()) << server.failure();
  model::HttpProviderOptions ho;
  ho.base_url = server.url();
  ho.extra_body = {{"n_probs", 1}, {"cache_prompt", true}};
  auto provider = model::HttpProvider::Create(ho);
  ASSERT_TRUE(provider.ok());
  Rig rig(std::move(*provider), EngineOptions());
  auto report = rig.Turn("Which components show a table?");
  ASSERT_TRUE(report.ok()) << report.error().ToString();
  ExpectSeveralRealSteps(*report);
  // llama-server reported the sampled IDs, and the next frame re-emitted them verbatim.
  auto thread = rig.store->LoadThread(rig.thread);
  ASSERT_TRUE(thread.ok());
  const auto& steps = (*thread)[1].steps;
  for (const auto& s : steps) EXPECT_FALSE(s.tokens.empty());
  EXPECT_GT(report->ledger.back().cached_prompt_tokens, 0);
}

}  // namespace
}  // namespace affordance::harness::testing
