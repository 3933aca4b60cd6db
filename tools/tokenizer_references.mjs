// Writes golden token IDs from the reference implementation (Hugging Face tokenizers, native, npm
// @anush008/tokenizers) for the tokenizer tests, over the corpus tools/tokenizer_corpus.mjs makes.
//
// usage: node tools/tokenizer_references.mjs <out.jsonl> [--bytes N] [--seed S] [--multilingual-bytes N]
//
// Each output line is one case:
//   {"model": "qwen"|"llama", "mode": "plain"|"special"|"bos", "text": ..., "ids": [...]}
//     plain:   added-token spellings are plain text (the reference with its added_tokens removed,
//              which is our default EncodeOptions{}),
//     special: added tokens matched as the reference does (match_special = true),
//     bos:     as special plus the post-processor (add_special_tokens = true);
//   {"model": ..., "mode": "decode", "ids": [...], "text": ...}   reference decode (UTF-8 lossy);
//   {"model": ..., "mode": "plain"|"special", "corpus": "multilingual", "text": ..., "ids": [...]}:
//     documents of the multilingual corpus (generateMultilingual: many scripts, emoji, combining
//     marks, code, numbers), --multilingual-bytes N (default 600000) per model and mode;
//   {"mode": "variant", "name": ..., "tokenizer": <tokenizer.json text>, "texts": [...],
//    "special": [[ids]...], "plain": [[ids]...], "bos": [[ids]...]}: small tokenizers exercising
//    every supported component option (tools/tokenizer_variants.mjs).
import { writeFileSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSeed, generateDocuments, generateMultilingual } from './tokenizer_corpus.mjs';
import { variants, variantTexts } from './tokenizer_variants.mjs';

const require = createRequire(import.meta.url);
const { Tokenizer } = require('@anush008/tokenizers');

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const out = args[0];
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
if (!out) {
  console.error('usage: node tools/tokenizer_references.mjs <out.jsonl> [--bytes N] [--seed S] [--multilingual-bytes N]');
  process.exit(2);
}
const targetBytes = opt('--bytes', 1100000);
const prngSeed = opt('--seed', 1);
const modelsRoot = process.env.AFFORDANCE_MODELS || join(root, 'models');
const MODELS = {
  qwen: join(modelsRoot, 'Qwen__Qwen3-4B-Instruct-2507', 'tokenizer.json'),
  llama: join(modelsRoot, 'meta-llama__Llama-3.1-8B-Instruct', 'tokenizer.json'),
};

const specials = [];
const loaded = {};
for (const [name, file] of Object.entries(MODELS)) {
  const json = JSON.parse(readFileSync(file, 'utf8'));
  for (const t of json.added_tokens) specials.push(t.content);
  const full = Tokenizer.fromString(JSON.stringify(json));
  const plain = Tokenizer.fromString(JSON.stringify({ ...json, added_tokens: [] }));
  loaded[name] = { full, plain, size: full.getVocabSize(true) };
}

const docs = generateDocuments(readSeed(join(root, 'tests/data/text/corpus_seed.txt')),
  specials, targetBytes, prngSeed);
const multilingual = generateMultilingual(opt('--multilingual-bytes', 600000), prngSeed + 100);

let seed = 12345;
const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);

const lines = [];
for (const [name, t] of Object.entries(loaded)) {
  const plain = await t.plain.encodeBatch(docs, { addSpecialTokens: false });
  const special = await t.full.encodeBatch(docs, { addSpecialTokens: false });
  for (let i = 0; i < docs.length; ++i) {
    lines.push({ model: name, mode: 'plain', text: docs[i], ids: plain[i].getIds() });
    lines.push({ model: name, mode: 'special', text: docs[i], ids: special[i].getIds() });
  }
  const mlPlain = await t.plain.encodeBatch(multilingual, { addSpecialTokens: false });
  const mlSpecial = await t.full.encodeBatch(multilingual, { addSpecialTokens: false });
  for (let i = 0; i < multilingual.length; ++i) {
    lines.push({ model: name, mode: 'plain', corpus: 'multilingual', text: multilingual[i], ids: mlPlain[i].getIds() });
    lines.push({ model: name, mode: 'special', corpus: 'multilingual', text: multilingual[i], ids: mlSpecial[i].getIds() });
  }
  for (let i = 0; i < docs.length; i += 25) {
    const e = await t.full.encode(docs[i], null, { addSpecialTokens: true });
    lines.push({ model: name, mode: 'bos', text: docs[i], ids: e.getIds() });
  }
  // Decode vectors: slices of real encodings (cutting characters apart) and random IDs.
  for (let k = 0; k < 400; ++k) {
    let ids;
    if (k % 2 === 0) {
      const src = special[Math.floor(rand() * special.length)].getIds();
      const a = Math.floor(rand() * src.length);
      ids = src.slice(a, a + 1 + Math.floor(rand() * 12));
    } else {
      ids = Array.from({ length: 1 + Math.floor(rand() * 8) }, () => Math.floor(rand() * t.size));
    }
    lines.push({ model: name, mode: 'decode', ids, text: await t.full.decode(ids, false) });
  }
}
const llamaJson = JSON.parse(readFileSync(MODELS.llama, 'utf8'));
const texts = variantTexts(docs);
for (const v of variants(llamaJson)) {
  const text = JSON.stringify(v.json);
  const full = Tokenizer.fromString(text);
  const plain = Tokenizer.fromString(JSON.stringify({ ...v.json, added_tokens: [] }));
  const ids = async (t, addSpecialTokens) =>
    (await Promise.all(texts.map((x) => t.encode(x, null, { addSpecialTokens })))).map((e) => e.getIds());
  lines.push({
    mode: 'variant', name: v.name, tokenizer: text, texts,
    special: await ids(full, false), plain: await ids(plain, false), bos: await ids(full, true),
  });
}
writeFileSync(out, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
console.log(`wrote ${lines.length} cases over ${docs.length} documents ` +
  `(${docs.reduce((n, d) => n + Buffer.byteLength(d), 0)} bytes per model and mode) to ${out}`);
