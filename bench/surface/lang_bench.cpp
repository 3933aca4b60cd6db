// Benchmarks for src/surface (see docs/BENCHMARKS.md, "## surface").
//
//   build-release/bench/surface/surface_lang_bench
//   SURFACE_BENCH_PROGRAM=file surface_lang_bench --benchmark_filter=BM_ParseFile   (side by side)
#include "surface/program.h"
#include "surface/stream.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace {

using namespace affordance::surface;

// A dashboard-shaped program of about `bytes` characters (same generator as lang_side_by_side.mjs).
std::string MakeProgram(size_t bytes) {
  std::string p =
      "root = Stack([h, list])\nh = CardHeader(\"Dashboard\", \"generated\")\n$q = \"\"\n"
      "d = Query(\"rows\", {q: $q}, {rows: []})\n";
  std::string list = "list = Stack([";
  for (int i = 0; p.size() + list.size() < bytes; ++i) {
    const std::string n = std::to_string(i);
    p += "item" + n + " = Card([TextContent(\"Item " + n + ": \" + d.rows[" + n +
         "].name), Button(\"Open\", Action([@Set($sel, " + n + ")]))], \"Item " + n + "\")\n";
    list += (i ? ", item" : "item") + n;
  }
  return p + list + "])\n";
}

const std::string& Big() {
  static const std::string program = MakeProgram(110'000);
  return program;
}

// Cost of pushing one 64-byte chunk after `state.range(0)` characters were already pushed.
void BM_StreamPushChunk(benchmark::State& state) {
  const size_t prefix = static_cast<size_t>(state.range(0));
  const std::string& text = Big();
  StreamParser base(Library::Default());
  base.Push(std::string_view(text).substr(0, prefix));
  constexpr size_t kChunk = 64, kChunks = 32;
  StreamParser p = base;  // copied (and the old state freed) outside the timed region
  for (auto _ : state) {
    state.PauseTiming();
    p = base;
    state.ResumeTiming();
    for (size_t k = 0; k < kChunks; ++k)
      p.Push(std::string_view(text).substr(prefix + k * kChunk, kChunk));
    benchmark::DoNotOptimize(p.completed_statements());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kChunks));
  state.counters["chunk_ns"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kChunks),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_StreamPushChunk)->Arg(1'000)->Arg(100'000)->Unit(benchmark::kMicrosecond);

// Result() materializes the whole tree: it grows with the program (reported, not hidden).
void BM_StreamResult(benchmark::State& state) {
  const size_t prefix = static_cast<size_t>(state.range(0));
  StreamParser p(Library::Default());
  p.Push(std::string_view(Big()).substr(0, prefix));
  for (auto _ : state) benchmark::DoNotOptimize(p.Result().statement_count);
}
BENCHMARK(BM_StreamResult)->Arg(1'000)->Arg(100'000)->Unit(benchmark::kMicrosecond);

void BM_ParseWhole(benchmark::State& state) {
  const std::string program = MakeProgram(static_cast<size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(Parse(program, Library::Default()).statement_count);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * program.size()));
}
BENCHMARK(BM_ParseWhole)->Arg(20'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

// The JSON edge: converting an already parsed program's value tree to lang-core's JSON (what
// `affordance lang parse --json` and the golden tests add on top of Parse()).
void BM_ToJson(benchmark::State& state) {
  const std::string program = MakeProgram(static_cast<size_t>(state.range(0)));
  const ParseResult parsed = Parse(program, Library::Default());
  for (auto _ : state) benchmark::DoNotOptimize(parsed.ToJson().size());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * program.size()));
}
BENCHMARK(BM_ToJson)->Arg(20'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

// Whole-program parse of the file named by SURFACE_BENCH_PROGRAM (the side-by-side input).
void BM_ParseFile(benchmark::State& state) {
  const char* path = std::getenv("SURFACE_BENCH_PROGRAM");
  if (!path) {
    state.SkipWithError("SURFACE_BENCH_PROGRAM not set");
    return;
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string program = ss.str();
  for (auto _ : state) benchmark::DoNotOptimize(Parse(program, Library::Default()).statement_count);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * program.size()));
}
BENCHMARK(BM_ParseFile)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
