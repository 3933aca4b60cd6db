// Tokenizer benchmarks (Google Benchmark), single thread:
//   Encode/<model>   encode throughput over the >= 5 MB corpus (bytes/s = input bytes)
//   EncodeMultilingual/<model>  the same over the multilingual corpus (many scripts, emoji,
//                    combining marks, code and numbers; most bytes non-ASCII), steady state
//   EncodeMultilingualFirstPass/<model>  one pass over the multilingual corpus with a freshly
//                    loaded tokenizer (its word cache empty), as in one `affordance tokenize` call
//   Decode/<model>   decode throughput (bytes/s = output bytes)
//   Load/<model>     Tokenizer::LoadDirectory (read + parse tokenizer.json), with the resident
//                    memory the process gained for one loaded tokenizer (rss_delta_MiB)
//   LoadInNewProcess/<model>  the same load as the first thing a forked child does, as in a
//                    CLI call (fresh pages to fault in; the file is in the page cache)
// Ratios against the reference: node bench/text/compare.mjs (runs this binary and the reference
// on the same corpus in the same run).
#include "text/tokenizer.h"

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

namespace {

using namespace affordance::text;

const char* kModels[] = {"Qwen__Qwen3-4B-Instruct-2507", "meta-llama__Llama-3.1-8B-Instruct"};

std::vector<std::string> ReadCorpus(const char* env_name, const char* fallback) {
  const char* env = std::getenv(env_name);
  std::ifstream in(env && *env ? env : fallback);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str()).get<std::vector<std::string>>();
}

const std::vector<std::string>& Corpus() {
  static const std::vector<std::string> chunks =
      ReadCorpus("AFFORDANCE_TEXT_BENCH_CORPUS", AFFORDANCE_TEXT_BENCH_CORPUS);
  return chunks;
}

const std::vector<std::string>& MultilingualCorpus() {
  static const std::vector<std::string> chunks =
      ReadCorpus("AFFORDANCE_TEXT_BENCH_ML_CORPUS", AFFORDANCE_TEXT_BENCH_ML_CORPUS);
  return chunks;
}

size_t Bytes(const std::vector<std::string>& chunks) {
  size_t n = 0;
  for (const auto& c : chunks) n += c.size();
  return n;
}

size_t CorpusBytes() { return Bytes(Corpus()); }

double RssMiB() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

void Encode(benchmark::State& state) {
  auto t = LoadModel(kModels[state.range(0)]);
  if (!t.ok()) return state.SkipWithError(t.error().ToString().c_str());
  const auto& chunks = Corpus();
  EncodeOptions options;
  options.match_special = state.range(1) != 0;
  std::vector<TokenId> ids;
  size_t tokens = 0;
  for (auto _ : state) {
    tokens = 0;
    for (const auto& c : chunks) {
      ids.clear();
      if (!(*t)->EncodeInto(c, ids, options).ok()) return state.SkipWithError("encode failed");
      tokens += ids.size();
    }
    benchmark::DoNotOptimize(ids.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * CorpusBytes()));
  state.counters["corpus_MiB"] = static_cast<double>(CorpusBytes()) / (1 << 20);
  state.counters["tokens"] = static_cast<double>(tokens);
}
BENCHMARK(Encode)
    ->ArgNames({"model", "special"})
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({0, 1})
    ->Args({1, 1})
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);

void EncodeMultilingual(benchmark::State& state) {
  auto t = LoadModel(kModels[state.range(0)]);
  if (!t.ok()) return state.SkipWithError(t.error().ToString().c_str());
  const auto& chunks = MultilingualCorpus();
  EncodeOptions options;
  options.match_special = true;
  std::vector<TokenId> ids;
  size_t tokens = 0;
  for (auto _ : state) {
    tokens = 0;
    for (const auto& c : chunks) {
      ids.clear();
      if (!(*t)->EncodeInto(c, ids, options).ok()) return state.SkipWithError("encode failed");
      tokens += ids.size();
    }
    benchmark::DoNotOptimize(ids.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * Bytes(chunks)));
  state.counters["corpus_MiB"] = static_cast<double>(Bytes(chunks)) / (1 << 20);
  state.counters["tokens"] = static_cast<double>(tokens);
}
BENCHMARK(EncodeMultilingual)
    ->ArgName("model")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);

