// web/src/until.ts (how long until an approval expires, as the web's effect card says it) bundled
// with the pinned esbuild and run under node. The table is the terminal's too
// (tests/unit/authority/effect_card_test.cpp, EffectCard.OneRoundingRuleForTheTimeLeft): issue 42
// found "(in 6 days)" in the terminal and "(in 7 days)" in the web for one expiry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = process.cwd();
const esbuild = createRequire(join(root, 'tools/node_modules/'))('esbuild');
const built = await esbuild.build({
  entryPoints: [join(root, 'web/src/until.ts')], bundle: true, format: 'esm', write: false, logLevel: 'silent',
});
const { until } = await import('data:text/javascript;base64,' + Buffer.from(built.outputFiles[0].text).toString('base64'));

const H = 3600 * 1000;
const D = 24 * H;
export const TABLE = [
  [5000, '5 s'], [89999, '89 s'], [90000, '2 min'], [29 * 60000 + 29999, '29 min'], [29 * 60000 + 30000, '30 min'],
  [90 * 60000, '2 h'], [5 * H + 29 * 60000, '5 h'], [5 * H + 30 * 60000, '6 h'], [36 * H - 1000, '36 h'],
  [36 * H, '2 days'], [7 * D - 5000, '7 days'], [7 * D - 13 * H, '6 days'], [6 * D + 12 * H, '7 days'],
];

test('the time left rounds to the nearest unit, as the terminal rounds it', () => {
  for (const [left, words] of TABLE) assert.equal(until(left), words, `${left} ms`);
});
