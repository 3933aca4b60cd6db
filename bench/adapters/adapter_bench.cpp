// adapter_bench: the notebook demo (views/demo) rendered native and wrapped in Qwen3App with the
// real Qwen3 tokenizer. Measures cold render (loaded view, no caches: every component called,
// every run encoded), warm render (component reuse on, outer RunCache on, so the view's projection
// cache too; the same state, and a new question each time), act + re-render, and load + first
// render. Checks IDs:
// the native app's tokens are the wrapped prompt's last user turn, and the wrapped prompt equals
// what the official template rendered by @huggingface/jinja and tokenized by the HF tokenizer
// gives for the same conversation, which this program also times (bench/adapters/jinja_peer.mjs,
// same run) and compares as a ratio. Timings exclude model inference. CPU time is compared
// (the machine is shared).
//
//   ./build/bench/adapters/adapter_bench [--benchmark_filter=...]
#include "render/renderer.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

namespace affordance::render {
namespace {

const std::string kRoot = AFFORDANCE_SOURCE_DIR;
const char* kModel = "Qwen__Qwen3-4B-Instruct-2507";

// Every benchmark runs 5 repetitions; the table shows their median and minimum, and the ratios
// below compare both with the peer's median and minimum over as many batches: the minimum is the
// cost with the least interference from other work on a shared machine, the median the usual one.
constexpr int kRepetitions = 5;
double MinOf(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }
void Repeated(benchmark::internal::Benchmark* b) {
  b->Repetitions(kRepetitions)->ComputeStatistics("min", MinOf)->DisplayAggregatesOnly(true);
}

nlohmann::json State() {
  std::ifstream in(kRoot + "/views/demo/notebook_state.json");
  std::stringstream s;
  s << in.rdbuf();
  return nlohmann::json::parse(s.str());
}

std::unique_ptr<Renderer> Load(const std::string& file, const std::string& entry,
                               bool reuse_components = true) {
  view::ViewOptions o;
  o.lib_root = kRoot + "/views/lib";
  o.reuse_components = reuse_components;
  auto r = Renderer::Load(kRoot + "/" + file, entry, kModel, o);
  if (!r.ok()) {
    fprintf(stderr, "load %s: %s\n", file.c_str(), r.error().ToString().c_str());
    std::exit(1);
  }
  return std::move(r).value();
}

void Check(const Result<Block>& b) {
  if (!b.ok()) {
    fprintf(stderr, "render: %s\n", b.error().ToString().c_str());
    std::exit(1);
  }
}

// Share of the last render's wall time by stage (src/view vs src/render), as counters.
void ReportStages(Renderer& r, benchmark::State& state) {
  const auto& t = r.profile();
  const double total = static_cast<double>(t.view_ns + t.projection_ns + t.layout_ns);
  state.counters["view%"] = 100.0 * t.view_ns / total;
  state.counters["projection%"] = 100.0 * t.projection_ns / total;
  state.counters["layout%"] = 100.0 * t.layout_ns / total;
}

void BM_NativeCold(benchmark::State& state) {
  auto r = Load("views/demo/notebook_app.tsx", "Notebook", /*reuse_components=*/false);
  const auto props = State();
  for (auto _ : state) {
    auto b = r->Render(props);
    Check(b);
    benchmark::DoNotOptimize(b);
  }
}
BENCHMARK(BM_NativeCold)->Unit(benchmark::kMicrosecond)->Apply(Repeated);

void BM_WrappedCold(benchmark::State& state) {
  auto r = Load("views/demo/notebook_chat.tsx", "NotebookChat", /*reuse_components=*/false);
  const auto props = State();
  for (auto _ : state) {
    auto b = r->Render(props);
    Check(b);
    benchmark::DoNotOptimize(b);
  }
}
BENCHMARK(BM_WrappedCold)->Unit(benchmark::kMicrosecond)->Apply(Repeated);

void BM_WrappedWarm(benchmark::State& state) {
  auto r = Load("views/demo/notebook_chat.tsx", "NotebookChat");
  const auto props = State();
  RunCache outer(r->tokenizer());
  Check(r->Render(props, &outer));
  for (auto _ : state) {
    auto b = r->Render(props, &outer);
    Check(b);
    benchmark::DoNotOptimize(b);
  }
  const auto& p = r->projection_cache_stats();
  state.counters["proj_hit%"] = 100.0 * p.hits / std::max<uint64_t>(1, p.hits + p.misses);
  ReportStages(*r, state);
}
BENCHMARK(BM_WrappedWarm)->Unit(benchmark::kMicrosecond)->Apply(Repeated);

// A new question per render: the root and the wrapper are called again and lay out the app, whose
// own output is replayed (its props did not change).
void BM_WrappedWarmNewQuestion(benchmark::State& state) {
  auto r = Load("views/demo/notebook_chat.tsx", "NotebookChat");
  auto props = State();
  RunCache outer(r->tokenizer());
  Check(r->Render(props, &outer));
  std::vector<std::string> questions;
  for (int i = 0; i < 64; ++i) questions.push_back("question number " + std::to_string(i) + "?");
  size_t i = 0;
  for (auto _ : state) {
    props["question"] = questions[i++ % questions.size()];
    auto b = r->Render(props, &outer);
    Check(b);
    benchmark::DoNotOptimize(b);
  }
  const auto s = r->view().Stats();
  state.counters["called"] = static_cast<double>(s.components_called);
  state.counters["replayed"] = static_cast<double>(s.components_replayed);
  ReportStages(*r, state);
}
BENCHMARK(BM_WrappedWarmNewQuestion)->Unit(benchmark::kMicrosecond)->Apply(Repeated);

void BM_ActAndReRender(benchmark::State& state) {
  auto r = Load("views/demo/notebook_chat.tsx", "NotebookChat");
  RunCache outer(r->tokenizer());
  Check(r->Render(State(), &outer));
  int i = 0;
  for (auto _ : state) {
    auto b = r->Act({{"name", (i % 2) ? "change__notes" : "scroll__numbers"},
                     {"arguments", (i % 2) ? nlohmann::json{{"value", "n" + std::to_string(i)}}
                                           : nlohmann::json{{"offset", i % 190}}}},
                    &outer);
    ++i;
    Check(b);
    benchmark::DoNotOptimize(b);
  }
  // IDs: the incremental re-render equals a cold render (no reuse, no caches) of a fresh view
  // restored to the same hook state.
  auto snapshot = r->view().SnapshotState();
  auto fresh = Load("views/demo/notebook_chat.tsx", "NotebookChat", /*reuse_components=*/false);
  if (!snapshot.ok() || !fresh->view().RestoreState(*snapshot).ok()) {
    fprintf(stderr, "act: cannot snapshot and restore the acted state\n");
    std::exit(1);
  }
  auto cold = fresh->Render(State());
  Check(cold);
  if (cold->tokens != r->last().tokens) {
    fprintf(stderr, "act: the re-render's IDs differ from a cold render of the same state\n");
    std::exit(1);
  }
  const auto s = r->view().Stats();
  state.counters["called"] = static_cast<double>(s.components_called);
  state.counters["rows_reused"] = static_cast<double>(s.children_reused);
}
BENCHMARK(BM_ActAndReRender)->Unit(benchmark::kMicrosecond)->Apply(Repeated);

void BM_LoadAndFirstRender(benchmark::State& state) {
  const auto props = State();
  for (auto _ : state) {
    auto r = Load("views/demo/notebook_chat.tsx", "NotebookChat");
    auto b = r->Render(props);
    Check(b);
    benchmark::DoNotOptimize(b);
  }
}
BENCHMARK(BM_LoadAndFirstRender)->Unit(benchmark::kMillisecond)->Apply(Repeated);

// Keeps CPU ns per iteration for the ratios printed after the table: per benchmark, its "median"
// and "min" over the repetitions (a single run counts as both).
class Capture : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& r : runs) {
      const double ns = r.GetAdjustedCPUTime() * (r.time_unit == benchmark::kMicrosecond   ? 1e3
                                                  : r.time_unit == benchmark::kMillisecond ? 1e6
                                                                                           : 1.0);
      const std::string name = r.run_name.function_name;
      if (r.run_type == Run::RT_Iteration && r.repetitions <= 1) {
        cpu_ns[name]["median"] = ns;
        cpu_ns[name]["min"] = ns;
      } else if (r.run_type == Run::RT_Aggregate &&
                 (r.aggregate_name == "median" || r.aggregate_name == "min")) {
        cpu_ns[name][r.aggregate_name] = ns;
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, std::map<std::string, double>> cpu_ns;
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int Compare(const Capture& capture) {
  auto native = Load("views/demo/notebook_app.tsx", "Notebook");
  auto wrapped = Load("views/demo/notebook_chat.tsx", "NotebookChat");
  const auto props = State();
  auto n = native->Render(props);
  auto w = wrapped->Render(props);
  Check(n);
  Check(w);
  const size_t suffix = 5;  // <|im_end|> \n <|im_start|> assistant \n
  const bool native_in_wrapped =
      w->tokens.size() > n->tokens.size() + suffix &&
      std::equal(n->tokens.begin(), n->tokens.end(), w->tokens.end() - suffix - n->tokens.size());
  printf("\nID check: native app tokens are the wrapped prompt's last user turn: %s\n",
         native_in_wrapped ? "yes" : "NO");

  // The same conversation for the official template.
  auto body = native->tokenizer().Decode(n->tokens);
  const nlohmann::json config =
      nlohmann::json::parse(Slurp(kRoot + "/models/" + kModel + "/tokenizer_config.json"));
  // Ordered: the template prints the tool objects' keys in the order it is given them.
  nlohmann::ordered_json request = {{"tokenizer", kRoot + "/models/" + kModel + "/tokenizer.json"},
                                    {"template", config["chat_template"]},
                                    {"iterations", 150},
                                    {"batches", kRepetitions},
                                    {"context",
                                     {{"messages",
                                       {{{"role", "user"}, {"content", props["question"]}},
                                        {{"role", "user"}, {"content", *body}}}},
                                      {"tools", w->ToolsJson()},
                                      {"add_generation_prompt", true}}}};
  const std::string req_path = "/tmp/adapter_bench_request_" + std::to_string(getpid()) + ".json";
  std::ofstream(req_path) << request.dump();
  const std::string cmd = "node '" + kRoot + "/bench/adapters/jinja_peer.mjs' '" + req_path + "'";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 65536> buf;
  size_t got;
  while (pipe && (got = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), got);
  if (pipe) pclose(pipe);
  std::remove(req_path.c_str());
  nlohmann::json peer = nlohmann::json::parse(out, nullptr, false);
  if (peer.is_discarded()) {
    printf("peer (@huggingface/jinja + HF tokenizer) did not run: %s\n", out.c_str());
    return 1;
  }
  const auto peer_ids = peer["ids"].get<std::vector<text::TokenId>>();
  const bool same = peer_ids == w->tokens;
  printf(
      "ID check: wrapped prompt == official template (@huggingface/jinja) + HF tokenizer: %s"
      " (%zu tokens)\n",
      same ? "yes" : "NO", w->tokens.size());
  if (!same) {
    size_t i = 0;
    while (i < peer_ids.size() && i < w->tokens.size() && peer_ids[i] == w->tokens[i]) ++i;
    printf("  first difference at token %zu (native run boundary; see docs/ADAPTERS.md)\n", i);
  }
  const double peer_median = peer["ns_per_op"].get<double>();
  const double peer_min = peer["min_ns_per_op"].get<double>();
  auto ratio = [&](const char* name, const char* what, double peer_ns) {
    auto it = capture.cpu_ns.find(name);
    if (it == capture.cpu_ns.end() || !it->second.contains(what)) return 0.0;
    return peer_ns / it->second.at(what);
  };
  printf(
      "peer: %.1f us CPU median, %.1f us min (%.1f us wall) per prompt (template render + "
      "tokenize, warm; %d batches); first prompt %.1f ms wall\n",
      peer_median / 1e3, peer_min / 1e3, peer["wall_ns_per_op"].get<double>() / 1e3,
      peer["batches"].get<int>(), peer["first_ns"].get<double>() / 1e6);
  printf("ratio peer/ours (median / min):\n");
  auto line = [&](const char* label, const char* name, const char* target) {
    printf("  %-26s %6.1fx / %6.1fx%s\n", label, ratio(name, "median", peer_median),
           ratio(name, "min", peer_min), target);
  };
  line("cold render:", "BM_WrappedCold", "");
  line("warm render:", "BM_WrappedWarm", "   (target >= 20x)");
  line("warm, new question:", "BM_WrappedWarmNewQuestion", "");
  line("act + re-render:", "BM_ActAndReRender", "   (target >= 10x)");
  return native_in_wrapped && same ? 0 : 1;
}

}  // namespace
}  // namespace affordance::render

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  affordance::render::Capture capture;
  benchmark::RunSpecifiedBenchmarks(&capture);
  benchmark::Shutdown();
  return affordance::render::Compare(capture);
}
