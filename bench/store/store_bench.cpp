// Store benchmarks. Run:  build/bench/store/store_bench  (or build-release/..., the release preset)
// Each benchmark writes to a real SQLite file (WAL, synchronous=NORMAL) in a fresh temp folder.
// The peer, measured in the same run, is the bare minimum SQLite needs for the same row: one
// cached prepared INSERT ... ON CONFLICT DO UPDATE into a table of the same shape, autocommit, same
// pragmas. The ratio says what the store's bookkeeping (existence check, message and thread
// updated_ms, an explicit IMMEDIATE transaction) costs on top.
//
// BM_StepWrites/{sqlite,postgresql}: what one agent-loop step writes, on each backend (the
// PostgreSQL server is a real one this binary starts: tests/unit/store/pg_cluster.h, fsync on).
#include "pg_cluster.h"
#include "store/store.h"

#include <benchmark/benchmark.h>

#include <sqlite3.h>
#include <stdlib.h>
#include <chrono>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

namespace {

using namespace affordance::store;

std::map<std::string, double> g_seconds;  // benchmark -> CPU seconds per iteration

// CPU time of this thread (user + system, so the WAL writes count): on a shared, loaded machine
// it is steadier than wall time, and every benchmark here runs on one thread.
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string Dir() {
  static std::string dir = [] {
    char tmpl[] = "/tmp/affordance-store-bench-XXXXXX";
    return std::string(mkdtemp(tmpl));
  }();
  return dir;
}

std::unique_ptr<Store> Fresh(const std::string& name) {
  std::string path = Dir() + "/" + name + ".db";
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix, ec);
  auto store = OpenSqlite(path);
  if (!store) {
    std::fprintf(stderr, "cannot open %s: %s\n", path.c_str(), store.error().ToString().c_str());
    std::abort();
  }
  return std::move(*store);
}

void Check(const affordance::Status& s) {
  if (!s) {
    std::fprintf(stderr, "%s\n", s.error().ToString().c_str());
    std::abort();
  }
}

PartRecord TextPart(int64_t seq) {
  PartRecord p;
  p.seq = seq;
  p.step = 0;
  p.kind = "text";
  p.key = "txt_" + std::to_string(seq);
  p.state = "emitted";
  p.open = false;
  p.data = {{"text", "The meeting with Dana is on Tuesday at 10:00 in room 4."}};
  return p;
}

StepRecord Step200(int index) {
  StepRecord s;
  s.index = index;
  s.status = "finished";
  s.finish_reason = "tool-calls";
  s.prompt_tokens = 4096;
  s.cached_prompt_tokens = 3900;
  s.generated_tokens = 200;
  for (int i = 0; i < 200; ++i) s.tokens.push_back(151643 - i * 37);
  s.started_ms = NowMs();
  s.finished_ms = s.started_ms + 900;
  s.detail = {{"prompt_audit", {{"head_tokens", 812}, {"reality_tokens", 311}}}};
  return s;
}

// PutPart of a small text part at a new seq each time (the loop's hot path).
void BM_PutPart(benchmark::State& state) {
  auto store = Fresh("put_part");
  auto t = store->CreateThread("bench");
  auto m = store->AddMessage(t->id, "assistant", "running", {});
  int64_t seq = 0;
  double start = ThreadCpuSeconds();
  for (auto _ : state) Check(store->PutPart(m->id, TextPart(seq++)));
  g_seconds["put_part"] = (ThreadCpuSeconds() - start) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_PutPart)->Unit(benchmark::kMicrosecond);

// PutPart replacing the same part (a streaming text part rewritten as it grows).
void BM_PutPartReplace(benchmark::State& state) {
  auto store = Fresh("put_part_replace");
  auto t = store->CreateThread("bench");
  auto m = store->AddMessage(t->id, "assistant", "running", {});
  PartRecord p = TextPart(0);
  for (auto _ : state) Check(store->PutPart(m->id, p));
}
BENCHMARK(BM_PutPartReplace)->Unit(benchmark::kMicrosecond);

