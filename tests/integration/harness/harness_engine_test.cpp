// The harness loop against real engines: embedded llama.cpp and the real llama-server, both on a
// random-weight model with the real Qwen3 vocabulary (generated at test time; no weights exist
// here). A grammar constrains the random output to valid tool calls, so real prompt IDs reach a
// real engine over several steps and every call runs through the loop. Meaning is not asserted
// (the weights are random): the tests assert the loop's contract and the prefix cache.
#include "harness/turn_service.h"
#include "llama_server.h"
#include "model/http_provider.h"
#include "model/llama_provider.h"
#include "random_gguf.h"
#include "support.h"

#include <gmock/gmock.h>

#include <atomic>
#include <condition_variable>
#include <thread>

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

// Eight turns at once through the turn service on two runtimes, against a real engine: a
// SessionFactory as `affordance serve` builds one, with one shared provider.
struct ConcurrentTurns {
  TempDir dir;
  std::unique_ptr<SessionFactory> factory;
  std::unique_ptr<TurnService> service;
  std::vector<std::string> threads;
  std::vector<Result<TurnReport>> reports;

  explicit ConcurrentTurns(std::function<Result<std::unique_ptr<model::Provider>>()> provider) {
    auto store = store::OpenSqlite(dir / "affordance.db");
    EXPECT_TRUE(store.ok());
    SessionRecipe recipe;
    recipe.frame.views_root = Source("views");
    recipe.frame.model = kQwen;
    recipe.frame.tokenizer = Tokenizer();
    recipe.frame.work_dir = dir / "frames";
    recipe.options = EngineOptions().harness;
    recipe.options.stop.max_steps = 2;
    recipe.options.max_tokens = 32;
    recipe.options.clock = [] { return kNow; };
    recipe.provider = [provider](size_t) { return provider(); };
    factory = std::make_unique<SessionFactory>(std::move(*store), std::move(recipe));
    auto s = TurnService::Create(*factory, {.runtimes = 2});
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().ToString());
    service = std::move(*s);
  }

  // Starts `n` turns at once (one thread each) and waits for them; `poll` runs meanwhile.
  void Run(int n, const std::function<void()>& poll) {
    std::mutex mu;
    std::condition_variable cv;
    int ended = 0;
    reports.clear();
    reports.resize(static_cast<size_t>(n), MakeError("test.pending", "not ended"));
    for (int i = 0; i < n; ++i) {
      if (static_cast<int>(threads.size()) <= i) {
        auto t = factory->store().CreateThread("");
        ASSERT_TRUE(t.ok());
        threads.push_back(t->id);
      }
      service->Start({threads[i], "Which components show a table?"}, nullptr, {},
                     [&, i](Result<TurnReport> r) {
                       std::lock_guard l(mu);
                       reports[static_cast<size_t>(i)] = std::move(r);
                       ++ended;
                       cv.notify_all();
                     });
    }
    std::unique_lock l(mu);
    while (ended < n) {
      l.unlock();
      poll();
      l.lock();
      cv.wait_for(l, std::chrono::milliseconds(20), [&] { return ended == n; });
    }
  }
};

TEST(RandomWeightQwen3LlamaServerService, EightConcurrentTurnsAreBatchedByTheEngine) {
  auto& server = model::testing::LlamaServer::Get(4);
  ASSERT_TRUE(server.ready()) << server.failure();
  ConcurrentTurns turns([&]() -> Result<std::unique_ptr<model::Provider>> {
    model::HttpProviderOptions ho;
    ho.base_url = server.url();
    ho.extra_body = {{"cache_prompt", true}};
    auto p = model::HttpProvider::Create(ho);
    if (!p) return p.error();
    return std::unique_ptr<model::Provider>(std::move(*p));
  });
  // The engine's own slot metrics: how many of its 4 slots were processing at once.
  httplib::Client client(server.url());
  int most_processing = 0;
  auto poll = [&] {
    auto res = client.Get("/slots");
    if (!res || res->status != 200) return;
    auto slots = nlohmann::json::parse(res->body, nullptr, false);
    if (!slots.is_array()) return;
    int processing = 0;
    for (const auto& slot : slots) processing += slot.value("is_processing", false) ? 1 : 0;
    most_processing = std::max(most_processing, processing);
  };
  turns.Run(8, poll);
  for (const auto& r : turns.reports) {
    ASSERT_TRUE(r.ok()) << r.error().ToString();
    EXPECT_EQ(TurnStatusName(r->status), "step_limit") << r->ToJson().dump().substr(0, 2000);
    for (const auto& step : r->ledger) EXPECT_EQ(step.end, StepEntry::End::kFinished);
  }
  EXPECT_GE(most_processing, 2) << "llama-server never ran two of the turns' steps at once";
  // A second turn on each thread: the cached prompt tokens are llama-server's own count
  // (timings.cache_n), and each thread's prefix is still in the engine's slots.
  turns.Run(8, [] {});
  int64_t cached = 0;
  for (const auto& r : turns.reports) {
    ASSERT_TRUE(r.ok()) << r.error().ToString();
    for (const auto& step : r->ledger) cached += step.cached_prompt_tokens;
  }
  EXPECT_GT(cached, 0);
  std::printf(
      "llama-server --parallel 4: at most %d slots processing at once; %lld cached "
      "prompt tokens reported over the second turns\n",
      most_processing, static_cast<long long>(cached));
}

TEST(RandomWeightQwen3EmbeddedService, EightConcurrentTurnsShareOneContextInBatches) {
  if (!model::LlamaProvider::Available()) GTEST_SKIP() << "built without AFFORDANCE_LLAMA";
  auto gguf = model::testing::RandomQwen3Gguf();
  ASSERT_TRUE(gguf.ok()) << gguf.error().ToString();
  model::LlamaProvider* engine = nullptr;
  ConcurrentTurns turns([&]() -> Result<std::unique_ptr<model::Provider>> {
    model::LlamaProviderOptions lo;
    lo.model_path = *gguf;
    lo.context_tokens = 4 * 4096;
    lo.parallel = 4;
    lo.threads = 1;
    auto p = model::LlamaProvider::Open(Tokenizer(), lo);
    if (!p) return p.error();
    engine = p->get();
    return std::unique_ptr<model::Provider>(std::move(*p));
  });
  ASSERT_NE(engine, nullptr);
  turns.Run(8, [] {});
  for (const auto& r : turns.reports) {
    ASSERT_TRUE(r.ok()) << r.error().ToString();
    EXPECT_EQ(TurnStatusName(r->status), "step_limit") << r->ToJson().dump().substr(0, 2000);
    for (const auto& step : r->ledger) EXPECT_EQ(step.end, StepEntry::End::kFinished);
  }
  EXPECT_GE(engine->max_batched_sequences(), 2);
}

}  // namespace
}  // namespace affordance::harness::testing
