// Layout + projection (asChatTools) of a 1,000-row scroll list with a 48-token budget, each row a
// button (so projection names and schemas are built for the visible rows), with the real Qwen3
// tokenizer. Cold: no run cache (every visible run encoded). Warm: the run cache is hot.
// Reference in the same run: encoding the flat text of all 1,000 rows (what a string-first
// renderer would tokenize before cropping).
//
//   ./build/bench/render/render_bench
#include "render/layout.h"
#include "render/run_cache.h"
#include "text/tokenizer.h"

#include <benchmark/benchmark.h>

#include <cstdlib>

namespace affordance::render {
namespace {

const text::Tokenizer& Qwen() {
  static auto tok = [] {
    auto t = text::LoadModel("Qwen__Qwen3-4B-Instruct-2507");
    if (!t.ok()) {
      fprintf(stderr, "%s\n", t.error().ToString().c_str());
      std::exit(1);
    }
    return *t;
  }();
  return *tok;
}

std::vector<view::Node> Rows(int offset) {
  view::Node scroll;
  scroll.kind = view::Node::Kind::kElement;
  scroll.type = "scroll";
  scroll.path = "Bench/scroll";
  scroll.props = {{"budget", 48}, {"offset", offset}, {"marker", "…\n"}};
  std::vector<view::Node> rows;
  for (int i = 0; i < 1000; ++i) {
    view::Node row;
    row.kind = view::Node::Kind::kElement;
    row.type = "button";
    row.path = "Bench/scroll/button[" + std::to_string(i) + "]";
    row.props = {{"label", "item " + std::to_string(i * 7919 % 100000)}};
    view::Handler h;
    h.event = "onClick";
    h.id = static_cast<view::HandlerId>(i + 1);
    row.handlers.push_back(h);
    rows.push_back(std::move(row));
    view::Node nl;
    nl.text = "\n";
    rows.push_back(std::move(nl));
  }
  scroll.children = std::move(rows);
  return {std::move(scroll)};
}

void BM_ScrollLayoutCold(benchmark::State& state) {
  const auto nodes = Rows(0);
  size_t tools = 0;
  for (auto _ : state) {
    auto b = Layout(nodes, Qwen(), {});
    tools = b->tools.size();
    benchmark::DoNotOptimize(b);
  }
  state.counters["tools"] = static_cast<double>(tools);
}
BENCHMARK(BM_ScrollLayoutCold);

void BM_ScrollLayoutWarm(benchmark::State& state) {
  const auto nodes = Rows(0);
  RunCache cache(Qwen());
  LayoutOptions options;
  options.cache = &cache;
  (void)Layout(nodes, Qwen(), options);
  for (auto _ : state) {
    auto b = Layout(nodes, Qwen(), options);
    benchmark::DoNotOptimize(b);
  }
  state.counters["hit_rate"] =
      static_cast<double>(cache.stats().hits) / (cache.stats().hits + cache.stats().misses);
}
BENCHMARK(BM_ScrollLayoutWarm);

// Scrolling: a new offset every iteration (rows come into view; warm cache across offsets).
void BM_ScrollLayoutWarmScrolling(benchmark::State& state) {
  std::vector<std::vector<view::Node>> windows;
  for (int o = 0; o < 16; ++o) windows.push_back(Rows(o * 100));
  RunCache cache(Qwen());
  LayoutOptions options;
  options.cache = &cache;
  for (const auto& w : windows) (void)Layout(w, Qwen(), options);
  size_t i = 0;
  for (auto _ : state) {
    auto b = Layout(windows[i++ % windows.size()], Qwen(), options);
    benchmark::DoNotOptimize(b);
  }
}
BENCHMARK(BM_ScrollLayoutWarmScrolling);

void BM_FlatEncodeAllRows(benchmark::State& state) {
  std::string flat;
  for (int i = 0; i < 1000; ++i) flat += "[item " + std::to_string(i * 7919 % 100000) + "]\n";
  for (auto _ : state) {
    auto ids = Qwen().Encode(flat);
    benchmark::DoNotOptimize(ids);
  }
}
BENCHMARK(BM_FlatEncodeAllRows);

}  // namespace
}  // namespace affordance::render

BENCHMARK_MAIN();
