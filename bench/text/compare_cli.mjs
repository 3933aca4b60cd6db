// The whole command, side by side: one `affordance tokenize --model M --special` process (start,
// load, read stdin, encode, print the IDs) against the reference library's encode alone (Hugging
// Face tokenizers, native, npm @anush008/tokenizers, in its own node process, the text already in
// memory), on the multilingual corpus (tools/tokenizer_bench_corpus.mjs --multilingual) as one
// text. Rounds alternate ours and the reference so both see the same machine load; medians are
// reported, in wall-clock and in CPU time (user + system; the stable one on a shared machine).
// Every round also checks that our IDs equal the reference's.
//
// usage: node bench/text/compare_cli.mjs <path to affordance> [--rounds N] [--model M] [--corpus F]
//   e.g. node bench/text/compare_cli.mjs build/affordance --rounds 7
// --corpus: a JSON array of chunks (joined with blank lines); default: generated here (4.5 MB).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { multilingualChunks } from '../../tools/tokenizer_bench_corpus.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const cli = args[0];
if (!cli || !existsSync(cli)) {
  console.error('usage: node bench/text/compare_cli.mjs <path to affordance> [--rounds N] [--model M] [--corpus F]');
  process.exit(2);
}
const rounds = Number(opt('--rounds', 5));
const model = opt('--model', 'Qwen__Qwen3-4B-Instruct-2507');
const corpusFile = opt('--corpus', null);
const chunks = corpusFile ? JSON.parse(readFileSync(corpusFile, 'utf8')) : multilingualChunks(4.5e6);
const text = chunks.join('\n\n');
const bytes = Buffer.byteLength(text);
const nonAscii = Buffer.from(text).filter((b) => b >= 0x80).length;
const modelsRoot = process.env.AFFORDANCE_MODELS || join(root, 'models');
const tokenizerJson = join(modelsRoot, model, 'tokenizer.json');

const dir = mkdtempSync(join(tmpdir(), 'tokenize-bench-'));
const input = join(dir, 'input.txt');
writeFileSync(input, text);

// The reference in its own process: load, read, then time encode alone (wall and CPU).
const refScript = join(dir, 'reference.cjs');
writeFileSync(refScript, `
const { Tokenizer } = require(${JSON.stringify(join(root, 'tools', 'node_modules', '@anush008', 'tokenizers'))});
const fs = require('fs');
(async () => {
  const tok = Tokenizer.fromFile(process.argv[2]);
  const text = fs.readFileSync(process.argv[3], 'utf8');
  const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
  const t0 = process.hrtime.bigint(), c0 = cpu();
  const ids = (await tok.encode(text, null, { addSpecialTokens: false })).getIds();
  const wall = Number(process.hrtime.bigint() - t0) / 1e9, cpuS = cpu() - c0;
  fs.writeFileSync(process.argv[4], ids.join(' '));
  console.log(JSON.stringify({ wall, cpu: cpuS }));
})();
`);

// Ours: the whole process under bash's \`time\` (real, user, sys).
function runOurs() {
  const out = join(dir, 'ours.txt');
  const r = spawnSync('bash', ['-c',
    `TIMEFORMAT='%R %U %S'; { time "$0" tokenize --model "$1" --special < "$2" > "$3"; } 2>&1`,
    cli, model, input, out], { encoding: 'utf8' });
  const [real, user, sys] = r.stdout.trim().split('\n').pop().split(' ').map(Number);
  if (r.status !== 0 || !(real >= 0)) throw new Error(`affordance tokenize failed: ${r.stdout} ${r.stderr}`);
  return { wall: real, cpu: user + sys, ids: readFileSync(out, 'utf8').trim() };
}
function runReference() {
  const out = join(dir, 'reference.txt');
  const line = execFileSync(process.execPath, [refScript, tokenizerJson, input, out], { encoding: 'utf8' });
  return { ...JSON.parse(line.trim().split('\n').pop()), ids: readFileSync(out, 'utf8').trim() };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ours = [], ref = [];
let mismatches = 0;
for (let k = 0; k < rounds; ++k) {
  const a = runOurs();
  const b = runReference();
  if (a.ids !== b.ids) ++mismatches;
  ours.push(a);
  ref.push(b);
  console.log(`round ${k + 1}: ours ${a.wall.toFixed(3)} s wall ${a.cpu.toFixed(3)} s cpu | ` +
    `reference encode ${b.wall.toFixed(3)} s wall ${b.cpu.toFixed(3)} s cpu`);
}
rmSync(dir, { recursive: true, force: true });

const ow = median(ours.map((x) => x.wall)), oc = median(ours.map((x) => x.cpu));
const rw = median(ref.map((x) => x.wall)), rc = median(ref.map((x) => x.cpu));
console.log(`corpus: ${(bytes / 1e6).toFixed(2)} MB, ${(100 * nonAscii / bytes).toFixed(1)}% of the bytes non-ASCII; ` +
  `model ${model}, --special; ${rounds} rounds, medians`);
console.log(`whole \`affordance tokenize\` process: ${ow.toFixed(3)} s wall, ${oc.toFixed(3)} s cpu`);
console.log(`reference encode alone:             ${rw.toFixed(3)} s wall, ${rc.toFixed(3)} s cpu`);
console.log(`ratio (reference encode / our whole process): ${(rw / ow).toFixed(1)}x wall, ${(rc / oc).toFixed(1)}x cpu`);
console.log(mismatches ? `IDS DIFFER from the reference in ${mismatches} of ${rounds} rounds` :
  'IDs identical to the reference in every round');
process.exit(mismatches ? 1 : 0);
