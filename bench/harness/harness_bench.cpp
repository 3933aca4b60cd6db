// The harness loop's own cost and its prefix reuse (docs/BENCHMARKS.md, `## harness`).
//
//   cmake --build --preset release --target harness_bench
//   build-release/bench/harness/harness_bench
//
// BM_LoopStep: one turn of 10 steps (9 ListComponents calls, then prose) on a thread whose frame
// is about 4,000 tokens. Inference is excluded: the replay provider streams each step's ~25
// tokens through the real output parser (a stand-in for the model, microseconds). Per step:
// transcript + frame render + adapter + store writes + tool dispatch. Counters: p50_us, p99_us,
// frame_tokens, frame_render_p50_us.
// BM_PrefixReuse*: the same 10-step turn on embedded llama.cpp with a random-weight model of the
// real Qwen3 vocabulary (a grammar keeps it to valid calls): cached prompt tokens / prompt tokens
// between steps, across turns, and with a mounted app that re-renders after every action.
#include "harness/frame.h"
#include "harness/frame_text.h"
#include "harness/harness.h"
#include "model/llama_provider.h"
#include "model/replay_provider.h"
#include "store/store.h"
#include "text/tokenizer.h"

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>

#if __has_include("random_gguf.h")
#include "random_gguf.h"
#define HAVE_RANDOM_GGUF 1
#endif

namespace affordance::harness {
namespace {

using Clock = std::chrono::steady_clock;
const char* kModel = "Qwen__Qwen3-4B-Instruct-2507";

std::shared_ptr<const text::Tokenizer> Tok() {
  static auto t = *text::LoadModel(kModel);
  return t;
}

std::string TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "affordance-bench-XXXXXX");
  return mkdtemp(pattern.data());
}

std::string CallText(const std::string& name) {
  return "<tool_call>\n{\"name\": \"ListComponents\", \"arguments\": {\"names\": [\"" + name +
         "\"]}}\n</tool_call>";
}

// Seeds `thread` with earlier turns until its frame is about `tokens` long: what a thread with
// some history looks like (user questions, answers as sampled IDs).
void SeedHistory(store::Store& store, const std::string& thread, int turns) {
  auto tok = Tok();
  std::string answer;
  for (int i = 0; i < 40; ++i) {
    answer += "Item " + std::to_string(i) + " of the plan is to review the calendar and confirm. ";
  }
  auto ids = *tok->Encode(answer);
  for (int t = 0; t < turns; ++t) {
    auto u = *store.AddMessage(thread, "user", "complete", nlohmann::json::object());
    (void)store.PutPart(u.id, {0,
                               -1,
                               "reality",
                               "",
                               "persisted",
                               false,
                               {{"text",
                                 "<reality>\nlocal time: 2026-11-27T12:00:00Z (Friday)\n"
                                 "connectors: none ready\n</reality>"}}});
    (void)store.PutPart(u.id, {1,
                               -1,
                               "text",
                               "",
                               "persisted",
                               false,
                               {{"text", "What is step " + std::to_string(t) + " of the plan?"}}});
    auto a = *store.AddMessage(thread, "assistant", "complete", {{"status", "answered"}});
    store::StepRecord s;
    s.status = "finished";
    s.tokens.assign(ids.begin(), ids.end());
    (void)store.PutStep(a.id, s);
    (void)store.PutPart(a.id, {0, 0, "text", "s0-t0", "emitted", false, {{"text", answer}}});
  }
}

struct Rig {
  std::string dir = TempDir();
  std::unique_ptr<store::Store> store = store::OpenSqlite(dir + "/affordance.db").value();
  std::unique_ptr<model::Provider> provider;
  std::unique_ptr<Frame> frame;
  std::unique_ptr<Harness> harness;

