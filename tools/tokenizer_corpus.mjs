// Deterministic corpus for the tokenizer goldens and benchmarks.
//
// Expands the hand-written seed (tests/data/text/corpus_seed.txt) into documents: the seed
// paragraphs themselves, re-cased and cut at arbitrary code points, plus generated stretches of
// every shape the tokenizer must get right (numbers of every length, whitespace runs with CR/LF,
// NBSP and ideographic spaces, contractions in every case, emoji ZWJ sequences and skin tones,
// combining marks, special-token spellings, random code points from many blocks). The same
// (seed text, PRNG seed, size) always gives the same documents.
import { readFileSync } from 'node:fs';

export function readSeed(path) {
  const raw = readFileSync(path, 'utf8');
  const body = raw.split('\n').filter((l) => !l.startsWith('# ')).join('\n');
  return body
    .split('\n%%\n')
    .map((p) => p.replace(/^%%\n/, '').replace(/\n%%$/, ''))
    .map((p) =>
      p
        .replace(/\{U\+([0-9A-F]{4,6})\}/g, (_, h) => String.fromCodePoint(parseInt(h, 16)))
        .replaceAll('{CR}', '\r')
        .replaceAll('{LF}', '\n')
        .replaceAll('{TAB}', '\t'))
    .filter((p) => p.trim().length > 0);
}

function mulberry32(a) {
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SPACES = [' ', ' ', ' ', '\t', '\n', '\r\n', '\r', '\u00A0', '\u3000', '\u2009', '\u0085',
  '\u2028', '\u202F', '\u000B', '\u000C', '\u1680', '\u180E', '\u200B'];
const EMOJI = ['😀', '👍', '👍🏻', '👍🏿', '👨‍👩‍👧‍👦', '👩🏽‍💻', '🏳️‍🌈', '🏴‍☠️', '🧑🏿‍🤝‍🧑🏻', '❤️‍🔥',
  '🇺🇸', '🇯🇵', '1️⃣', '#️⃣', '🫠', '🤷‍♀️', '🤦🏼‍♂️', '🐈‍⬛', '👁️‍🗨️', '\u{1F3FB}', '\u200D', '\uFE0F'];
const SUFFIXES = ['s', 't', 're', 've', 'm', 'll', 'd', 'S', 'T', 'RE', 'VE', 'M', 'LL', 'D', 'Re',
  'rE', 'Ve', 'vE', 'Ll', 'lL', 'ſ', 'x', 'sam', 'tis', 'dd'];
const WORDS = ['it', 'he', 'She', 'WE', 'they', 'You', 'I', 'dog', 'O', 'l', 'rock', 'X', 'ß',
  'über', 'Ψ', '猫', 'a1', '9', ''];
// Code point blocks the random stretches draw from: [first, last].
const BLOCKS = [[0x20, 0x7e], [0xa0, 0x24f], [0x300, 0x36f], [0x370, 0x3ff], [0x400, 0x4ff],
  [0x590, 0x5ff], [0x600, 0x6ff], [0x900, 0x97f], [0xe00, 0xe7f], [0x1100, 0x11ff],
  [0x2000, 0x206f], [0x2070, 0x209f], [0x20a0, 0x20cf], [0x2100, 0x214f], [0x2150, 0x218f],
  [0x2460, 0x24ff], [0x2500, 0x27bf], [0x3000, 0x303f], [0x3040, 0x30ff], [0x4e00, 0x9fff],
  [0xac00, 0xd7a3], [0xf900, 0xfaff], [0xfb00, 0xfb4f], [0xfe00, 0xfe6f], [0xff00, 0xffef],
  [0x10000, 0x1007f], [0x1d400, 0x1d7ff], [0x1f300, 0x1faff], [0x20000, 0x2a6df],
  [0x31350, 0x323af], [0xe0000, 0xe007f], [0x0, 0x10ffff]];

export function generateDocuments(paragraphs, specials, targetBytes, prngSeed = 1) {
  const rand = mulberry32(prngSeed);
  const int = (n) => Math.floor(rand() * n);
  const pick = (arr) => arr[int(arr.length)];
  const randomCodePoint = () => {
    for (;;) {
      const [a, b] = pick(BLOCKS);
      const cp = a + int(b - a + 1);
      if (cp >= 0xd800 && cp <= 0xdfff) continue;  // no surrogates: documents are valid UTF-8
      return String.fromCodePoint(cp);
    }
  };
  const recase = (s) => {
    const r = int(4);
    if (r === 0) return s.toUpperCase();
    if (r === 1) return s.toLowerCase();
    if (r === 2) return Array.from(s).map((c) => (rand() < 0.5 ? c.toUpperCase() : c)).join('');
    return s;
  };
  const digits = (n) => Array.from({ length: n }, () => String(int(10))).join('');
  const fragments = [
    () => pick(paragraphs),
    () => pick(paragraphs),
    () => recase(pick(paragraphs)),
    () => {
      const cps = Array.from(pick(paragraphs));
      const a = int(cps.length);
      return cps.slice(a, a + 1 + int(200)).join('');
    },
    () => Array.from({ length: 1 + int(12) }, () => digits(1 + int(25)) + pick(['', ' ', '.', ',', 'a', '\n', '-', '１']))
      .join(''),
    () => Array.from({ length: 1 + int(10) }, () =>
      Array.from({ length: 1 + int(8) }, () => pick(SPACES)).join('') + pick(WORDS)).join(''),
    () => Array.from({ length: 1 + int(10) }, () =>
      pick(WORDS) + pick(["'", "'", '’']) + pick(SUFFIXES) + pick([' ', '', '.', '\n', "'"])).join(''),
    () => Array.from({ length: 1 + int(12) }, () => pick(EMOJI) + pick(['', '', ' ', 'a'])).join(''),
    () => Array.from({ length: 1 + int(10) }, () =>
      pick(['e', 'a', 'o', 'A', 'ᄀ', 'ᅡ', 'क', 'ก', ' ', '1']) +
      Array.from({ length: 1 + int(4) }, () => String.fromCodePoint(0x300 + int(0x70))).join(''))
      .join(pick(['', ' '])),
    () => Array.from({ length: 1 + int(8) }, () =>
      pick(['', ' ', 'x', '\n', '<', '|']) + pick(specials) + pick(['', ' ', 'y', '\n', '>'])).join(''),
    () => Array.from({ length: 1 + int(30) }, randomCodePoint).join(''),
  ];
  const separators = ['', ' ', '\n', '\n\n', '\r\n', '\t', '  ', '\u00A0', '\u3000', ' \n '];
  const docs = [];
  let bytes = 0;
  while (bytes < targetBytes) {
    let doc = '';
    const parts = 1 + int(6);
    for (let k = 0; k < parts; ++k) doc += (k ? pick(separators) : '') + pick(fragments)();
    docs.push(doc);
    bytes += Buffer.byteLength(doc, 'utf8');
  }
  return docs;
}
