// web/src/template.ts (an Html canvas's placeholders, filled in the browser) bundled with the
// pinned esbuild and run under node: the cases the terminal's FillTemplate handles, and data that
// tries to become markup.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = process.cwd();
const esbuild = createRequire(join(root, 'tools/node_modules/'))('esbuild');
const built = await esbuild.build({
  entryPoints: [join(root, 'web/src/template.ts')], bundle: true, format: 'esm', write: false, logLevel: 'silent',
});
const { fillTemplate } = await import('data:text/javascript;base64,' + Buffer.from(built.outputFiles[0].text).toString('base64'));

test('placeholders and dotted paths are filled; missing ones are empty', () => {
  assert.equal(fillTemplate('<h2>{{ title }}</h2><p>{{a.b.c}}|{{nope}}|{{n}}|{{t}}</p>', { title: 'Week', a: { b: { c: 'deep' } }, n: 3, t: true }),
    '<h2>Week</h2><p>deep||3|true</p>');
  assert.equal(fillTemplate('{{x}}', { x: null }), '');
  assert.equal(fillTemplate('{{x}}', { x: { y: [1, 2] } }), '{&quot;y&quot;:[1,2]}');
  assert.equal(fillTemplate('no data {{x}}', undefined), 'no data ');
});

// Issue 44: `.length` of an array or a string is filled (code points, as the terminal counts);
// an object's own "length" key wins; a length of anything else is empty, as a missing path is.
test('length of an array or a string is its size', () => {
  const data = { events: { rows: [{ s: 'a' }, { s: 'b' }, { s: 'c' }] }, name: 'Zoë😀', box: { length: 'own' }, n: 3 };
  assert.equal(fillTemplate('{{events.rows.length}} events, {{name.length}} letters, {{box.length}}, {{n.length}}|{{nope.length}}|', data),
    '3 events, 4 letters, own, ||');
  assert.equal(fillTemplate('{{#each events.rows}}{{this.length}}{{s.length}};{{/each}}', data), '1;1;1;');
});

test('each repeats its body per item; the item is searched first, then outer scopes', () => {
  const data = { owner: 'Ana', events: { rows: [{ summary: 'Standup' }, { summary: 'Review', owner: 'Bo' }] } };
  assert.equal(fillTemplate('<ul>{{#each events.rows}}<li>{{summary}} ({{owner}})</li>{{/each}}</ul>', data),
    '<ul><li>Standup (Ana)</li><li>Review (Bo)</li></ul>');
  assert.equal(fillTemplate('{{#each xs}}[{{this}}]{{/each}}', { xs: ['a', 'b'] }), '[a][b]');
  assert.equal(fillTemplate('{{#each xs}}{{#each this}}{{.}}{{/each}};{{/each}}', { xs: [[1, 2], [3]] }), '12;3;');
  assert.equal(fillTemplate('{{#each missing}}x{{/each}}after', {}), 'after');
  assert.equal(fillTemplate('{{#each notlist}}x{{/each}}', { notlist: { a: 1 } }), '');
});

test('data never becomes markup: text and attribute characters are escaped', () => {
  const hostile = '<img src=x onerror=alert(1)>"\' & </li>';
  assert.equal(fillTemplate('<li title="{{v}}">{{v}}</li>', { v: hostile }),
    '<li title="&lt;img src=x onerror=alert(1)&gt;&quot;&#39; &amp; &lt;/li&gt;">&lt;img src=x onerror=alert(1)&gt;&quot;&#39; &amp; &lt;/li&gt;</li>');
  // A value that spells a placeholder is not filled again.
  assert.equal(fillTemplate('{{a}}', { a: '{{b}}', b: 'no' }), '{{b}}');
});

test('stray closes are dropped, unclosed tags kept, nesting is bounded', () => {
  assert.equal(fillTemplate('a{{/each}}b', {}), 'ab');
  assert.equal(fillTemplate('a {{unclosed', {}), 'a {{unclosed');
  let deep = '{{x}}';
  for (let i = 0; i < 40; i++) deep = `{{#each xs}}${deep}{{/each}}`;
  const xs = [];
  let cur = xs;
  for (let i = 0; i < 40; i++) { const next = []; cur.push({ xs: next, x: i }); cur = next; }
  const out = fillTemplate(deep, { xs });
  assert.ok(out.length < 2000, 'bounded');
});
