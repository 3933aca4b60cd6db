// Per-step provider overhead, excluding inference: what a step costs besides the model itself.
//   http:   a loopback server replays a ready SSE stream of N tokens instantly (no generation), so
//           the time is request + connection + SSE parsing + output parsing + part delivery.
//   replay: the same N-token turn through the real tokenizer (encode) + decoder + parser.
// Counters report per-step time and per-token cost; compare each with the inference time of the
// model the step would call (docs/BENCHMARKS.md).
//
//   cmake --build build-release --target model_provider_bench &&
//   build-release/bench/model/model_provider_bench
#include "model/http_provider.h"
#include "model/replay_provider.h"

#include <benchmark/benchmark.h>
#include <httplib.h>

#include <thread>

namespace {

using namespace affordance;

std::string TurnText(int words) {
  std::string s;
  for (int i = 0; i < words; ++i) s += "word" + std::to_string(i % 50) + " ";
  return s + "\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"q\": \"x\"}}\n</tool_call>";
}

void BM_HttpStep(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::string body;
  for (int i = 0; i < n; ++i) {
    nlohmann::json c = {{"choices",
                         {{{"index", 0},
                           {"text", "w" + std::to_string(i % 10) + " "},
                           {"finish_reason", nullptr}}}}};
    body += "data: " + c.dump() + "\n\n";
  }
  body += "data: " +
          nlohmann::json({{"choices", {{{"index", 0}, {"text", ""}, {"finish_reason", "stop"}}}}})
              .dump() +
          "\n\ndata: [DONE]\n\n";
  httplib::Server server;
  server.Post("/v1/completions", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(body, "text/event-stream");
  });
  int port = server.bind_to_any_port("127.0.0.1");
  std::thread t([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  auto provider =
      model::HttpProvider::Create({.base_url = "http://127.0.0.1:" + std::to_string(port)}).value();
  model::StepRequest r;
  r.prompt.assign(512, 100);
  size_t parts = 0;
  for (auto _ : state) {
    auto s = provider->Stream(
        r, [&](const formats::StreamPart&) { ++parts; }, model::CancelToken());
    if (!s.ok()) state.SkipWithError(s.error().ToString().c_str());
  }
  state.counters["tokens/step"] = n;
  state.counters["us/token"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * n,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  server.stop();
  t.join();
}
// The provider works on its own I/O thread: process CPU (that thread, the caller and the
// in-process loopback server), wall time alongside.
BENCHMARK(BM_HttpStep)
    ->Arg(1)
    ->Arg(64)
    ->Arg(512)
    ->MeasureProcessCPUTime()
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

void BM_ReplayStep(benchmark::State& state) {
  const int words = static_cast<int>(state.range(0));
  auto tok = text::LoadModel("Qwen__Qwen3-4B-Instruct-2507");
  if (!tok.ok()) {
    state.SkipWithError("no tokenizer");
    return;
  }
  model::ReplayScript script;
  script.steps.push_back({TurnText(words), false});
  int64_t tokens = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto provider = model::ReplayProvider::Create(*tok, script).value();
    state.ResumeTiming();
    Status st = provider->Stream(
        {},
        [&](const formats::StreamPart& p) {
          if (p.type == formats::PartType::kFinishStep) tokens += p.usage.generated_tokens;
        },
        model::CancelToken());
    if (!st.ok()) state.SkipWithError(st.error().message.c_str());
  }
  state.counters["tokens/step"] = static_cast<double>(tokens) / state.iterations();
  state.counters["us/token"] = benchmark::Counter(
      static_cast<double>(tokens), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ReplayStep)->Arg(1)->Arg(64)->Arg(512)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