  Rig(std::unique_ptr<model::Provider> p, std::vector<MountedApp> apps = {}, HarnessOptions ho = {})
      : provider(std::move(p)) {
    FrameOptions fo;
    fo.views_root = std::string(AFFORDANCE_SOURCE_DIR) + "/views";
    fo.model = kModel;
    fo.tokenizer = Tok();
    fo.apps = std::move(apps);
    fo.work_dir = dir + "/frames";
    frame = Frame::Load(fo).value();
    ho.clock = [] { return int64_t{1795780800}; };
    harness = std::make_unique<Harness>(*store, *provider, *frame, nullptr, ho);
  }
  ~Rig() {
    harness.reset();
    std::filesystem::remove_all(dir);
  }
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

void BM_LoopStep(benchmark::State& state) {
  const char* names[] = {"Col",   "Card", "Table",  "Stack",  "Button",
                         "Input", "Form", "Select", "Callout"};
  nlohmann::json steps = nlohmann::json::array();
  for (int i = 0; i < 2000; ++i) {
    for (int k = 0; k < 9; ++k) steps.push_back(CallText(names[k]));
    steps.push_back("Those are the components.");
  }
  auto script =
      *model::ParseReplayScript(nlohmann::json{{"format", "qwen3"}, {"steps", steps}}.dump());
  Rig rig(model::ReplayProvider::Create(Tok(), script).value());
  auto thread = *rig.store->CreateThread("bench");
  SeedHistory(*rig.store, thread.id, 4);
  std::vector<double> step_us;
  int64_t tokens = 0;
  for (auto _ : state) {
    Clock::time_point last;
    auto report = rig.harness->RunTurn(
        thread.id, "Which components are there?",
        [&](const Event& e) {
          if (e.kind == harness::EventKind::kStart) last = Clock::now();
          if (e.kind == harness::EventKind::kFinishStep) {
            auto now = Clock::now();
            step_us.push_back(std::chrono::duration<double, std::micro>(now - last).count());
            last = now;
          }
        },
        model::CancelToken());
    if (!report.ok() || report->ledger.size() != 10) {
      state.SkipWithError("the turn did not run 10 steps");
      return;
    }
    tokens = report->audits.back().total;
    // Keep the frame at the same size: drop the turn just measured.
    state.PauseTiming();
    auto messages = *rig.store->LoadThread(thread.id);
    (void)rig.store->DeleteThread(thread.id);
    thread = *rig.store->CreateThread("bench");
    SeedHistory(*rig.store, thread.id, 4);
    state.ResumeTiming();
  }
  state.counters["p50_us"] = Percentile(step_us, 0.50);
  state.counters["p99_us"] = Percentile(step_us, 0.99);
  state.counters["frame_tokens"] = static_cast<double>(tokens);
  state.counters["steps"] = static_cast<double>(step_us.size());
}
BENCHMARK(BM_LoopStep)->Unit(benchmark::kMillisecond)->Iterations(30);

// The frame render alone (head + a ~4,000-token transcript), warm.
void BM_FrameRender4k(benchmark::State& state) {
  auto script = *model::ParseReplayScript(R"({"format":"qwen3","steps":["x"]})");
  Rig rig(model::ReplayProvider::Create(Tok(), script).value());
  auto thread = *rig.store->CreateThread("bench");
  SeedHistory(*rig.store, thread.id, 4);
  auto transcript = rig.harness->Transcript(*rig.store->LoadThread(thread.id));
  nlohmann::ordered_json tools = nlohmann::ordered_json::array();
  for (const Tool* t : rig.harness->registry().Resident()) tools.push_back(t->spec().ToJson());
  int64_t n = 0;
  std::vector<double> us;
  for (auto _ : state) {
    auto start = Clock::now();
    auto prompt = rig.frame->Render(HeadText(), tools, transcript);
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    n = static_cast<int64_t>(prompt->tokens.size());
    benchmark::DoNotOptimize(prompt);
  }
  state.counters["frame_tokens"] = static_cast<double>(n);
  state.counters["p50_us"] = Percentile(us, 0.5);
  state.counters["p99_us"] = Percentile(us, 0.99);
}
BENCHMARK(BM_FrameRender4k)->Unit(benchmark::kMicrosecond);

#ifdef HAVE_RANDOM_GGUF
// Cached prompt tokens / prompt tokens on embedded llama.cpp over 10-step turns.
void PrefixReuse(benchmark::State& state, bool app) {
  if (!model::LlamaProvider::Available()) {
    state.SkipWithError("built without AFFORDANCE_LLAMA");
    return;
  }
  auto gguf = model::testing::RandomQwen3Gguf();
  model::LlamaProviderOptions lo;
  lo.model_path = *gguf;
  lo.context_tokens = 16384;
  HarnessOptions ho;
  ho.stop.max_steps = 10;
  ho.max_tokens = 48;
  std::vector<MountedApp> apps;
  if (app) {
    MountedApp notebook;
    notebook.name = "notebook";
    notebook.view = std::string(AFFORDANCE_SOURCE_DIR) + "/views/demo/notebook_app.tsx";
    notebook.component = "Notebook";
    notebook.props = {{"numbers", {919, 838, 757, 676, 595, 514, 433, 352, 271, 190, 109, 28}},
                      {"budget", 24}};
    apps.push_back(notebook);
    ho.grammar =
        "root ::= \"<tool_call>\\n{\\\"name\\\": \\\"scroll__numbers\\\", \\\"arguments\\\": "
        "{\\\"offset\\\": \" [0-9] \"}}\\n</tool_call>\"\n";
  } else {
    ho.grammar =
        "root ::= \"<tool_call>\\n{\\\"name\\\": \\\"ListComponents\\\", \\\"arguments\\\": "
        "{\\\"names\\\": [\\\"\" name \"\\\"]}}\\n</tool_call>\"\n"
        "name ::= \"Table\" | \"Card\" | \"Col\" | \"Stack\"\n";
  }
  double within = 0, across = 0, first_prompt = 0, kept = 0, of_previous = 0;
  for (auto _ : state) {
    Rig rig(model::LlamaProvider::Open(Tok(), lo).value(), apps, ho);
    auto thread = *rig.store->CreateThread("bench");
    SeedHistory(*rig.store, thread.id, static_cast<int>(state.range(0)));
    int64_t prompt = 0, cached = 0, reusable = 0, previous = 0;
    for (int turn = 0; turn < 2; ++turn) {
      auto report = *rig.harness->RunTurn(thread.id, "Go on.", {}, model::CancelToken());
      for (size_t i = 0; i < report.ledger.size(); ++i) {
        const auto& s = report.ledger[i];
        // What the engine already held: the previous prompt and the tokens it sampled (all but
        // the last, which ends generation without being evaluated).
        if (i > 0) {
          const auto& p = report.ledger[i - 1];
          reusable += p.prompt_tokens + p.generated_tokens - 1;
        }
        if (turn == 0 && i == 0) {
          first_prompt = static_cast<double>(s.prompt_tokens);
          continue;
        }
        if (turn == 1 && i == 0) {
          across =
              static_cast<double>(s.cached_prompt_tokens) / static_cast<double>(s.prompt_tokens);
          continue;
        }
        prompt += s.prompt_tokens;
        cached += s.cached_prompt_tokens;
        previous += report.ledger[i - 1].prompt_tokens;
      }
    }
    within = static_cast<double>(cached) / static_cast<double>(prompt);
    kept = static_cast<double>(cached) / static_cast<double>(reusable);
    of_previous = static_cast<double>(cached) / static_cast<double>(previous);
  }
  // Cached tokens / the previous step's prompt (steps 2-10): how much of the last prompt the
  // engine did not evaluate again (can pass 100%: the sampled call is cached too).
  state.counters["previous_reused_pct"] = of_previous * 100;
  state.counters["prefix_kept_pct"] = kept * 100;
  state.counters["reuse_between_steps_pct"] = within * 100;
  state.counters["reuse_across_turns_pct"] = across * 100;
  state.counters["first_frame_tokens"] = first_prompt;
}
void BM_PrefixReuse(benchmark::State& state) { PrefixReuse(state, false); }
void BM_PrefixReuseAppRerenders(benchmark::State& state) { PrefixReuse(state, true); }
// Arg: earlier turns in the thread (4: a frame of about 4,000 tokens; 10: about 8,000).
BENCHMARK(BM_PrefixReuse)->Unit(benchmark::kSecond)->Iterations(1)->Arg(4)->Arg(10);
BENCHMARK(BM_PrefixReuseAppRerenders)->Unit(benchmark::kSecond)->Iterations(1)->Arg(4)->Arg(10);
#endif

}  // namespace
}  // namespace affordance::harness

BENCHMARK_MAIN();