// A new tokenizer instance per iteration (loaded outside the timing), so every word is met for
// the first time: the whole-command case, where one process encodes the text once.
void EncodeMultilingualFirstPass(benchmark::State& state) {
  std::string dir = std::string(AFFORDANCE_MODELS_DIR) + "/" + kModels[state.range(0)];
  const auto& chunks = MultilingualCorpus();
  EncodeOptions options;
  options.match_special = true;
  std::vector<TokenId> ids;
  for (auto _ : state) {
    state.PauseTiming();
    auto t = Tokenizer::LoadDirectory(dir);
    if (!t.ok()) return state.SkipWithError(t.error().ToString().c_str());
    state.ResumeTiming();
    for (const auto& c : chunks) {
      ids.clear();
      if (!(*t)->EncodeInto(c, ids, options).ok()) return state.SkipWithError("encode failed");
    }
    benchmark::DoNotOptimize(ids.data());
    state.PauseTiming();
    t->reset();
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * Bytes(chunks)));
}
BENCHMARK(EncodeMultilingualFirstPass)
    ->ArgName("model")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);

void Decode(benchmark::State& state) {
  auto t = LoadModel(kModels[state.range(0)]);
  if (!t.ok()) return state.SkipWithError(t.error().ToString().c_str());
  std::vector<std::vector<TokenId>> encoded;
  size_t bytes = 0;
  for (const auto& c : Corpus()) {
    encoded.push_back(*(*t)->Encode(c));
    bytes += (*(*t)->Decode(encoded.back())).size();
  }
  for (auto _ : state) {
    for (const auto& ids : encoded) {
      auto text = (*t)->Decode(ids);
      benchmark::DoNotOptimize(text->data());
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(Decode)->ArgName("model")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void Load(benchmark::State& state) {
  std::string dir = std::string(AFFORDANCE_MODELS_DIR) + "/" + kModels[state.range(0)];
  double before = RssMiB(), after = before;
  for (auto _ : state) {
    auto t = Tokenizer::LoadDirectory(dir);
    if (!t.ok()) return state.SkipWithError(t.error().ToString().c_str());
    state.PauseTiming();
    after = RssMiB();
    state.ResumeTiming();
  }
  state.counters["rss_delta_MiB"] = after - before;
  state.counters["rss_MiB"] = after;
}
BENCHMARK(Load)->ArgName("model")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(5);

void LoadInNewProcess(benchmark::State& state) {
  std::string dir = std::string(AFFORDANCE_MODELS_DIR) + "/" + kModels[state.range(0)];
  for (auto _ : state) {
    int fds[2];
    if (pipe(fds) != 0) return state.SkipWithError("pipe failed");
    pid_t child = fork();
    if (child < 0) return state.SkipWithError("fork failed");
    if (child == 0) {
      close(fds[0]);
      auto t0 = std::chrono::steady_clock::now();
      auto t = Tokenizer::LoadDirectory(dir);
      double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!t.ok()) seconds = -1;
      (void)!write(fds[1], &seconds, sizeof seconds);
      _exit(0);
    }
    close(fds[1]);
    double seconds = -1;
    bool got = read(fds[0], &seconds, sizeof seconds) == sizeof seconds;
    close(fds[0]);
    waitpid(child, nullptr, 0);
    if (!got || seconds < 0) return state.SkipWithError("the child could not load the tokenizer");
    state.SetIterationTime(seconds);
  }
}
BENCHMARK(LoadInNewProcess)
    ->ArgName("model")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime()
    ->Iterations(10);

}  // namespace

BENCHMARK_MAIN();
