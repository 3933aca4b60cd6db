// The web UI stays typed: fails, listing file:line, for every `any` written as a type in web/src
// (`: any`, `as any`, `<any>`, `= any`, `| any`, `any[]`, z.any()) and every comment that silences
// the compiler (@ts-ignore, @ts-expect-error, @ts-nocheck). tsc -p web/tsconfig.json
// (web_typecheck) cannot see these: an explicit any type-checks. Run from CTest:
//   node tests/unit/server/web_no_any.mjs [DIR]      (DIR defaults to web/src)
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const dir = process.argv[2] ?? join(root, 'web/src');
const patterns = [
  [/:\s*any\b/, ': any'],
  [/\bas\s+any\b/, 'as any'],
  [/<\s*any\s*[,>[]/, '<any>'],
  [/,\s*any\s*>/, ', any>'],
  [/=\s*any\b/, '= any'],
  [/[|&]\s*any\b|\bany\s*[|&]/, '| any'],
  [/\bany\s*\[\s*\]/, 'any[]'],
  [/\bz\.any\s*\(/, 'z.any()'],
  [/@ts-(ignore|expect-error|nocheck)\b/, '@ts- comment'],
];

function* sources(d) {
  for (const e of readdirSync(d, { withFileTypes: true })) {
    if (e.isDirectory()) yield* sources(join(d, e.name));
    else if (/\.(ts|tsx|mts|cts)$/.test(e.name)) yield join(d, e.name);
  }
}

const found = [];
let files = 0;
for (const file of sources(dir)) {
  files++;
  readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
    const what = patterns.filter(([re]) => re.test(line)).map(([, name]) => name);
    if (what.length > 0) found.push(`${relative(process.cwd(), file)}:${i + 1}: ${what.join(', ')}: ${line.trim()}`);
  });
}
if (files === 0) {
  console.error(`web_no_any: no TypeScript sources under ${dir}`);
  process.exit(1);
}
if (found.length > 0) {
  console.error(found.join('\n'));
  console.error(`web_no_any: ${found.length} line(s) with any or a compiler suppression in ${dir}; give a real type`);
  process.exit(1);
}
console.log(`web_no_any: ${files} files, no any`);
