// Small tokenizer.json variants that exercise every component option we support, for the golden
// cases of tools/tokenizer_references.mjs: added tokens with lstrip / rstrip / single_word /
// normalized, special and not; Split with a regex or string pattern, every behavior, invert;
// ByteLevel with add_prefix_space and use_regex; NFC and Sequence normalizers; merges as "a b"
// strings or [a, b] arrays; ignore_merges; TemplateProcessing with a prefix and a suffix.
// The model is a cut of the Llama 3 BPE: its first merges and the tokens they use.

const BEHAVIORS = ['Removed', 'Isolated', 'MergedWithPrevious', 'MergedWithNext', 'Contiguous'];

function smallModel(llama, mergeCount, arrayMerges, ignoreMerges) {
  const vocab = {};
  let next = 0;
  const add = (t) => { if (!(t in vocab)) vocab[t] = next++; };
  // Every byte-level character first, so any text can be encoded.
  for (const t of Object.keys(llama.model.vocab).filter((t) => [...t].length === 1)) add(t);
  const merges = [];
  for (const m of llama.model.merges.slice(0, mergeCount)) {
    const [a, b] = typeof m === 'string' ? m.split(' ') : m;
    add(a); add(b); add(a + b);
    merges.push(arrayMerges ? [a, b] : `${a} ${b}`);
  }
  // A few whole words only reachable through ignore_merges.
  for (const w of ['Ġhello', 'Ġworld', 'hello', 'ĠThe']) add(w);
  return {
    type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null,
    end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, ignore_merges: ignoreMerges,
    vocab, merges,
  };
}

function added(model, list) {
  let id = Object.keys(model.vocab).length;
  return list.map(([content, flags]) => ({
    id: id++, content, single_word: !!flags.single_word, lstrip: !!flags.lstrip,
    rstrip: !!flags.rstrip, normalized: !!flags.normalized, special: !!flags.special,
  }));
}

const byteLevel = (prefix, regex) =>
  ({ type: 'ByteLevel', add_prefix_space: prefix, trim_offsets: true, use_regex: regex });

export function variants(llama) {
  const out = [];
  const base = (name, mergeCount, arrayMerges, ignoreMerges) => {
    const model = smallModel(llama, mergeCount, arrayMerges, ignoreMerges);
    return {
      name,
      json: {
        version: '1.0', truncation: null, padding: null, added_tokens: [],
        normalizer: null, pre_tokenizer: byteLevel(false, true), post_processor: null,
        decoder: byteLevel(true, true), model,
      },
    };
  };
  // Added-token flags, matched on raw and on NFC-normalized text.
  {
    const v = base('added-token-flags', 3000, false, false);
    v.json.normalizer = { type: 'Sequence', normalizers: [{ type: 'NFC' }] };
    v.json.added_tokens = added(v.json.model, [
      ['<L>', { lstrip: true, special: true }], ['<R>', { rstrip: true, special: true }],
      ['<LR>', { lstrip: true, rstrip: true }], ['word', { single_word: true }],
      ['<plain>', {}], ['e\u0301cole', { normalized: true }], ['<sp>', { special: true }],
      ['<sp', { special: true }], ['ab', { single_word: true, lstrip: true, rstrip: true }]]);
    out.push(v);
  }
  // Split: regex and string patterns, every behavior, with and without invert.
  for (const behavior of BEHAVIORS) {
    for (const invert of [false, true]) {
      const v = base(`split-${behavior}-${invert ? 'inverted' : 'plain'}`, 2000, true, false);
      v.json.pre_tokenizer = {
        type: 'Sequence', pretokenizers: [
          { type: 'Split', pattern: { Regex: '\\s+|[0-9]' }, behavior, invert },
          byteLevel(behavior === 'Isolated', behavior !== 'Removed')],
      };
      out.push(v);
    }
    const s = base(`split-string-${behavior}`, 2000, false, true);
    s.json.pre_tokenizer = {
      type: 'Sequence', pretokenizers: [
        { type: 'Split', pattern: { String: ', ' }, behavior, invert: false }, byteLevel(false, false)],
    };
    out.push(s);
  }
  // ignore_merges, array merges, a template with a suffix.
  {
    const v = base('ignore-merges-template', 1500, true, true);
    v.json.pre_tokenizer = byteLevel(true, true);
    v.json.added_tokens = added(v.json.model, [['<s>', { special: true }], ['</s>', { special: true }]]);
    const [s, e] = v.json.added_tokens;
    v.json.post_processor = {
      type: 'Sequence', processors: [
        byteLevel(true, true),
        { type: 'TemplateProcessing',
          single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
            { SpecialToken: { id: '</s>', type_id: 0 } }],
          pair: [{ Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }],
          special_tokens: {
            '<s>': { id: '<s>', ids: [s.id], tokens: ['<s>'] },
            '</s>': { id: '</s>', ids: [e.id], tokens: ['</s>'] } } }],
    };
    out.push(v);
  }
  return out;
}

// Short texts aimed at the options above, plus cuts of the corpus documents.
export function variantTexts(docs) {
  const texts = [
    'a <L> b', 'a   <L>   b', '<L>', '  <L>', 'x<R>   y', 'x <R>\n\ny', ' <LR> ', 'a<LR>b',
    'word', 'a word here', 'words', 'sword', 'word_', '_word', 'word.', 'éword', 'word1',
    '<plain> and <plain>', '<sp><sp>', '<sp <sp>', '<sp', 'ab', 'a ab b', 'xab', 'ab1', ' ab ',
    'école', 'e\u0301cole', 'une e\u0301cole', 'hello world', 'Hello World', ' hello', 'The end',
    'a, b, c', ', , ,', 'x,y, z', '1 2  3\t4\n5', '  leading', 'trailing  ', '', ' ', '12345',
    'hello <s> world </s>', "it's 'quoted'",
  ];
  for (let i = 0; i < docs.length && texts.length < 400; i += 7) texts.push(Array.from(docs[i]).slice(0, 160).join(''));
  return texts;
}
