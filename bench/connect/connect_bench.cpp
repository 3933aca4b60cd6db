// Connector road benchmarks. Run:  build-release/bench/connect/connect_bench
// Ratios against peers measured in the same run are printed after the Google Benchmark table:
//   - aggregate over the 100k-event mirror: SqlGuard vs raw sqlite3 API vs the sqlite3 CLI
//     (`sqlite3 mirror.db "<same SELECT>"`, process start included, as an agent would call it);
//   - fan-out of 200 detail reads: bounded parallel (8) vs one at a time, for the calendar mirror
//     and for the fixture printed CLI (one process per read).
#include "connect/calendar.h"
#include "connect/manifest.h"
#include "connect/process.h"
#include "connect/road.h"
#include "connect/sql_guard.h"

#include <benchmark/benchmark.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>

namespace {

using namespace affordance::connect;
using nlohmann::json;

constexpr int64_t kNow = 1795780800;  // 2026-11-27T12:00:00Z
constexpr int kEvents = 100000;
const char* kAggregate =
    "SELECT location, count(*) AS n, min(start) AS first, max(end) AS last, "
    "sum(end_ts - start_ts) / 3600.0 AS hours FROM events GROUP BY location ORDER BY n DESC";

std::map<std::string, double> g_seconds;  // benchmark -> seconds per iteration

struct Timer {
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
};

std::string Dir() {
  static std::string dir = [] {
    char tmpl[] = "/tmp/affordance-connect-bench-XXXXXX";
    return std::string(mkdtemp(tmpl));
  }();
  return dir;
}

// 100k one-hour events, one every 7 minutes from 30 days before kNow (the last one ~16 months
// later), 1 in 10 in one of 40 rooms.
std::string Ics() {
  static std::string path = [] {
    std::string p = Dir() + "/bench.ics";
    std::ofstream out(p, std::ios::binary);
    out << "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//affordance//bench//EN\r\n";
    char a[32], b[32];
    for (int i = 0; i < kEvents; ++i) {
      time_t s = static_cast<time_t>(kNow - 30 * 86400 + int64_t{i} * 7 * 60), e = s + 3600;
      std::tm ts{}, te{};
      gmtime_r(&s, &ts);
      gmtime_r(&e, &te);
      std::strftime(a, sizeof a, "%Y%m%dT%H%M%SZ", &ts);
      std::strftime(b, sizeof b, "%Y%m%dT%H%M%SZ", &te);
      out << "BEGIN:VEVENT\r\nUID:bench-" << i << "@affordance\r\nSUMMARY:Meeting " << i
          << "\r\nDESCRIPTION:Generated event number " << i << "\r\nDTSTART:" << a
          << "\r\nDTEND:" << b << "\r\nLOCATION:Room " << (i % 40) << "\r\nEND:VEVENT\r\n";
    }
    out << "END:VCALENDAR\r\n";
    return p;
  }();
  return path;
}

ConnectorManifest Calendar(int max_parallel) {
  std::string src = std::string(AFFORDANCE_SOURCE_DIR) + "/examples/connectors/calendar.json";
  std::ifstream in(src);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ConnectorManifest m = ParseManifest(text, src).value();
  m.source.paths = {Ics()};
  m.sync.past_days = 60;
  m.sync.future_days = 800;
  m.sync.max_age_s = int64_t{1} << 40;
  m.source.max_parallel = max_parallel;
  return m;
}

std::string Mirror() {
  static std::string path = [] {
    std::string p = Dir() + "/data/calendar/mirror.db";
    auto rows = SyncCalendar(Calendar(8), p, kNow, {});
    if (!rows.ok() || *rows != kEvents) std::abort();
    return p;
  }();
  return path;
}

void Record(benchmark::State& state, const std::string& name, double seconds) {
  g_seconds[name] = seconds / static_cast<double>(state.iterations());
}

void BM_SyncCalendar100k(benchmark::State& state) {
  ConnectorManifest m = Calendar(8);
  std::string path = Dir() + "/sync-bench/mirror.db";
  int64_t rows = 0;
  Timer t;
  for (auto _ : state) rows = SyncCalendar(m, path, kNow, {}).value();
  Record(state, "sync", t.Seconds());
  state.counters["events"] = static_cast<double>(rows);
  state.counters["events_per_s"] = benchmark::Counter(
      static_cast<double>(rows) * state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SyncCalendar100k)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_AggregateGuarded(benchmark::State& state) {
  auto guard = SqlGuard::Open(Mirror()).value();
  Timer t;
  for (auto _ : state) benchmark::DoNotOptimize(guard->Run(kAggregate).value().rows.size());
  Record(state, "aggregate_guarded", t.Seconds());
}
BENCHMARK(BM_AggregateGuarded)->Unit(benchmark::kMillisecond);

void BM_AggregateRawSqlite(benchmark::State& state) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(Mirror().c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  Timer t;
  for (auto _ : state) {
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, kAggregate, -1, &st, nullptr);
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
      for (int c = 0; c < sqlite3_column_count(st); ++c)
        benchmark::DoNotOptimize(sqlite3_column_text(st, c));
      ++n;
    }
    sqlite3_finalize(st);
    benchmark::DoNotOptimize(n);
  }
  Record(state, "aggregate_raw", t.Seconds());
  sqlite3_close(db);
}
BENCHMARK(BM_AggregateRawSqlite)->Unit(benchmark::kMillisecond);

