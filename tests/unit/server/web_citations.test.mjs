// web/src/citations.ts (a text part cut into prose and evidence chips, and the words a chip says)
// bundled with the pinned esbuild and run under node: citations as the server sends them on
// text-end, and citations that do not fit the text, which must never lose or repeat any of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = process.cwd();
const esbuild = createRequire(join(root, 'tools/node_modules/'))('esbuild');
const built = await esbuild.build({
  entryPoints: [join(root, 'web/src/citations.ts')], bundle: true, format: 'esm', write: false, logLevel: 'silent',
});
const { segments, paragraphs, citationTitle, factsOf, chipClass } =
  await import('data:text/javascript;base64,' + Buffer.from(built.outputFiles[0].text).toString('base64'));

// A citation of `spelling`, found at its `nth` occurrence in `text`, as the server writes it.
function cite(text, spelling, ref, facts = {}, nth = 0) {
  let at = -1;
  for (let i = 0; i <= nth; i++) at = text.indexOf(spelling, at + 1);
  assert.ok(at >= 0, `${spelling} in ${text}`);
  return {
    source: { type: 'source', sourceType: 'document', id: ref, mediaType: 'application/json', title: ref,
      providerMetadata: { affordance: { ref, class: 'source', ...facts } } },
    startIndex: at, endIndex: at + spelling.length, citedText: spelling,
  };
}

const joined = (segs) => segs.map((s) => s.text).join('');
const shape = (segs) => segs.map((s) => (s.kind === 'text' ? s.text : s.refs.map((r) => `<${r.ref}>`).join('')));

test('a single citation becomes one chip run between the prose around it', () => {
  const text = 'You have 3 meetings today [r3].';
  const segs = segments(text, [cite(text, '[r3]', 'r3', { toolName: 'RunConnectorCommand' })]);
  assert.deepEqual(shape(segs), ['You have 3 meetings today ', '<r3>', '.']);
  assert.equal(joined(segs), text);
  assert.equal(segs[1].text, '[r3]');
  assert.equal(segs[1].refs[0].facts.toolName, 'RunConnectorCommand');
  assert.equal(chipClass(segs[1].refs[0]), 'source');
});

test('a group "[r1, r3]" is two entries of one range: one run, two chips, in order', () => {
  const text = 'Both agree [r1, r3] and so on';
  const segs = segments(text, [cite(text, '[r1, r3]', 'r1'), cite(text, '[r1, r3]', 'r3', { class: 'effect' })]);
  assert.deepEqual(shape(segs), ['Both agree ', '<r1><r3>', ' and so on']);
  assert.deepEqual(segs[1].refs.map(chipClass), ['source', 'effect']);
  // Adjacent spellings are two ranges, two runs side by side; a repeated ref is shown once.
  const adj = 'x [r1][r3] y [r2, r2]';
  const a = segments(adj, [cite(adj, '[r3]', 'r3'), cite(adj, '[r1]', 'r1'), cite(adj, '[r2, r2]', 'r2'), cite(adj, '[r2, r2]', 'r2')]);
  assert.deepEqual(shape(a), ['x ', '<r1>', '<r3>', ' y ', '<r2>']);
});

test('citations land in their paragraphs after the text is split on blank lines', () => {
  const text = 'First [r1] here.\n\nSecond para\n\n\ncites [r2]\nstill second';
  const paras = paragraphs(text, [cite(text, '[r2]', 'r2'), cite(text, '[r1]', 'r1')]);
  assert.deepEqual(paras.map(shape), [['First ', '<r1>', ' here.'], ['Second para'], ['cites ', '<r2>', '\nstill second']]);
  // Without citations it is exactly the split the prose always did, empty paragraphs included.
  const plain = '\n\na\n\nb [r1]';
  assert.deepEqual(paragraphs(plain, undefined).map((p) => p.map((s) => s.text).join('')), plain.split(/\n{2,}/));
  assert.deepEqual(paragraphs('', []), [[]]);
  // A chip right after a blank line opens the new paragraph.
  const lead = 'a\n\n[r1] b';
  assert.deepEqual(paragraphs(lead, [cite(lead, '[r1]', 'r1')]).map(shape), [['a'], ['<r1>', ' b']]);
});

test('indices are UTF-16 code units: characters outside the BMP before a citation', () => {
  const text = '😀 x [r1] 𝄞 [r2]';
  const c1 = cite(text, '[r1]', 'r1');
  assert.equal(c1.startIndex, 5, '😀 is two code units');
  const segs = segments(text, [c1, cite(text, '[r2]', 'r2')]);
  assert.deepEqual(shape(segs), ['😀 x ', '<r1>', ' 𝄞 ', '<r2>']);
  // Code-point indices (what a server counting characters would send) do not match and are dropped.
  const byCodePoint = { ...c1, startIndex: 4, endIndex: 8 };
  assert.deepEqual(shape(segments(text, [byCodePoint])), [text]);
});

