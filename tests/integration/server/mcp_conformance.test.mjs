// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in tools/), its
// active server suite run against both transports of the MCP door: Streamable HTTP (`/mcp` on
// `affordance serve`) and stdio (`affordance mcp`, through conformance/stdio_bridge.mjs: the suite
// reaches servers only by URL). Every scenario passes except those the expected-failures files list,
// each with the reason it does not apply (the suite fails the run on a listed scenario that passes).
//   node tests/integration/server/mcp_conformance.test.mjs build/affordance
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import test from 'node:test';
import { startBridge } from './conformance/stdio_bridge.mjs';
import { root } from './serve.mjs';

const binary = process.argv[2] ?? join(root, 'build/affordance');
const here = join(root, 'tests/integration/server/conformance');
const cli = join(root, 'tools/node_modules/@modelcontextprotocol/conformance/dist/index.js');
const data = mkdtempSync(join(tmpdir(), 'affordance-conformance-'));
process.on('exit', () => rmSync(data, { recursive: true, force: true }));
const common = ['--data', data, '--connectors', join(root, 'examples/connectors')];

// Runs the suite against `url`; resolves its exit code and output.
function conformance(url, baseline) {
  return new Promise((ok, fail) => {
    const major = Number(process.versions.node.split('.')[0]);
    const child = spawn(process.execPath, [...(major < 22 ? ['--import', join(here, 'node20_fs.mjs')] : []), cli, 'server',
      '--url', url, '--expected-failures', join(here, baseline)], { cwd: data, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (out += d));
    child.once('error', fail);
    child.once('exit', (code) => ok({ code, out }));
  });
}

function verdict({ code, out }) {
  // The suite's own summary: what failed unexpectedly, and stale baseline entries.
  const summary = out.split('\n').filter((l) => /Total:|✗|stale|Unexpected|Expected failures|~ /.test(l)).join('\n');
  assert.equal(code, 0, `the conformance suite failed:\n${summary}\n--- full output tail ---\n${out.slice(-6000)}`);
  assert.match(out, /Total: \d+ passed, \d+ failed/);
}

test('Streamable HTTP: the active server suite passes but for the scenarios that do not apply', async () => {
  const child = spawn(binary, ['serve', '--port', '0', '--json', ...common], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const line = await new Promise((ok, fail) => {
      createInterface({ input: child.stdout }).once('line', ok);
      child.once('exit', (c) => fail(new Error(`affordance serve exited with ${c}`)));
    });
    verdict(await conformance(`http://127.0.0.1:${JSON.parse(line).port}/mcp`, 'expected-failures-http.yml'));
  } finally {
    child.kill('SIGTERM');
  }
});

test('stdio: the active server suite passes but for the scenarios that do not apply', async () => {
  execFileSync(binary, ['capabilities', '--json'], { stdio: 'ignore' });  // the binary runs at all
  const bridge = await startBridge(binary, ['mcp', ...common]);
  try {
    verdict(await conformance(bridge.url, 'expected-failures-stdio.yml'));
  } finally {
    bridge.close();
  }
});
