// View runtime benchmarks (docs/BENCHMARKS.md, "## view"):
//   cold load (transform + compile, no disk cache), cached load, sucrase start-up, render of a
//   200-node tree, act + re-render of the notebook view and of the shipped notebook demo.
// Run: build-<dir>/bench/view/view_bench --benchmark_min_time=0.5
#include "view/view.h"

#include <benchmark/benchmark.h>
#include <quickjs.h>

#include <filesystem>
#include <fstream>
#include <functional>

extern "C" {
extern const unsigned long affordance_sucrase_bytecode_size;
extern const unsigned char affordance_sucrase_bytecode[];
}

namespace {

using affordance::view::HandlerId;
using affordance::view::Node;
using affordance::view::View;
using affordance::view::ViewOptions;
using json = nlohmann::json;

std::string Notebook() {
  return std::string(AFFORDANCE_SOURCE_DIR) + "/bench/view/data/notebook.tsx";
}

ViewOptions Options(const std::string& cache) {
  ViewOptions o;
  o.cache_dir = cache;
  return o;
}

std::string CacheDir() {
  return std::filesystem::temp_directory_path().string() + "/affordance-view-bench-cache";
}

json NotebookProps() {
  json numbers = json::array();
  for (int i = 0; i < 40; ++i) numbers.push_back(i * 1.5 + 0.25);
  return {{"numbers", numbers}, {"budget", 48}};
}

HandlerId Find(const std::vector<Node>& nodes, const std::string& label, const char* event) {
  for (const Node& n : nodes) {
    if (n.props.contains("label") && n.props["label"] == label) {
      for (const auto& h : n.handlers) {
        if (h.event == event) return h.id;
      }
    }
    if (HandlerId id = Find(n.children, label, event)) return id;
  }
  return 0;
}

size_t CountElements(const std::vector<Node>& nodes) {
  size_t n = 0;
  for (const Node& node : nodes)
    n += (node.kind == Node::Kind::kElement) + CountElements(node.children);
  return n;
}

void BM_SucraseStartup(benchmark::State& state) {
  for (auto _ : state) {
    JSRuntime* rt = JS_NewRuntime();
    JSContext* ctx = JS_NewContext(rt);
    JSValue fn = JS_ReadObject(ctx, affordance_sucrase_bytecode, affordance_sucrase_bytecode_size,
                               JS_READ_OBJ_BYTECODE);
    JS_FreeValue(ctx, JS_EvalFunction(ctx, fn));
    JS_FreeContext(ctx);
    JS_FreeRuntime(rt);
  }
}
BENCHMARK(BM_SucraseStartup)->Unit(benchmark::kMillisecond);

void BM_ColdLoad(benchmark::State& state) {
  // Transform (sucrase already started in this process) + compile + evaluate, no disk cache.
  for (auto _ : state) {
    auto view = View::Load(Notebook(), "Notebook", {}, Options("-"));
    if (!view.ok()) state.SkipWithError(view.error().ToString().c_str());
  }
}
BENCHMARK(BM_ColdLoad)->Unit(benchmark::kMillisecond);

void BM_CachedLoad(benchmark::State& state) {
  std::string cache = CacheDir();
  (void)View::Load(Notebook(), "Notebook", {}, Options(cache));  // fill the cache
  for (auto _ : state) {
    auto view = View::Load(Notebook(), "Notebook", {}, Options(cache));
    if (!view.ok()) state.SkipWithError(view.error().ToString().c_str());
  }
}
BENCHMARK(BM_CachedLoad)->Unit(benchmark::kMicrosecond);

void BM_CachedLoadAndFirstRender(benchmark::State& state) {
  std::string cache = CacheDir();
  json props = NotebookProps();
  for (auto _ : state) {
    auto view = View::Load(Notebook(), "Notebook", {}, Options(cache));
    auto tree = (*view)->Render(props);
    benchmark::DoNotOptimize(tree);
  }
}
BENCHMARK(BM_CachedLoadAndFirstRender)->Unit(benchmark::kMicrosecond);

void BM_Render200Nodes(benchmark::State& state) {
  auto view = View::Load(Notebook(), "Wide", {}, Options(CacheDir()));
  json props = {{"n", 100}};
  auto first = (*view)->Render(props);
  state.counters["elements"] = static_cast<double>(CountElements(*first));
  for (auto _ : state) {
    auto tree = (*view)->Render(props);
    benchmark::DoNotOptimize(tree);
  }
}
BENCHMARK(BM_Render200Nodes)->Unit(benchmark::kMicrosecond);

void BM_NotebookActAndRerender(benchmark::State& state) {
  auto view = View::Load(Notebook(), "Notebook", {}, Options(CacheDir()));
  auto tree = (*view)->Render(NotebookProps());
  state.counters["elements"] = static_cast<double>(CountElements(*tree));
  HandlerId pick3 = Find(*tree, "pick 3", "onClick");
  HandlerId pick4 = Find(*tree, "pick 4", "onClick");
  bool flip = false;
  for (auto _ : state) {
    auto next = (*view)->Act(flip ? pick3 : pick4, json::object());
    flip = !flip;
    benchmark::DoNotOptimize(next);
  }
}
BENCHMARK(BM_NotebookActAndRerender)->Unit(benchmark::kMicrosecond);

// The shipped demo (views/demo/notebook_chat.tsx: Notebook inside Qwen3App) with the state file's
// 200 numbers. The ChatToolsHook stands in for layout without tokenizing: it declares one tool per
// handler and returns no block, so the time is the view runtime's alone.
void BM_DemoNotebookChatActAndRerender(benchmark::State& state) {
  std::string root = AFFORDANCE_SOURCE_DIR;
  auto view =
      View::Load(root + "/views/demo/notebook_chat.tsx", "NotebookChat", {}, Options(CacheDir()));
  if (!view.ok()) {
    state.SkipWithError(view.error().ToString().c_str());
    return;
  }
  std::vector<Node> app;
  (*view)->SetChatToolsHook([&app](const std::vector<Node>& children,
                                   const json&) -> affordance::Result<affordance::view::ChatTools> {
    app = children;
    affordance::view::ChatTools out;
    std::function<void(const std::vector<Node>&)> walk = [&](const std::vector<Node>& ns) {
      for (const Node& n : ns) {
        for (const auto& h : n.handlers) out.tools.push_back({{"name", h.event}, {"id", h.id}});
        walk(n.children);
      }
    };
    walk(children);
    return out;
  });
  std::ifstream in(root + "/views/demo/notebook_state.json");
  json props = json::parse(in);
  auto tree = (*view)->Render(props);
  if (!tree.ok()) {
    state.SkipWithError(tree.error().ToString().c_str());
    return;
  }
  HandlerId notes = Find(app, "notes", "onChange");
  HandlerId scroll = Find(app, "numbers", "onScroll");
  int i = 0;
  for (auto _ : state) {
    auto next = (i % 2) ? (*view)->Act(notes, {{"value", "sum " + std::to_string(i)}})
                        : (*view)->Act(scroll, {{"offset", i % 50}});
    ++i;
    benchmark::DoNotOptimize(next);
  }
}
BENCHMARK(BM_DemoNotebookChatActAndRerender)->Unit(benchmark::kMicrosecond);

void BM_NotebookRender(benchmark::State& state) {
  auto view = View::Load(Notebook(), "Notebook", {}, Options(CacheDir()));
  json props = NotebookProps();
  for (auto _ : state) {
    auto tree = (*view)->Render(props);
    benchmark::DoNotOptimize(tree);
  }
}
BENCHMARK(BM_NotebookRender)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
