// Test support for several `affordance serve` nodes on one PostgreSQL behind HAProxy
// (docs/SCALE.md), for the Node tests and bench/server/nodes_scale.mjs:
//   startPostgres()           a real PostgreSQL (15, Debian's) in a fresh temp folder
//   startHaproxy({backends})  HAProxy in front of nodes, with the config docs/SCALE.md shows
//   startNode(binary, {...})  one node: `affordance serve --store URI --node NAME ...`
//   grant(binary, {...})      the person's grants, written once into the shared store
//   sharedConnectors()        ONE writable copy of the calendar connector for every node
//   startEngine({rate,...})   the paced engine stand-in (tests/fixtures/engine/paced_engine.mjs)
//   readStream(base, path)    a UI message stream read chunk by chunk (SSE parsed)
// Nothing here skips: a missing PostgreSQL or HAProxy is an error that names ./scripts/setup.
// Everything started here is stopped, and its temp folders removed, when this process exits
// (normally or by SIGINT / SIGTERM). If it is killed outright, nodes and HAProxy die with it (the
// kernel's parent-death signal, set by setpriv) and a watcher stops PostgreSQL.
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, closeSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync,
  readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { randomBytes } from 'node:crypto';
import { client, root, script } from './serve.mjs';

// Nodes behind a proxy run with an access token (docs/SCALE.md: a proxied request gets nothing
// for the proxy's socket, so every client of the cluster proves itself). One token for the run,
// in a file only its owner may read (what --access-token-file wants).
export const accessToken = randomBytes(24).toString('hex');
export const auth = { authorization: `Bearer ${accessToken}` };
let tokenFile = null;
function accessTokenFile() {
  if (tokenFile) return tokenFile;
  const dir = mkdtempSync(join(tmpdir(), 'affordance-token-'));
  tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, accessToken + '\n', { mode: 0o600 });
  atExit(() => rmSync(dir, { recursive: true, force: true }));
  return tokenFile;
}

