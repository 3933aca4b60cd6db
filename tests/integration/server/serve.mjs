// Test support for the Node tests: start `affordance serve` (replay provider, loopback, a fresh
// data folder) and stop it.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

export const root = resolve(new URL('../../..', import.meta.url).pathname);
export const script = (name) => join(root, 'tests/integration/server/scripts', name);

export async function startServer(binary, scriptName, extra = []) {
  const data = mkdtempSync(join(tmpdir(), 'affordance-serve-'));
  // Reads need grants (docs/AUTHORITY.md): the person grants the calendar read first.
  execFileSync(binary, ['grants', 'grant', 'calendar', '--read', '--data', data,
    '--connectors', join(root, 'examples/connectors')], { stdio: 'ignore' });
  const child = spawn(binary, ['serve', '--port', '0', '--json', '--data', data, '--provider', 'replay',
    '--script', script(scriptName), '--connectors', join(root, 'examples/connectors'), ...extra],
  { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise((ok, fail) => {
    const rl = createInterface({ input: child.stdout });
    rl.once('line', ok);
    child.once('exit', (code) => fail(new Error(`affordance serve exited with ${code}`)));
  });
  const info = JSON.parse(line);
  if (!info.port) throw new Error(`affordance serve did not start: ${line}`);
  const base = `http://127.0.0.1:${info.port}`;
  return {
    base,
    pid: child.pid,
    info,
    async json(method, path, body) {
      const res = await fetch(base + path, {
        method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined,
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((ok) => child.once('exit', ok));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(data, { recursive: true, force: true });
    },
  };
}
