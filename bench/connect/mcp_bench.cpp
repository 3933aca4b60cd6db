// MCP connector benchmarks. Run:  build/bench/connect/mcp_bench
// One read (search_nodes on the reference memory server from tools/node_modules, a graph of 200
// entities, 11 of them matching) timed four ways, wall clock, in the same run:
//   - McpSession::Request: our client alone (JSON-RPC over stdio, no road);
//   - RunConnectorCommand live: the whole road (schema check, rows, ledger, cap, the mirror write);
//   - RunConnectorCommand local: the same read answered from the connector's SQLite mirror;
//   - the peer: the official TypeScript client (Client + StdioClientTransport) calling the same
//     server with the same arguments (bench/connect/mcp_peer.mjs), started by this program.
// The ratios (per call, median of the repetitions) are printed after the Google Benchmark table;
// BM_ReadLiveUnmirrored is the same read on a live-only connector (no mirror write), BM_MirrorStore
// the mirror write of one read alone.
#include "connect/internal/mcp_mirror.h"
#include "connect/manifest.h"
#include "connect/mcp_client.h"
#include "connect/road.h"

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace affordance::connect;
using nlohmann::json;

const std::string kRoot = AFFORDANCE_SOURCE_DIR;
const std::string kServer =
    kRoot + "/tools/node_modules/@modelcontextprotocol/server-memory/dist/index.js";
const json kArgs = {{"query", "person-4"}};

std::map<std::string, std::vector<double>> g_us;  // benchmark -> µs per call, per repetition

std::string Dir() {
  static std::string dir = [] {
    char tmpl[] = "/tmp/affordance-mcp-bench-XXXXXX";
    std::string d = mkdtemp(tmpl);
    std::ofstream out(d + "/memory.jsonl");
    for (int i = 0; i < 200; ++i) {
      out << json{{"type", "entity"},
                  {"name", "person-" + std::to_string(i)},
                  {"entityType", "person"},
                  {"observations", {"works on project " + std::to_string(i % 7), "likes tea"}}}
                 .dump()
          << "\n";
    }
    setenv("MEMORY_FILE_PATH", (d + "/memory.jsonl").c_str(), 1);
    return d;
  }();
  return dir;
}

ConnectorManifest Manifest(bool mirrored = true) {
  json j = {{"slug", "memory"},
            {"title", "Knowledge graph"},
            {"source",
             {{"kind", "mcp"},
              {"command", "node"},
              {"args", {kServer}},
              {"env", {{"MEMORY_FILE_PATH", "${MEMORY_FILE_PATH}"}}}}},
            {"modes", mirrored ? json{"live", "local"} : json{"live"}}};
  auto m = ParseManifest(j.dump(), "");
  if (!m.ok()) {
    std::fprintf(stderr, "%s\n", m.error().ToString().c_str());
    std::exit(1);
  }
  return *m;
}

// Keeps the last 5 runs (the repetitions; Google Benchmark first runs each to size its
// iteration count).
void Record(benchmark::State& state, const std::string& name, double seconds) {
  double us = seconds * 1e6 / static_cast<double>(state.iterations());
  auto& v = g_us[name];
  v.push_back(us);
  if (v.size() > 5) v.erase(v.begin());
}

