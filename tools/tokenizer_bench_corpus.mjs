// Writes the tokenizer benchmark corpus: a JSON array of ~64 KB text chunks (>= --bytes in total,
// default 6 MB) made of the same generated documents as the goldens (tools/tokenizer_corpus.mjs),
// so bench/text and bench/text/compare.mjs measure both implementations on identical input.
// --multilingual: the multilingual corpus instead (generateMultilingual: many scripts, emoji,
// combining marks, code and numbers; default 4.5 MB, most bytes non-ASCII).
//
// usage: node tools/tokenizer_bench_corpus.mjs <out.json> [--bytes N] [--multilingual]
import { writeFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSeed, generateDocuments, generateMultilingual } from './tokenizer_corpus.mjs';

function toChunks(docs) {
  const chunks = [];
  let chunk = '';
  for (const d of docs) {
    chunk += (chunk ? '\n\n' : '') + d;
    if (Buffer.byteLength(chunk) >= 65536) {
      chunks.push(chunk);
      chunk = '';
    }
  }
  if (chunk) chunks.push(chunk);
  return chunks;
}

export function multilingualChunks(targetBytes) {
  return toChunks(generateMultilingual(targetBytes, 11));
}

export function benchChunks(targetBytes) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const modelsRoot = process.env.AFFORDANCE_MODELS || join(root, 'models');
  const specials = [];
  for (const m of ['Qwen__Qwen3-4B-Instruct-2507', 'meta-llama__Llama-3.1-8B-Instruct']) {
    const json = JSON.parse(readFileSync(join(modelsRoot, m, 'tokenizer.json'), 'utf8'));
    for (const t of json.added_tokens) specials.push(t.content);
  }
  const docs = generateDocuments(readSeed(join(root, 'tests/data/text/corpus_seed.txt')),
    specials, targetBytes, 7);
  return toChunks(docs);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const i = args.indexOf('--bytes');
  const multilingual = args.includes('--multilingual');
  const bytes = i >= 0 ? Number(args[i + 1]) : multilingual ? 4.5e6 : 6 * 1024 * 1024;
  if (!args[0] || args[0].startsWith('--')) {
    console.error('usage: node tools/tokenizer_bench_corpus.mjs <out.json> [--bytes N] [--multilingual]');
    process.exit(2);
  }
  const chunks = multilingual ? multilingualChunks(bytes) : benchChunks(bytes);
  writeFileSync(args[0], JSON.stringify(chunks));
  const total = chunks.reduce((n, c) => n + Buffer.byteLength(c), 0);
  const nonAscii = chunks.reduce((n, c) => n + Buffer.from(c).filter((b) => b >= 0x80).length, 0);
  console.log(`wrote ${chunks.length} chunks, ${total} bytes, ${(100 * nonAscii / total).toFixed(1)}% non-ASCII`);
}
