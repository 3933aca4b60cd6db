// Side by side: our tokenizer (bench/text, Google Benchmark) and the reference library (Hugging
// Face tokenizers, native, npm @anush008/tokenizers) on the same corpus, in the same run.
// Prints encode MB/s for both and the ratio, plus decode and load numbers, on the main corpus and
// on the multilingual one (tools/tokenizer_bench_corpus.mjs --multilingual).
//
// usage: node bench/text/compare.mjs <path to text_bench> [corpus.json [multilingual.json]]
//   e.g. node bench/text/compare.mjs build-release/bench/text/text_bench
// The corpora default to the ones the text_bench target generated next to it
// (<build>/generated/text/bench_corpus.json, bench_corpus_multilingual.json).
import { execFileSync } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(join(root, 'tools', 'package.json'));
const { Tokenizer } = require('@anush008/tokenizers');

const bench = process.argv[2];
if (!bench || !existsSync(bench)) {
  console.error('usage: node bench/text/compare.mjs <path to text_bench> [corpus.json]');
  process.exit(2);
}
const corpusPath = process.argv[3] ||
  resolve(dirname(bench), '..', '..', 'generated', 'text', 'bench_corpus.json');
const mlPath = process.argv[4] || join(dirname(corpusPath), 'bench_corpus_multilingual.json');
const chunks = JSON.parse(readFileSync(corpusPath, 'utf8'));
const bytes = chunks.reduce((n, c) => n + Buffer.byteLength(c), 0);
const mlChunks = JSON.parse(readFileSync(mlPath, 'utf8'));
const mlBytes = mlChunks.reduce((n, c) => n + Buffer.byteLength(c), 0);
const mlNonAscii = mlChunks.reduce((n, c) => n + Buffer.from(c).filter((b) => b >= 0x80).length, 0);
const modelsRoot = process.env.AFFORDANCE_MODELS || join(root, 'models');
const MODELS = [['Qwen__Qwen3-4B-Instruct-2507', 'qwen'], ['meta-llama__Llama-3.1-8B-Instruct', 'llama']];

// Reference: one chunk at a time (single-threaded work; encodeBatch would use every core).
const reference = {};
for (const [dir, name] of MODELS) {
  const file = join(modelsRoot, dir, 'tokenizer.json');
  const t0 = process.hrtime.bigint();
  const tok = Tokenizer.fromFile(file);
  const loadMs = Number(process.hrtime.bigint() - t0) / 1e6;
  for (const c of chunks.slice(0, 4)) await tok.encode(c, null, { addSpecialTokens: false });
  const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
  const t1 = process.hrtime.bigint(), c1 = cpu();
  const encoded = [];
  for (const c of chunks) encoded.push((await tok.encode(c, null, { addSpecialTokens: false })).getIds());
  const encS = Number(process.hrtime.bigint() - t1) / 1e9, encCpu = cpu() - c1;
  const t2 = process.hrtime.bigint(), c2 = cpu();
  let outBytes = 0;
  for (const ids of encoded) outBytes += Buffer.byteLength(await tok.decode(ids, false));
  const decS = Number(process.hrtime.bigint() - t2) / 1e9, decCpu = cpu() - c2;
  // The multilingual corpus, added tokens matched (as ours: match_special).
  const t3 = process.hrtime.bigint(), c3 = cpu();
  for (const c of mlChunks) await tok.encode(c, null, { addSpecialTokens: false });
  const mlS = Number(process.hrtime.bigint() - t3) / 1e9, mlCpu = cpu() - c3;
  reference[name] = {
    loadMs, encode: bytes / encS / 1e6, encodeCpu: bytes / encCpu / 1e6,
    decode: outBytes / decS / 1e6, decodeCpu: outBytes / decCpu / 1e6,
    mlEncode: mlBytes / mlS / 1e6, mlEncodeCpu: mlBytes / mlCpu / 1e6,
  };
}

// Ours, same corpus, same run.
const out = execFileSync(bench, ['--benchmark_format=json', '--benchmark_min_time=2'], {
  env: { ...process.env, AFFORDANCE_TEXT_BENCH_CORPUS: corpusPath, AFFORDANCE_TEXT_BENCH_ML_CORPUS: mlPath },
  maxBuffer: 1 << 26,
}).toString();
const results = JSON.parse(out).benchmarks;
const find = (prefix) => results.find((b) => b.name.startsWith(prefix));
// Google Benchmark reports per-iteration times in the benchmark's unit (ms here).
const mbWall = (b) => b.bytes_per_second * (b.cpu_time / b.real_time) / 1e6;
const mbCpu = (b) => b.bytes_per_second / 1e6;

console.log(`corpus: ${chunks.length} chunks, ${(bytes / 1e6).toFixed(2)} MB (${corpusPath})`);
console.log(`multilingual corpus: ${mlChunks.length} chunks, ${(mlBytes / 1e6).toFixed(2)} MB, ` +
  `${(100 * mlNonAscii / mlBytes).toFixed(1)}% of the bytes non-ASCII (${mlPath})`);
console.log('Wall-clock and CPU-time rates (the CPU ratio is the stable one on a shared machine).');
console.log('model  what                         ours        reference   ratio');
MODELS.forEach(([, name], i) => {
  const enc = find(`Encode/model:${i}/special:0`);
  const encSp = find(`Encode/model:${i}/special:1`);
  const dec = find(`Decode/model:${i}`);
  const load = find(`Load/model:${i}`);
  const r = reference[name];
  const row = (what, ours, ref, unit) => console.log(
    `${name.padEnd(6)} ${what.padEnd(27)} ${ours.toFixed(1).padStart(8)} ${unit} ${ref.toFixed(1).padStart(8)} ${unit} ` +
    `${(unit === 'ms' ? ref / ours : ours / ref).toFixed(1).padStart(6)}x`);
  row('encode MB/s (wall)', mbWall(enc), r.encode, '  ');
  row('encode MB/s (cpu)', mbCpu(enc), r.encodeCpu, '  ');
  row('encode MB/s special (cpu)', mbCpu(encSp), r.encodeCpu, '  ');
  row('decode MB/s (cpu)', mbCpu(dec), r.decodeCpu, '  ');
  const ml = find(`EncodeMultilingual/model:${i}`);
  const mlFirst = find(`EncodeMultilingualFirstPass/model:${i}`);
  row('multilingual MB/s (wall)', mbWall(ml), r.mlEncode, '  ');
  row('multilingual MB/s (cpu)', mbCpu(ml), r.mlEncodeCpu, '  ');
  row('multilingual 1st pass (cpu)', mbCpu(mlFirst), r.mlEncodeCpu, '  ');
  row('load ms (wall)', load.real_time, r.loadMs, 'ms');
  console.log(`${name.padEnd(6)} load ms (cpu)               ${load.cpu_time.toFixed(1).padStart(8)} ms`);
  console.log(`${name.padEnd(6)} rss after load           ${load.rss_MiB.toFixed(1)} MiB (process), ` +
    `+${load.rss_delta_MiB.toFixed(1)} MiB for the tokenizer`);
});