const SETUP = 'run ./scripts/setup (it installs postgresql-15 and haproxy), or apt-get install postgresql-15 haproxy';
const isRoot = process.getuid?.() === 0;
const hasSetpriv = (() => {
  try {
    execFileSync('setpriv', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

// ---- cleanup at exit -----------------------------------------------------------------------

const cleanups = new Set();  // synchronous functions, run once at exit
function atExit(fn) {
  if (!atExit.installed) {
    atExit.installed = true;
    process.on('exit', runCleanups);
    for (const [signal, n] of [['SIGINT', 2], ['SIGTERM', 15]]) {
      process.once(signal, () => {
        runCleanups();
        process.exit(128 + n);
      });
    }
  }
  cleanups.add(fn);
  return () => cleanups.delete(fn);
}
function runCleanups() {
  for (const fn of [...cleanups].reverse()) {
    cleanups.delete(fn);
    try {
      fn();
    } catch {}
  }
}

// A spawned child dies with this process when setpriv can say so (it execs the command: same pid).
function spawnTied(command, args, options) {
  return hasSetpriv ? spawn('setpriv', ['--pdeathsig', 'KILL', '--', command, ...args], options)
    : spawn(command, args, options);
}

export const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

// A TCP port free on 127.0.0.1 now (the kernel's pick; another process could take it before use).
export function freePort() {
  return new Promise((ok, fail) => {
    const s = net.createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

// Runs a command to its exit; resolves {code, stdout, stderr}, rejects on a spawn error.
function run(command, args, options = {}) {
  return new Promise((ok, fail) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr?.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.once('error', fail);
    child.once('close', (code) => ok({ code, stdout, stderr }));
  });
}

const tail = (text, lines = 20) => text.split('\n').slice(-lines).join('\n');

// ---- PostgreSQL ----------------------------------------------------------------------------

// The server binaries: `pg_config --bindir` when it holds them, else the newest
// /usr/lib/postgresql/*/bin.
function postgresBin() {
  const has = (dir) => ['initdb', 'pg_ctl', 'postgres', 'psql'].every((b) => existsSync(join(dir, b)));
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (has(dir)) return dir;
  } catch {}
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).filter((v) => /^\d+$/.test(v)).sort((a, b) => b - a) : [];
  for (const v of versions) {
    if (has(join(base, v, 'bin'))) return join(base, v, 'bin');
  }
  throw new Error(`PostgreSQL's server binaries (initdb, pg_ctl, postgres, psql) were not found ` +
    `(neither in \`pg_config --bindir\` nor in /usr/lib/postgresql/*/bin): ${SETUP}`);
}

// The OS user PostgreSQL runs as when we are root (it refuses root): `postgres`, else `nobody`.
function postgresUser() {
  for (const name of ['postgres', 'nobody']) {
    try {
      const id = (flag) => Number(execFileSync('id', [flag, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
      return { name, uid: id('-u'), gid: id('-g') };
    } catch {}
  }
  throw new Error('running as root, and neither a `postgres` nor a `nobody` user exists to run PostgreSQL as');
}

const quote = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;

// Starts a fresh PostgreSQL: initdb (trust auth, superuser `affordance`, UTF8) in a temp folder,
// then `pg_ctl -w start` on 127.0.0.1:<free port> with its socket in the folder and
// max_connections=200; fsync stays on (a restart must not lose committed data). As root, every
// PostgreSQL program runs as an unprivileged user (setpriv) that owns the folder. Returns
//   { uri(db), createDatabase(name), query(db, sql), stop({mode}), start(), restart({mode}), dir,
//     port, bin, user, postmasterPid() }
// stop / restart take mode 'fast' (default) or 'immediate' (a crash: recovery replays the WAL).
export async function startPostgres() {
  const bin = postgresBin();
  const user = isRoot ? postgresUser() : null;
  if (isRoot && !hasSetpriv) throw new Error(`running as root needs setpriv (util-linux) to run PostgreSQL as ${user.name}`);
  const dir = mkdtempSync(join(tmpdir(), 'affordance-pg-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  const sockets = join(dir, 'sockets');
  const log = join(dir, 'postgres.log');
  const port = await freePort();
  const as = (program, args) => (user
    ? ['setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--', join(bin, program), ...args]]
    : [join(bin, program), args]);
  const pg = async (program, args, what) => {
    // pg_ctl's output goes to a file: the postmaster it starts must not hold our pipes open.
    const out = join(dir, `${program}.out`);
    const fd = openSync(out, 'w');
    if (user) chownSync(out, user.uid, user.gid);
    const [cmd, argv] = as(program, args);
    const r = await run(cmd, argv, { cwd: dir, stdio: ['ignore', fd, fd], env: { ...process.env, LC_ALL: 'C' } });
    closeSync(fd);
    if (r.code !== 0) {
      const logText = existsSync(log) ? readFileSync(log, 'utf8') : '';
      throw new Error(`PostgreSQL: ${what} failed (exit ${r.code}):\n${tail(readFileSync(out, 'utf8'))}\n${tail(logText)}`);
    }
  };
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${sockets} -c max_connections=200`;
  const ctl = (verb, extra = []) => pg('pg_ctl', ['-D', data, '-l', log, '-w', '-t', '60', ...extra, '-o', options, verb], `pg_ctl ${verb}`);
  const stopNow = () => {
    const [cmd, argv] = as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    try {
      execFileSync(cmd, argv, { cwd: dir, stdio: 'ignore' });
    } catch {}
  };
  // If this process is killed outright, the watcher stops PostgreSQL and removes the folder.
  const [stopCmd, stopArgs] = as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
  const watcher = spawn('sh', ['-c', `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ` +
    `${[stopCmd, ...stopArgs].map(quote).join(' ')} >/dev/null 2>&1; rm -rf ${quote(dir)}`],
  { detached: true, stdio: 'ignore', cwd: tmpdir() });
  watcher.unref();
  const forget = atExit(() => {
    stopNow();
    try {
      process.kill(watcher.pid, 'SIGKILL');
    } catch {}
    rmSync(dir, { recursive: true, force: true });
  });

  mkdirSync(sockets);
  if (user) chownSync(sockets, user.uid, user.gid);
  await pg('initdb', ['-D', data, '--auth=trust', '-U', 'affordance', '-E', 'UTF8', '--locale=C', '--no-sync',
    '--no-instructions'], 'initdb');
  await ctl('start');

  const psql = async (db, args) => {
    const r = await run(join(bin, 'psql'), ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', String(port),
      '-U', 'affordance', '-d', db, ...args], { env: { ...process.env, PGCONNECT_TIMEOUT: '10' } });
    if (r.code !== 0) throw new Error(`psql ${args.join(' ')} on ${db}: exit ${r.code}: ${r.stderr.trim()}`);
    return r.stdout;
  };
  let stopped = false;
  return {
    dir,
    port,
    bin,
    user: user?.name ?? null,
    uri: (db) => `postgresql://affordance@127.0.0.1:${port}/${db}`,
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`a database name of [a-z0-9_]: ${name}`);
      await psql('postgres', ['-c', `CREATE DATABASE "${name}"`]);
      return `postgresql://affordance@127.0.0.1:${port}/${name}`;
    },
    // Rows of a query, each an array of column texts (NULL is '').
    async query(db, sql) {
      const out = await psql(db, ['-A', '-t', '-F', '\t', '-c', sql]);
      return out.split('\n').filter((l) => l !== '').map((l) => l.split('\t'));
    },
    // The postmaster's pid now (from postmaster.pid), null when it is not running.
    postmasterPid() {
      try {
        return Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      } catch {
        return null;
      }
    },
    async stop({ mode = 'fast' } = {}) {
      await ctl('stop', ['-m', mode]);
    },
    async start() {
      await ctl('start');
    },
    async restart({ mode = 'fast' } = {}) {
      await ctl('restart', ['-m', mode]);
    },
    // Stops it for good and removes its folder.
    async close() {
      if (stopped) return;
      stopped = true;
      forget();
      stopNow();
      try {
        process.kill(watcher.pid, 'SIGKILL');
      } catch {}
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---- HAProxy -------------------------------------------------------------------------------

function haproxyBin() {
  for (const p of ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy', '/usr/bin/haproxy', '/usr/local/bin/haproxy']) {
    if (existsSync(p)) return p;
  }
  throw new Error(`HAProxy was not found (/usr/sbin/haproxy): ${SETUP}`);
}

// The HAProxy config docs/SCALE.md shows: round robin over the nodes, each checked every 300 ms
// with GET `checkPath` carrying the Host every node accepts (`--public-host 127.0.0.1:<port>`:
// the gate refuses any other with 421, on every route), down after 2 failed checks, up after 1;
// a request whose connection to a node fails goes to another (retries + redispatch); timeouts
// long enough for SSE streams that idle while a model thinks. HAProxy forwards a response's
// chunks as they arrive (no buffering in HTTP mode), so SSE needs no more than that.
export function haproxyConfig({ port, statsPort, backends, checkPath = '/deploy-truth', checkHost = `127.0.0.1:${port}` }) {
  return `# Generated by tests/integration/server/cluster.mjs (docs/SCALE.md)
global
    maxconn 4096                  # client + node side: 2 fds each; raise with ulimit -n
    log stderr format raw local0 warning

defaults
    mode http
    log global
    option dontlognull
    option forwardfor             # the nodes see a forwarded request: no same-user trust
    option http-no-delay          # SSE: forward each small chunk at once
    timeout connect 2s
    timeout client 10m            # SSE streams idle while the model thinks
    timeout server 10m
    timeout tunnel 10m
    timeout http-request 15s
    timeout http-keep-alive 10s
    timeout queue 30s
    timeout check 2s
    retries 3
    option redispatch 1           # a retried connection goes to another node

frontend affordance
    bind 127.0.0.1:${port}
    default_backend nodes

backend nodes
    balance roundrobin
    option httpchk
    http-check send meth GET uri ${checkPath} ver HTTP/1.1 hdr host ${checkHost} hdr authorization "Bearer ${accessToken}"
    http-check expect status 200
    default-server inter 300ms fall 2 rise 1
${backends.map((b, i) => `    server ${b.name ?? `node${i + 1}`} ${b.host ?? '127.0.0.1'}:${b.port} check`).join('\n')}
${statsPort ? `
listen stats
    bind 127.0.0.1:${statsPort}
    stats enable
    stats uri /stats
` : ''}`;
}

// Starts HAProxy in the foreground (-db) with haproxyConfig(): `backends` [{name?, host?, port}],
// `port` (default a free one: pick it first when the nodes need it for --public-host). Resolves
// once it accepts connections and at least one backend passed its check. Returns
//   { base, port, pid, config, servers() -> [{name, status}] (UP, DOWN, ...), waitUp(n, ms),
//     stop() }
export async function startHaproxy({ backends, checkPath = '/deploy-truth', port, checkHost } = {}) {
  const binary = haproxyBin();
  port = port ?? (await freePort());
  const statsPort = await freePort();
  const config = haproxyConfig({ port, statsPort, backends, checkPath, checkHost });
  const dir = mkdtempSync(join(tmpdir(), 'affordance-haproxy-'));
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, config);
  const check = await run(binary, ['-c', '-f', file]);
  if (check.code !== 0) throw new Error(`haproxy -c refused the config:\n${check.stdout}${check.stderr}\n${config}`);
  const child = spawnTied(binary, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (d) => {
    log = (log + d).slice(-20000);
  };
  child.stdout.setEncoding('utf8').on('data', keep);
  child.stderr.setEncoding('utf8').on('data', keep);
  const forget = atExit(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  const servers = async () => {
    const res = await fetch(`http://127.0.0.1:${statsPort}/stats;csv`);
    const rows = (await res.text()).split('\n').map((l) => l.split(','));
    const head = rows[0];
    const at = (name) => head.findIndex((h) => h.replace(/^# /, '') === name);
    return rows.slice(1).filter((r) => r[at('pxname')] === 'nodes' && !['BACKEND', 'FRONTEND'].includes(r[at('svname')]))
      .map((r) => ({ name: r[at('svname')], status: r[at('status')], check: r[at('check_status')] }));
  };
  const waitUp = async (count, ms = 15000) => {
    const until = Date.now() + ms;
    let last = [];
    while (Date.now() < until) {
      if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}:\n${tail(log)}`);
      try {
        last = await servers();
        if (last.filter((s) => s.status === 'UP').length >= count) return last;
      } catch {}
      await sleep(100);
    }
    throw new Error(`haproxy: fewer than ${count} backends UP after ${ms} ms: ${JSON.stringify(last)}\n${tail(log)}`);
  };
  await waitUp(1);
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid,
    config,
    child,
    log: () => log,
    servers,
    waitUp,
    async stop() {
      forget();
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((ok) => child.once('exit', ok));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---- nodes ---------------------------------------------------------------------------------

// ONE writable copy of the calendar connector (calendar.json + calendar.ics) for every node, so
// the calendar is one source (the examples stay untouched). `events(summary)`: how many events
// with that SUMMARY the .ics holds now.
export function sharedConnectors() {
  const dir = mkdtempSync(join(tmpdir(), 'affordance-connectors-'));
  for (const f of ['calendar.json', 'calendar.ics']) copyFileSync(join(root, 'examples/connectors', f), join(dir, f));
  atExit(() => rmSync(dir, { recursive: true, force: true }));
  const calendar = () => readFileSync(join(dir, 'calendar.ics'), 'utf8');
  return { dir, calendar, events: (summary) => calendar().split(`SUMMARY:${summary}`).length - 1 };
}

// The person's grants, written once into the shared store: `access` is a list of '--read' /
// '--write'. `data`: a data folder the CLI may use (any node's).
export function grant(binary, { store, data, connectors, connector = 'calendar', access = ['--read'] }) {
  for (const a of access) {
    execFileSync(binary, ['grants', 'grant', connector, a, '--store', store, '--data', data, '--connectors', connectors],
      { stdio: ['ignore', 'ignore', 'pipe'] });
  }
}

// Starts one node: `affordance serve --port PORT --json --data DATA --store STORE --node NAME
// --lease-ms LEASE --connectors DIR [--public-host H]... PROVIDER... EXTRA...`.
//   store      a PostgreSQL URI or a SQLite path (omitted: the node's own <data>/affordance.db)
//   node       the node's name (x-affordance-node, /deploy-truth node.name)
//   leaseMs    --lease-ms (omitted when undefined: the server's default)
//   data       its own data folder (default: a fresh temp folder, removed at stop / exit); pass
//              the folder of a killed node to restart it
//   port       default 0 (any free port); pass a killed node's port to restart it behind a proxy
//   publicHost a name or list of names the proxy forwards (127.0.0.1:<proxy port>)
//   script     a replay script (a name in tests/integration/server/scripts or a path), or
//   engine     an OpenAI-compatible base URL (--provider openai --base-url; the paced stand-in)
//   connectors the connector folder (default examples/connectors, read-only)
//   extra      more serve flags
// Returns { name, base, port, pid, data, child, json(), person(), alive(), exited, kill(signal),
//   stop(), stderr() } (json / person as serve.mjs's client). Its stderr goes to ours, each line
// prefixed with [name].
export async function startNode(binary, { store, node, leaseMs, data, port = 0, publicHost = [], script: scriptName,
  engine, connectors = join(root, 'examples/connectors'), extra = [] } = {}) {
  const ownData = !data;
  data = data ?? mkdtempSync(join(tmpdir(), `affordance-node-${node}-`));
  const provider = engine ? ['--provider', 'openai', '--base-url', engine]
    : scriptName ? ['--provider', 'replay', '--script', scriptName.includes('/') ? scriptName : script(scriptName)] : [];
  const args = ['serve', '--port', String(port), '--json', '--data', data, ...(store ? ['--store', store] : []), '--node', node,
    ...(leaseMs === undefined ? [] : ['--lease-ms', String(leaseMs)]), '--connectors', connectors,
    ...[publicHost].flat().flatMap((h) => ['--public-host', h]), '--access-token-file', accessTokenFile(),
    ...provider, ...extra];
  const child = spawnTied(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  createInterface({ input: child.stderr }).on('line', (line) => {
    stderr = (stderr + line + '\n').slice(-20000);
    process.stderr.write(`[${node}] ${line}\n`);
  });
  const exited = new Promise((ok) => child.once('exit', (code, signal) => ok({ code, signal })));
  const forget = atExit(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (ownData) rmSync(data, { recursive: true, force: true });
  });
  const line = await Promise.race([
    new Promise((ok) => createInterface({ input: child.stdout }).once('line', ok)),
    exited.then(({ code, signal }) => {
      throw new Error(`node ${node}: affordance serve exited with ${code ?? signal} before it listened ` +
        `(${args.join(' ')}):\n${tail(stderr)}`);
    }),
  ]);
  let info;
  try {
    info = JSON.parse(line);
  } catch {
    throw new Error(`node ${node}: not a JSON line: ${line}`);
  }
  if (!info.port) throw new Error(`node ${node} did not start: ${line}`);
  const base = `http://127.0.0.1:${info.port}`;
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    name: node,
    base,
    port: info.port,
    pid: child.pid,
    data,
    info,
    child,
    exited,
    args,
    stderr: () => stderr,
    ...client(base, auth),
    alive,
    // Sends `signal` (SIGKILL: the node dies mid-work, as a crash) and resolves when it is gone.
    async kill(signal = 'SIGKILL') {
      if (alive()) child.kill(signal);
      return exited;
    },
    async stop() {
      if (alive()) {
        child.kill('SIGTERM');
        const killed = setTimeout(() => alive() && child.kill('SIGKILL'), 10000);
        await exited;
        clearTimeout(killed);
      }
      forget();
      if (ownData) rmSync(data, { recursive: true, force: true });
    },
  };
}

// ---- the engine stand-in ------------------------------------------------------------------

// The paced OpenAI-compatible engine stand-in in its own process (every request served at once,
// `rate` pieces a second, `tokens` pieces; with `vary` each thread, the x-session-token the nodes
// send, gets its own reply: replyText({tokens, vary: true, key: thread})). Returns
//   { base, port, pid, fault(key, mode, after?), stats(), stop() }
export async function startEngine({ rate = 20, tokens = 64, vary = true } = {}) {
  const child = spawnTied(process.execPath, [join(root, 'tests/fixtures/engine/paced_engine.mjs'), '--port', '0',
    '--rate', String(rate), '--tokens', String(tokens), ...(vary ? ['--vary-by-key'] : [])],
  { stdio: ['ignore', 'pipe', 'inherit'] });
  const forget = atExit(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  const line = await Promise.race([
    new Promise((ok) => createInterface({ input: child.stdout }).once('line', ok)),
    new Promise((_, fail) => child.once('exit', (code) => fail(new Error(`the engine stand-in exited with ${code}`)))),
  ]);
  const { port } = JSON.parse(line);
  const base = `http://127.0.0.1:${port}`;
  const post = async (path, body) => {
    const res = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status !== 200) throw new Error(`engine ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  return {
    base,
    port,
    pid: child.pid,
    // Requests for thread `key` get `mode` (slow: rate / 10; hang, reset, garbage after `after` pieces; http500).
    fault: (key, mode, after = 3) => post('/control/fault', { key, mode, after }),
    stats: async () => (await fetch(base + '/stats')).json(),
    resetStats: () => post('/stats/reset', {}),
    async stop() {
      forget();
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((ok) => child.once('exit', ok));
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

// ---- the UI message stream -----------------------------------------------------------------

const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

// The body of POST /api/chat for a new user message on `thread`, as DefaultChatTransport sends it.
export const chatBody = (thread, text) => ({ id: thread, trigger: 'submit-message',
  messages: [{ id: `u-${Math.random().toString(16).slice(2)}`, role: 'user', parts: [{ type: 'text', text }] }] });

// One request whose answer is a UI message stream (POST /api/chat, GET /api/chat/{id}/stream),
// read event by event. Resolves when the response ends or breaks, with
//   { status, node (x-affordance-node), chunks (parsed, in order), types, text (the text-delta
//     deltas joined), deltas, messageId (start's), turn (the data-turn chunk), errorText, done
//     ([DONE] seen), body (a JSON answer instead of a stream: an error, 204's null), failure
//     (a broken connection or the time limit), ms {first, end} }
// `onChunk(chunk, r, req)` runs after each chunk (req.destroy() drops the stream).
export function readStream(base, path, { method = 'POST', body, headers = {}, onChunk = null, limitMs = 120000 } = {}) {
  const url = new URL(path, base);
  return new Promise((ok) => {
    const t0 = performance.now();
    const r = { status: null, node: null, chunks: [], types: [], text: '', deltas: 0, messageId: null, turn: null,
      errorText: null, done: false, body: null, failure: null, ms: { first: null, end: null } };
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(limit);
      r.ms.end = performance.now() - t0;
      ok(r);
    };
    const req = http.request({ host: url.hostname, port: url.port, method, path: url.pathname, agent,
      headers: { ...(body ? { 'content-type': 'application/json' } : {}), 'x-ai-sdk-version': '7.0.173', ...auth, ...headers } }, (res) => {
      r.status = res.statusCode;
      r.node = res.headers['x-affordance-node'] ?? null;
      const sse = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        buf += d;
        if (!sse) return;
        let at;
        while ((at = buf.indexOf('\n\n')) >= 0) {
          const event = buf.slice(0, at);
          buf = buf.slice(at + 2);
          if (!event.startsWith('data: ')) continue;
          const data = event.slice(6);
          if (data === '[DONE]') {
            r.done = true;
            continue;
          }
          let c;
          try {
            c = JSON.parse(data);
          } catch {
            r.failure = r.failure ?? `a chunk is not JSON: ${data.slice(0, 80)}`;
            continue;
          }
          r.ms.first = r.ms.first ?? performance.now() - t0;
          r.chunks.push(c);
          r.types.push(c.type);
          if (c.type === 'start') r.messageId = c.messageId;
          if (c.type === 'text-delta') {
            r.text += c.delta;
            r.deltas++;
          }
          if (c.type === 'error') r.errorText = c.errorText;
          if (c.type === 'data-turn') r.turn = c;
          onChunk?.(c, r, req);
        }
      });
      res.on('end', () => {
        if (!sse && buf) {
          try {
            r.body = JSON.parse(buf);
          } catch {
            r.body = { raw: buf };
          }
        }
        settle();
      });
      res.on('aborted', () => {
        r.failure = r.failure ?? 'the response was cut';
      });
      res.on('error', (e) => {
        r.failure = r.failure ?? e.message;
      });
      res.on('close', settle);
    });
    const limit = setTimeout(() => {
      r.failure = `still open after ${limitMs} ms`;
      req.destroy();
      settle();
    }, limitMs);
    req.on('error', (e) => {
      r.failure = r.failure ?? e.message;
      settle();
    });
    req.end(body ? JSON.stringify(body) : undefined);
  });
}
