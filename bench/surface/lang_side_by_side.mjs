// Side by side: whole-program parse throughput of our C++ parser vs @openuidev/lang-core 0.2.18
// on the same input in the same run, plus lang-core's streaming push cost at 1k vs 100k.
//
//   OPENUI_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 node bench/surface/lang_side_by_side.mjs \
//       build-release/bench/surface/surface_lang_bench
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bench = process.argv[2] ?? path.join(root, "build-release/bench/surface/surface_lang_bench");
if (process.env.OPENUI_TELEMETRY_DISABLED !== "1" || process.env.DO_NOT_TRACK !== "1") {
  console.error("run with OPENUI_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1");
  process.exit(2);
}
const require = createRequire(path.join(root, "tools/package.json"));
const { createParser, createStreamingParser } = await import(require.resolve("@openuidev/lang-core"));

function makeProgram(bytes) {  // same generator as lang_bench.cpp MakeProgram()
  let p = 'root = Stack([h, list])\nh = CardHeader("Dashboard", "generated")\n$q = ""\n' +
          'd = Query("rows", {q: $q}, {rows: []})\n';
  let list = "list = Stack([";
  for (let i = 0; p.length + list.length < bytes; ++i) {
    p += `item${i} = Card([TextContent("Item ${i}: " + d.rows[${i}].name), Button("Open", Action([@Set($sel, ${i})]))], "Item ${i}")\n`;
    list += (i ? ", item" : "item") + i;
  }
  return p + list + "])\n";
}

const doc = JSON.parse(fs.readFileSync(path.join(root, "src/surface/default_library.json"), "utf8"));
const schema = { $defs: doc.$defs };
const results = {};
for (const size of [20_000, 100_000]) {
  const program = makeProgram(size);
  const file = path.join(os.tmpdir(), `surface-bench-${size}.lang`);
  fs.writeFileSync(file, program);
  const out = execFileSync(bench, ["--benchmark_filter=BM_ParseFile", "--benchmark_format=json",
                                   "--benchmark_min_time=1"],
                           { env: { ...process.env, SURFACE_BENCH_PROGRAM: file } });
  const ours = JSON.parse(out).benchmarks[0].bytes_per_second;
  const parser = createParser(schema, doc.root);
  for (let i = 0; i < 20; ++i) parser.parse(program);  // warm up the JIT
  // CPU time on both sides (Google Benchmark reports CPU time), so machine load cancels out.
  let n = 0;
  const c0 = process.cpuUsage();
  const cpu = () => { const d = process.cpuUsage(c0); return (d.user + d.system) / 1e6; };
  while (cpu() < 1.0) { parser.parse(program); ++n; }
  const secs = cpu();
  const theirs = (program.length * n) / secs;
  results[size] = { ours, theirs };
  console.log(`parse ${program.length} B (CPU time): C++ ${(ours / 1e6).toFixed(1)} MB/s, lang-core ` +
              `${(theirs / 1e6).toFixed(1)} MB/s, ratio C++/lang-core = ${(ours / theirs).toFixed(2)}x`);
}

// lang-core's streaming push of a 64-byte chunk after 1k and 100k characters.
const big = makeProgram(110_000);
for (const prefix of [1_000, 100_000]) {
  const sp = createStreamingParser(schema, doc.root);
  sp.push(big.slice(0, prefix));
  const chunks = 32;
  const c0 = process.cpuUsage();
  for (let k = 0; k < chunks; ++k) sp.push(big.slice(prefix + k * 64, prefix + (k + 1) * 64));
  const d = process.cpuUsage(c0);
  const perChunk = (d.user + d.system) / chunks;
  console.log(`lang-core stream push (64 B) after ${prefix} chars: ${perChunk.toFixed(1)} us CPU/chunk`);
}
