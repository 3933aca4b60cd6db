// Test support for the Node tests: start `affordance serve` (replay provider, loopback, a fresh
// data folder) and stop it.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

export const root = resolve(new URL('../../..', import.meta.url).pathname);
export const script = (name) => join(root, 'tests/integration/server/scripts', name);

// A client of the server at `base`, as a process of this machine's OS user is one.
//   json(method, path, body?, headers?) -> {status, body, headers}: a JSON request (the gate wants
//     a JSON content type on every POST, body or not); `headers` adds to it (the person's session).
//   person() -> the person's web session header, as the web UI starts it (POST /api/session from
//     this machine's own OS user): what a decision needs.
// `auth`: headers every request carries (a node's access token).
export function client(base, auth = {}) {
  const json = async (method, path, body, headers = {}) => {
    const res = await fetch(base + path, {
      method,
      headers: { ...(method === 'GET' ? {} : { 'content-type': 'application/json' }), ...auth, ...headers },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  };
  const person = async () => {
    const r = await json('POST', '/api/session', {});
    if (r.status !== 201) throw new Error(`no person session: ${JSON.stringify(r.body)}`);
    return { 'x-affordance-session': r.body.session.token };
  };
  return { json, person };
}

// `writable`: the calendar is a copy in the data folder (the examples stay untouched) and the
// person has granted writes to it too, so a staged write can be approved and run.
// `prepare(data, connectors)`: runs before the server starts, on its data folder (threads made by
// the CLI, say); a turn it left running whose process is gone is recovered when the server starts.
export async function startServer(binary, scriptName, extra = [], { writable = false, prepare } = {}) {
  const data = mkdtempSync(join(tmpdir(), 'affordance-serve-'));
  let connectors = join(root, 'examples/connectors');
  if (writable) {
    const copy = join(data, 'connectors');
    mkdirSync(copy);
    for (const f of ['calendar.json', 'calendar.ics']) copyFileSync(join(connectors, f), join(copy, f));
    connectors = copy;
  }
  // Reads need grants (docs/AUTHORITY.md): the person grants the calendar read first.
  for (const access of writable ? ['--read', '--write'] : ['--read']) {
    execFileSync(binary, ['grants', 'grant', 'calendar', access, '--data', data,
      '--connectors', connectors], { stdio: 'ignore' });
  }
  if (prepare) await prepare(data, connectors);
  const child = spawn(binary, ['serve', '--port', '0', '--json', '--data', data, '--provider', 'replay',
    '--script', script(scriptName), '--connectors', connectors, ...extra],
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
    calendar: () => readFileSync(join(connectors, 'calendar.ics'), 'utf8'),
    ...client(base),
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