void BM_AggregateSqlite3Cli(benchmark::State& state) {
  std::string mirror = Mirror();
  Timer t;
  for (auto _ : state) {
    auto r = RunProcess({"sqlite3", "-readonly", "-json", mirror, kAggregate}, 60000);
    if (!r.ok() || r->exit_code != 0) state.SkipWithError("sqlite3 CLI failed");
  }
  Record(state, "aggregate_sqlite3_cli", t.Seconds());
}
BENCHMARK(BM_AggregateSqlite3Cli)->Unit(benchmark::kMillisecond);

void FanOut(benchmark::State& state, ConnectorManifest m, const std::string& name) {
  RoadOptions o;
  o.data_dir = Dir() + "/data";
  o.clock = [] { return kNow; };
  ConnectorRoad road({std::move(m)}, o);
  ConnectorCommand cmd{road.manifests()[0].slug, {}, 200, SourceMode::kLocal};
  if (road.manifests()[0].source.kind == SourceKind::kIcs) {
    cmd.request = {{"operation", "event_ids"},
                   {"args", {{"from", "2026-11-27"}, {"to", "2027-01-27"}}}};
  } else {
    cmd.request = {{"operation", "item_ids"}, {"args", json::object()}};
    cmd.mode = SourceMode::kLive;
  }
  Timer t;
  for (auto _ : state) {
    auto r = road.RunConnectorCommand(cmd);
    if (!r.ok() || r->operation_ledger.size() != 2 ||
        r->operation_ledger[1].fan_out["succeeded"] != 200) {
      state.SkipWithError(r.ok() ? "fan-out did not read 200 details" : r.error().message.c_str());
      break;
    }
  }
  Record(state, name, t.Seconds());
}

void BM_FanOut200CalendarParallel(benchmark::State& state) {
  Mirror();
  FanOut(state, Calendar(8), "fanout_cal_8");
}
void BM_FanOut200CalendarSequential(benchmark::State& state) {
  Mirror();
  FanOut(state, Calendar(1), "fanout_cal_1");
}
BENCHMARK(BM_FanOut200CalendarParallel)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FanOut200CalendarSequential)->Unit(benchmark::kMillisecond);

#ifdef FIXTURE_PP_CLI
ConnectorManifest FixtureCli(int max_parallel) {
  json j = {
      {"slug", "fixture"},
      {"title", "Fixture"},
      {"source",
       {{"kind", "printed_cli"}, {"command", FIXTURE_PP_CLI}, {"max_parallel", max_parallel}}},
      {"modes", {"live"}},
      {"operations",
       {{{"name", "item_ids"},
         {"kind", "list"},
         {"argv", {"items", "ids"}},
         {"detail_operation", "get_item"}},
        {{"name", "get_item"},
         {"kind", "detail"},
         {"argv", {"items", "get"}},
         {"positional", {"id"}},
         {"args", {{"type", "object"}, {"properties", {{"id", {{"type", "string"}}}}}}}}}}};
  return ParseManifest(j.dump(), "").value();
}
void BM_FanOut200PrintedCliParallel(benchmark::State& state) {
  setenv("FIXTURE_PP_ITEMS", "200", 1);
  FanOut(state, FixtureCli(8), "fanout_cli_8");
}
void BM_FanOut200PrintedCliSequential(benchmark::State& state) {
  setenv("FIXTURE_PP_ITEMS", "200", 1);
  FanOut(state, FixtureCli(1), "fanout_cli_1");
}
BENCHMARK(BM_FanOut200PrintedCliParallel)->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK(BM_FanOut200PrintedCliSequential)->Unit(benchmark::kMillisecond)->Iterations(5);
#endif

void Ratio(const char* what, const std::string& a, const std::string& b) {
  if (!g_seconds.count(a) || !g_seconds.count(b)) return;
  std::printf("  %-58s %8.2fx\n", what, g_seconds[b] / g_seconds[a]);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::printf("\nratios (peer time / ours; above 1 means ours is faster), same run:\n");
  if (g_seconds.count("sync")) {
    std::printf("  %-58s %8.0f\n", "sync: events per second", kEvents / g_seconds["sync"]);
  }
  Ratio("aggregate: raw sqlite3 API / SqlGuard (guard overhead)", "aggregate_guarded",
        "aggregate_raw");
  Ratio("aggregate: sqlite3 CLI / SqlGuard", "aggregate_guarded", "aggregate_sqlite3_cli");
  Ratio("fan-out 200 calendar details: sequential / parallel(8)", "fanout_cal_8", "fanout_cal_1");
  Ratio("fan-out 200 printed-CLI details: sequential / parallel(8)", "fanout_cli_8",
        "fanout_cli_1");
  std::error_code ec;
  std::filesystem::remove_all(Dir(), ec);
  return 0;
}