// The peer: the same row through the bare sqlite3 API.
void BM_RawSqliteUpsert(benchmark::State& state) {
  std::string path = Dir() + "/raw.db";
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix, ec);
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_exec(db,
               "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
               "CREATE TABLE parts(message_id TEXT NOT NULL, seq INTEGER NOT NULL, step INTEGER "
               "NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL, state TEXT NOT NULL, open "
               "INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (message_id, seq)) WITHOUT ROWID",
               nullptr, nullptr, nullptr);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v3(db,
                     "INSERT INTO parts VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT "
                     "(message_id, seq) DO UPDATE SET step = excluded.step, kind = excluded.kind, "
                     "key = excluded.key, state = excluded.state, open = excluded.open, "
                     "data = excluded.data",
                     -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  std::string message_id = NewId("m_");
  int64_t seq = 0;
  double start = ThreadCpuSeconds();
  for (auto _ : state) {
    PartRecord p = TextPart(seq++);
    std::string data = p.data.dump();
    sqlite3_bind_text(stmt, 1, message_id.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(stmt, 2, p.seq);
    sqlite3_bind_int64(stmt, 3, p.step);
    sqlite3_bind_text(stmt, 4, p.kind.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(stmt, 5, p.key.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(stmt, 6, p.state.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(stmt, 7, p.open);
    sqlite3_bind_text(stmt, 8, data.c_str(), -1, SQLITE_TRANSIENT);
    if (sqlite3_step(stmt) != SQLITE_DONE) std::abort();
    sqlite3_reset(stmt);
  }
  g_seconds["raw_upsert"] = (ThreadCpuSeconds() - start) / static_cast<double>(state.iterations());
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}
BENCHMARK(BM_RawSqliteUpsert)->Unit(benchmark::kMicrosecond);

// PutStep with 200 sampled token IDs, a new step index each time.
void BM_PutStep200Tokens(benchmark::State& state) {
  auto store = Fresh("put_step");
  auto t = store->CreateThread("bench");
  auto m = store->AddMessage(t->id, "assistant", "running", {});
  int index = 0;
  for (auto _ : state) Check(store->PutStep(m->id, Step200(index++)));
}
BENCHMARK(BM_PutStep200Tokens)->Unit(benchmark::kMicrosecond);

// One Batch of 10 text parts (one transaction).
void BM_Batch10Parts(benchmark::State& state) {
  auto store = Fresh("batch");
  auto t = store->CreateThread("bench");
  auto m = store->AddMessage(t->id, "assistant", "running", {});
  int64_t seq = 0;
  double start = ThreadCpuSeconds();
  for (auto _ : state) {
    Check(store->Batch([&]() -> affordance::Status {
      for (int i = 0; i < 10; ++i) {
        if (auto s = store->PutPart(m->id, TextPart(seq++)); !s) return s;
      }
      return {};
    }));
  }
  g_seconds["batch10"] = (ThreadCpuSeconds() - start) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_Batch10Parts)->Unit(benchmark::kMicrosecond);

// LoadThread of 50 messages: 25 user messages with one text part, 25 assistant messages with
// 4 parts (reasoning, text, tool call, text) and 2 steps of 200 tokens each.
void BM_LoadThread50Messages(benchmark::State& state) {
  auto store = Fresh("load");
  auto t = store->CreateThread("bench");
  for (int i = 0; i < 50; ++i) {
    bool assistant = i % 2 == 1;
    auto m = store->AddMessage(t->id, assistant ? "assistant" : "user", "complete",
                               {{"terminal", "stop"}, {"provider", "replay"}});
    int parts = assistant ? 4 : 1;
    for (int p = 0; p < parts; ++p) {
      PartRecord part = TextPart(p);
      if (p == 2) {
        part.kind = "tool";
        part.key = "call_" + std::to_string(i);
        part.data = {{"name", "RunConnectorCommand"},
                     {"input", {{"connector", "calendar"}, {"request", "next week"}}},
                     {"output", {{"rows", 12}, {"truth", "mirrored"}}}};
      }
      Check(store->PutPart(m->id, part));
    }
    if (assistant) {
      Check(store->PutStep(m->id, Step200(0)));
      Check(store->PutStep(m->id, Step200(1)));
    }
  }
  size_t messages = 0;
  for (auto _ : state) {
    auto loaded = store->LoadThread(t->id);
    if (!loaded) std::abort();
    messages = loaded->size();
    benchmark::DoNotOptimize(loaded->data());
  }
  state.counters["messages"] = static_cast<double>(messages);
}
BENCHMARK(BM_LoadThread50Messages)->Unit(benchmark::kMicrosecond);

// One step of a turn as the loop and the server write it: the step row opened, a text part and a
// tool part each written when they open and when they close, the step closed with its 200 sampled
// token IDs, and the step's 48 UI chunks appended to the turn's stream log in 4 group commits.
// Wall time: PostgreSQL's work happens in its own processes, so thread CPU time would hide it.
std::map<std::string, double> g_step_wall;  // backend -> wall seconds per step

void BM_StepWrites(benchmark::State& state, const char* backend) {
  std::unique_ptr<Store> store;
  if (std::string(backend).rfind("postgresql", 0) == 0) {
    auto& pg = testing::PgCluster::Shared();
    if (!pg.ok()) {
      state.SkipWithError(pg.error().c_str());
      return;
    }
    std::string error;
    const std::string uri = pg.NewDatabase(&error);
    // The test cluster runs with fsync off; a step's cost is measured with commits made durable,
    // as a deployment runs it.
    if (testing::PgRawSql(uri, "ALTER SYSTEM SET fsync = on").rfind("ERROR", 0) == 0 ||
        testing::PgRawSql(uri, "SELECT pg_reload_conf()").rfind("ERROR", 0) == 0) {
      state.SkipWithError("cannot turn fsync on");
      return;
    }
    // postgresql_async: synchronous_commit off for this connection, SQLite's WAL + NORMAL
    // promise (a crash may lose the last commits, never corrupts).
    auto opened = OpenPostgres(std::string(backend) == "postgresql"
                                   ? uri
                                   : uri + "?options=-c%20synchronous_commit%3Doff");
    if (!opened) {
      state.SkipWithError(opened.error().ToString().c_str());
      return;
    }
    store = std::move(*opened);
  } else {
    store = Fresh("step_writes");
  }
  auto t = store->CreateThread("bench");
  const std::string id = NewId("m_");
  Check(store->BeginTurn(
      {.id = id, .thread_id = t->id, .node = "bench", .lease_until_ms = NowMs() + 600000}));
  auto m = store->AddMessage(t->id, "assistant", "running", {}, id);
  int index = 0;
  int64_t seq = 0, chunk = 0;
  const std::string delta = R"({"type":"text-delta","id":"s0-text-0","delta":" meeting"})";
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    StepRecord step = Step200(index);
    step.status = "running";
    Check(store->PutStep(id, step));
    PartRecord text = TextPart(seq++);
    text.open = true;
    PartRecord tool = TextPart(seq++);
    tool.kind = "tool";
    tool.open = true;
    for (PartRecord* p : {&text, &tool}) Check(store->PutPart(id, *p));
    for (int batch = 0; batch < 4; ++batch) {
      std::vector<LoggedChunk> chunks;
      for (int i = 0; i < 12; ++i) chunks.push_back({id, chunk++, delta});
      Check(store->AppendChunks(chunks));
    }
    text.open = tool.open = false;
    for (PartRecord* p : {&text, &tool}) Check(store->PutPart(id, *p));
    step.status = "finished";
    Check(store->PutStep(id, step));
    ++index;
  }
  g_step_wall[backend] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
      static_cast<double>(state.iterations());
  (void)m;
}
BENCHMARK_CAPTURE(BM_StepWrites, sqlite, "sqlite")->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_StepWrites, postgresql, "postgresql")
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_StepWrites, postgresql_async, "postgresql_async")
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::printf("\nratios (same run, CPU time per call):\n");
  if (g_seconds.count("put_part") && g_seconds.count("raw_upsert")) {
    std::printf("  %-58s %8.2fx\n", "PutPart / raw sqlite3 upsert (store bookkeeping cost)",
                g_seconds["put_part"] / g_seconds["raw_upsert"]);
  }
  if (g_seconds.count("put_part") && g_seconds.count("batch10")) {
    std::printf("  %-58s %8.2fx\n", "10 x PutPart / Batch of 10 PutPart",
                10 * g_seconds["put_part"] / g_seconds["batch10"]);
  }
  if (g_step_wall.count("sqlite") && g_step_wall.count("postgresql")) {
    std::printf("  %-58s %8.2fx\n", "a step's writes: PostgreSQL / SQLite (wall time)",
                g_step_wall["postgresql"] / g_step_wall["sqlite"]);
  }
  if (g_step_wall.count("sqlite") && g_step_wall.count("postgresql_async")) {
    std::printf("  %-58s %8.2fx\n", "... with synchronous_commit off: PostgreSQL / SQLite",
                g_step_wall["postgresql_async"] / g_step_wall["sqlite"]);
  }
  std::error_code ec;
  std::filesystem::remove_all(Dir(), ec);
  return 0;
}