test('bad ranges are ignored and the text is kept whole, once', () => {
  const text = 'a [r1] b [r2] c [r3] d';
  const good = cite(text, '[r3]', 'r3');
  const bad = [
    { ...cite(text, '[r1]', 'r1'), endIndex: text.length + 4 },          // out of bounds
    { ...cite(text, '[r1]', 'r1'), startIndex: -1 },                       // negative
    { ...cite(text, '[r1]', 'r1'), startIndex: 2.5 },                      // not an integer
    { ...cite(text, '[r1]', 'r1'), startIndex: '2' },                      // not a number
    { ...cite(text, '[r1]', 'r1'), citedText: '[r9]' },                    // slice is not its spelling
    { ...cite(text, '[r1]', 'r1'), citedText: undefined },                 // no spelling to check
    { ...cite(text, '[r1]', 'r1'), endIndex: 2 },                          // empty
    { startIndex: 2, endIndex: 6, citedText: '[r1]' },                     // no source, no ref
    null, 7, 'r1',
  ];
  const segs = segments(text, [...bad, good]);
  assert.equal(joined(segs), text);
  assert.deepEqual(shape(segs), ['a [r1] b [r2] c ', '<r3>', ' d']);
  // Overlapping ranges contradict each other: all of them show as text; the others still chip.
  const overlap = [
    cite(text, '[r1]', 'r1'),
    { ...cite(text, '[r2]', 'r2'), startIndex: 4, citedText: text.slice(4, 13) },  // "r1] b [r2]"
    cite(text, '[r2]', 'r2'),
    good,
  ];
  const o = segments(text, overlap);
  assert.equal(joined(o), text);
  assert.deepEqual(shape(o), ['a [r1] b [r2] c ', '<r3>', ' d']);
  // Unsorted input is fine: each range is checked against the text on its own.
  assert.deepEqual(shape(segments(text, [good, cite(text, '[r1]', 'r1')])), ['a ', '<r1>', ' b [r2] c ', '<r3>', ' d']);
  assert.deepEqual(shape(segments(text, 'nope')), [text]);
});

test('facts of the wrong type are left out; no class means the chip vouches for nothing', () => {
  const text = 'x [r4]';
  const c = cite(text, '[r4]', 'r4', { rows: '3', syncedAt: null, toolName: 7, connector: 'calendar' });
  assert.deepEqual(factsOf(c), { ref: 'r4', class: 'source', connector: 'calendar' });
  const noClass = cite(text, '[r4]', 'r4', { class: 'proven' });
  const [, run] = segments(text, [noClass]);
  assert.equal(run.refs[0].facts, undefined);
  assert.equal(chipClass(run.refs[0]), 'unresolved');
  assert.equal(citationTitle(run.refs[0]), 'r4 · no evidence recorded for this reference');
});

const at = (facts) => ({ ref: facts.ref, facts });

test('an invalid citation says it points to no tool result', () => {
  assert.equal(citationTitle(at({ ref: 'r9', class: 'invalid', reason: 'r9 names no tool result of this thread' })),
    'r9 · points to no tool result');
});

test('a denied write says what it came to and why', () => {
  assert.equal(citationTitle(at({ ref: 'r2', class: 'unresolved', toolName: 'invoke_mutation', truth: 'denied',
    status: 'output-denied', reason: 'the write was denied, nothing ran' })),
  'r2 · invoke_mutation · denied: the write was denied, nothing ran');
  assert.equal(citationTitle(at({ ref: 'r5', class: 'unresolved', toolName: 'invoke_mutation', truth: 'execution_outcome_unknown' })),
    'r5 · invoke_mutation · execution outcome unknown');
  assert.equal(citationTitle(at({ ref: 'r6', class: 'unresolved', toolName: 'q', status: 'not-run' })), 'r6 · q · not run');
  assert.equal(citationTitle(at({ ref: 'r7', class: 'effect', toolName: 'invoke_mutation', connector: 'calendar', truth: 'verified' })),
    'r7 · invoke_mutation · calendar · verified');
});

test('a read says where its data came from, how fresh, and how many rows', () => {
  const now = Date.UTC(2025, 4, 12, 14, 15, 0);
  const syncedAt = now / 1000 - 12 * 60;
  const t = citationTitle(at({ ref: 'r3', class: 'source', toolName: 'RunConnectorCommand', connector: 'calendar',
    truth: 'executed', dataState: 'mirrored', syncedAt, rows: 3 }), now);
  const abs = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(syncedAt * 1000));
  assert.equal(t, `r3 · RunConnectorCommand · calendar · mirrored, synced 12 min ago (${abs}) · 3 rows`);
  assert.equal(citationTitle(at({ ref: 'r1', class: 'source', dataState: 'live', rows: 1 }), now), 'r1 · live · 1 row');
  assert.equal(citationTitle(at({ ref: 'r1', class: 'source', dataState: 'stale', syncedAt: 0 }), now), 'r1 · stale, last sync unknown');
  assert.match(citationTitle(at({ ref: 'r1', class: 'source', dataState: 'stale', syncedAt: now / 1000 - 3 * 86400 }), now), /synced 3 days ago/);
  assert.match(citationTitle(at({ ref: 'r1', class: 'source', dataState: 'mirrored', syncedAt: now / 1000 + 30 }), now), /synced just now/);
});