void BM_SessionRequest(benchmark::State& state) {
  Dir();
  auto session = McpSession::Open(Manifest().source);
  if (!session.ok()) {
    state.SkipWithError(session.error().ToString().c_str());
    return;
  }
  json params = {{"name", "search_nodes"}, {"arguments", kArgs}};
  (void)(*session)->Request("tools/call", params, 10000);  // warm
  auto t0 = std::chrono::steady_clock::now();
  for (auto _ : state) {
    McpReply r = (*session)->Request("tools/call", params, 10000);
    if (!r.result.ok()) state.SkipWithError(r.result.error().ToString().c_str());
    benchmark::DoNotOptimize(r);
  }
  Record(state, "session",
         std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  (*session)->Stop();
}

void BM_Read(benchmark::State& state, SourceMode mode, const char* name, bool mirrored = true) {
  RoadOptions o;
  o.data_dir = Dir() + "/data";
  ConnectorRoad road({Manifest(mirrored)}, o);
  ConnectorCommand cmd{
      "memory", {{"operation", "search_nodes"}, {"args", kArgs}}, 50, SourceMode::kLive};
  auto warm = road.RunConnectorCommand(cmd);  // starts the server, fills the mirror
  if (!warm.ok()) {
    state.SkipWithError(warm.error().ToString().c_str());
    return;
  }
  cmd.mode = mode;
  auto t0 = std::chrono::steady_clock::now();
  for (auto _ : state) {
    auto r = road.RunConnectorCommand(cmd);
    if (!r.ok() || r->rows.empty()) state.SkipWithError("the read failed");
    benchmark::DoNotOptimize(r);
  }
  Record(state, name, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

void BM_ReadLive(benchmark::State& state) { BM_Read(state, SourceMode::kLive, "live"); }
void BM_ReadLiveUnmirrored(benchmark::State& state) {
  BM_Read(state, SourceMode::kLive, "live_unmirrored", /*mirrored=*/false);
}
void BM_ReadMirror(benchmark::State& state) { BM_Read(state, SourceMode::kLocal, "mirror"); }

// The mirror write of one live read alone (11 rows).
void BM_MirrorStore(benchmark::State& state) {
  std::vector<json> rows;
  rows.reserve(11);
  for (int i = 0; i < 11; ++i) rows.push_back({{"name", "person-" + std::to_string(i)}});
  const std::string path = Dir() + "/store/mirror.db";
  auto t0 = std::chrono::steady_clock::now();
  for (auto _ : state) {
    affordance::Status s =
        StoreMcpRead(path, "search_nodes", kArgs, rows, std::vector<std::string>{"entities"}, 1);
    if (!s.ok()) state.SkipWithError(s.error().ToString().c_str());
  }
  Record(state, "store",
         std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

BENCHMARK(BM_MirrorStore)->Unit(benchmark::kMicrosecond)->UseRealTime()->Repetitions(5);
BENCHMARK(BM_SessionRequest)->Unit(benchmark::kMicrosecond)->UseRealTime()->Repetitions(5);
BENCHMARK(BM_ReadLiveUnmirrored)->Unit(benchmark::kMicrosecond)->UseRealTime()->Repetitions(5);
BENCHMARK(BM_ReadLive)->Unit(benchmark::kMicrosecond)->UseRealTime()->Repetitions(5);
BENCHMARK(BM_ReadMirror)->Unit(benchmark::kMicrosecond)->UseRealTime()->Repetitions(5);

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The TypeScript client, same server, same arguments: µs per call for each of 5 batches.
std::vector<double> Peer() {
  std::string cmd = "node '" + kRoot + "/bench/connect/mcp_peer.mjs' 300 5 search_nodes '" +
                    kArgs.dump() + "' -- node '" + kServer + "'";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return {};
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  pclose(pipe);
  auto j = json::parse(out, nullptr, false);
  if (!j.is_object() || !j.contains("batches_us")) {
    std::fprintf(stderr, "the peer failed: %s\n", out.c_str());
    return {};
  }
  return j["batches_us"].get<std::vector<double>>();
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::vector<double> peer = Peer();
  double p = Median(peer), s = Median(g_us["session"]), bare = Median(g_us["live_unmirrored"]),
         live = Median(g_us["live"]), mirror = Median(g_us["mirror"]),
         store = Median(g_us["store"]);
  std::printf(
      "\nper call, median of 5 (µs): TypeScript client %.1f | our session %.1f | road live, "
      "live-only connector %.1f | road live + mirror write %.1f | road from the mirror %.1f "
      "| the mirror write alone %.1f\n",
      p, s, bare, live, mirror, store);
  if (p > 0 && s > 0 && bare > 0 && live > 0 && mirror > 0) {
    std::printf(
        "session / TS client: %.2fx   road live (live-only) / TS client: %.2fx (%+.1f µs "
        "per call)   road live + mirror write / TS client: %.2fx\n",
        s / p, bare / p, bare - p, live / p);
    std::printf("mirror / TS client: %.2fx   mirror / road live (live-only): %.2fx\n", mirror / p,
                mirror / bare);
  }
  std::filesystem::remove_all(Dir());
  return 0;
}
