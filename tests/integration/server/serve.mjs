// Test support for the Node tests: start `affordance serve` (replay provider, loopback, a fresh
// data folder) and stop it.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

// A connectors folder a newcomer writes beside the calendar (issues 42, 44): `notes`, a local
// SQLite database (its own source: data state local), and `fixture`, the printed-CLI fixture
// (tests/fixtures/connect, path in $FIXTURE_PP_CLI) whose list of 12 ids fans out to detail reads;
// read grants on both in `data`. The fixture's state goes under `data`/xdg, its token is set, and
// FIXTURE_PP_FAIL_IDS (the ids whose detail read fails) is the caller's.
export function newcomerConnectors(binary, data) {
  const dir = join(data, 'connectors');
  mkdirSync(dir, { recursive: true });
  for (const f of ['calendar.json', 'calendar.ics']) copyFileSync(join(root, 'examples/connectors', f), join(dir, f));
  execFileSync('sqlite3', [join(dir, 'notes.db'),
    "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT); INSERT INTO notes VALUES (1, 'Buy milk'), (2, 'Call Ana');"]);
  writeFileSync(join(dir, 'notes.json'), JSON.stringify({
    slug: 'notes', title: 'Notes', source: { kind: 'sqlite', path: 'notes.db' }, modes: ['local'],
    operations: [{ name: 'recent', kind: 'list', description: 'Notes, newest first', query: 'SELECT id, title FROM notes ORDER BY id DESC' }],
  }));
  if (!process.env.FIXTURE_PP_CLI) throw new Error('FIXTURE_PP_CLI must name the built fixture-pp-cli');
  const fixture = JSON.parse(readFileSync(join(root, 'examples/connectors/fixture-cli.json'), 'utf8'));
  fixture.source.command = process.env.FIXTURE_PP_CLI;
  writeFileSync(join(dir, 'fixture-cli.json'), JSON.stringify(fixture));
  for (const slug of ['calendar', 'notes', 'fixture']) {
    execFileSync(binary, ['grants', 'grant', slug, '--read', '--data', data, '--connectors', dir], { stdio: 'ignore' });
  }
  process.env.XDG_DATA_HOME = join(data, 'xdg');
  process.env.FIXTURE_PP_TOKEN = 'token';
  process.env.FIXTURE_PP_ITEMS = '12';  // the list holds 12 ids
  return dir;
}

// `writable`: the calendar is a copy in the data folder (the examples stay untouched) and the
// person has granted writes to it too, so a staged write can be approved and run.
// `prepare(data, connectors)`: runs before the server starts, on its data folder (threads made by
// the CLI, say); a turn it left running whose process is gone is recovered when the server starts.
// `newcomer`: the connectors of newcomerConnectors instead of the examples. `writeExpiresIn`: the
// write grant ends that many seconds after it is given (and every approval it allows with it).
export async function startServer(binary, scriptName, extra = [], { writable = false, prepare, newcomer = false, writeExpiresIn = 0 } = {}) {
  const data = mkdtempSync(join(tmpdir(), 'affordance-serve-'));
  let connectors = join(root, 'examples/connectors');
  if (newcomer) {
    connectors = newcomerConnectors(binary, data);
  } else if (writable) {
    const copy = join(data, 'connectors');
    mkdirSync(copy);
    for (const f of ['calendar.json', 'calendar.ics']) copyFileSync(join(connectors, f), join(copy, f));
    connectors = copy;
  }
  // Reads need grants (docs/AUTHORITY.md): the person grants the calendar read first.
  for (const access of writable ? ['--read', '--write'] : ['--read']) {
    const expiry = access === '--write' && writeExpiresIn > 0 ? ['--expires-in', String(writeExpiresIn)] : [];
    execFileSync(binary, ['grants', 'grant', 'calendar', access, ...expiry, '--data', data,
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
