// Builds the web UI into static files that `affordance serve` serves (no Node at run time):
//   node web/build.mjs OUT_DIR        -> OUT_DIR/index.html, OUT_DIR/assets/app.js, app.css
// Packages come from tools/node_modules (pinned in tools/package-lock.json).
import { createRequire } from 'node:module';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const tools = resolve(here, '../tools');
const require = createRequire(join(tools, 'package.json'));
const esbuild = require('esbuild');
const out = resolve(process.argv[2] ?? join(here, '../build/web'));
const aiVersion = JSON.parse(readFileSync(join(tools, 'node_modules/ai/package.json'), 'utf8')).version;

mkdirSync(join(out, 'assets'), { recursive: true });
await esbuild.build({
  entryPoints: [join(here, 'src/main.tsx')],
  outfile: join(out, 'assets/app.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022'],
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  nodePaths: [join(tools, 'node_modules')],
  jsx: 'automatic',
  define: {
    'process.env.NODE_ENV': '"production"',
    __AI_SDK_VERSION__: JSON.stringify(aiVersion),
  },
  logLevel: 'warning',
});
copyFileSync(join(here, 'src/styles.css'), join(out, 'assets/app.css'));
copyFileSync(join(here, 'index.html'), join(out, 'index.html'));
console.log(`web: built ${out} (ai ${aiVersion})`);
