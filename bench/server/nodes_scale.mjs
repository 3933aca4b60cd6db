// The nodes benchmark: chats per second through HAProxy with 1, 2 and 3 `affordance serve` nodes
// on one PostgreSQL, against the paced engine stand-in (tests/fixtures/engine/paced_engine.mjs,
// its own process: every request served at once, `--rate` pieces a second, `--tokens` pieces):
//   node bench/server/nodes_scale.mjs [--chats 300] [--concurrency 100] [--rate 50] [--tokens 32]
//        [--nodes 1,2,3] [--workers 2] [--lease-ms 10000] [--no-peer] [--binary build/affordance]
//        [--timeout-s 900] [--json]
// Per node count it starts a fresh database, the nodes (--store, --node, --public-host, --provider
// openai at the stand-in) and HAProxy in front of them (the config of docs/SCALE.md, from
// tests/integration/server/cluster.mjs), warms each node with one chat, then runs `--chats` chats
// on new threads through the proxy, at most `--concurrency` open at once (each ends before the
// next starts in its lane), and reports: chats/s against the engine-bound ideal (concurrency /
// one turn's time at the engine, tokens / rate), time to first chunk and to first text (p50 /
// p99), which node served how many, and the CPU seconds each process used during the run (each
// node, PostgreSQL with all its backends, HAProxy, the engine stand-in, this client): they share
// this host's cores, so the busiest says what bounds the figure), and the transactions PostgreSQL
// committed per chat (pg_stat_database).
// The peer, measured in the same run (unless --no-peer): ONE node on its SQLite file, clients
// straight to it (no proxy, no PostgreSQL): the single-node deployment. `vs_peer` is chats/s over
// the peer's.
// Fatal (exit 1): a chat that does not end with finish + [DONE], whose text is not its thread's
// reply (the stand-in runs --vary-by-key), whose data-turn is not "answered", or that is not stored
// as user + assistant "answered" with the same text (checked after the run, not timed).
// Loopback only; it starts and stops everything it uses. Needs PostgreSQL and HAProxy (./scripts/setup).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { replyText } from '../../tests/fixtures/engine/paced_engine.mjs';
import { auth, chatBody, freePort, readStream, startEngine, startHaproxy, startNode, startPostgres } from
  '../../tests/integration/server/cluster.mjs';
import { root } from '../../tests/integration/server/serve.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const binary = arg('binary', join(root, 'build/affordance'));
const chats = Number(arg('chats', 300));
const concurrency = Number(arg('concurrency', 100));
const rate = Number(arg('rate', 50));
const tokens = Number(arg('tokens', 32));
const counts = arg('nodes', '1,2,3').split(',').map(Number);
const workers = Number(arg('workers', 2));
const leaseMs = Number(arg('lease-ms', 10000));
const timeoutS = Number(arg('timeout-s', 900));
const peer = !process.argv.includes('--no-peer');
const jsonOnly = process.argv.includes('--json');
const say = (...a) => !jsonOnly && console.error(...a);

// ---- CPU seconds from /proc ----------------------------------------------------------------

const TICK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();
// [ppid, utime + stime, cutime + cstime] of a process, in seconds; null when it is gone.
function stat(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return [Number(f[1]), (Number(f[11]) + Number(f[12])) / TICK, (Number(f[13]) + Number(f[14])) / TICK];
  } catch {
    return null;
  }
}
// A process's own CPU seconds.
const own = (pid) => stat(pid)?.[1] ?? 0;
// A process with its children: its own time, the time of children it reaped (PostgreSQL's backends
// that ended) and of the children alive now.
function tree(pid) {
  const s = stat(pid);
  if (!s) return 0;
  let total = s[1] + s[2];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const c = stat(e);
    if (c && c[0] === pid) total += c[1];
  }
  return total;
}
const client = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

const pct = (xs, p) => xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const dist = (xs) => (xs.length ? { p50: +pct(xs, 50).toFixed(1), p99: +pct(xs, 99).toFixed(1) } : null);

// ---- one configuration ---------------------------------------------------------------------

// Runs `chats` chats against `base` with at most `concurrency` at once; checks each one.
async function drive(base, label, thread) {
  const results = new Array(chats);
  let next = 0;
  const lane = async () => {
    while (next < chats) {
      const i = next++;
      const t = thread(i);
      results[i] = { thread: t, ...(await readStream(base, '/api/chat', { body: chatBody(t, 'What is on next week?'), limitMs: 300000 })) };
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, chats) }, lane));
  const wall = (performance.now() - t0) / 1000;
  const failures = [];
  for (const r of results) {
    const want = replyText({ tokens, vary: true, key: r.thread });
    const why = r.status !== 200 ? `status ${r.status} ${JSON.stringify(r.body)}` : r.failure ? r.failure
      : !r.done || r.types.at(-1) !== 'finish' ? `ends ${r.types.slice(-3).join(',')}` : r.errorText ? `error ${r.errorText}`
        : r.turn?.data?.status !== 'answered' ? `data-turn ${r.turn?.data?.status}` : r.text !== want ? `text ${JSON.stringify(r.text.slice(0, 60))}` : null;
    if (why) failures.push(`${label} ${r.thread}: ${why}`);
  }
  return { results, wall, failures };
}

// The stored turns, read back through `base` (not timed).
async function checkStored(base, label, results) {
  const failures = [];
  let next = 0;
  const lane = async () => {
    while (next < results.length) {
      const r = results[next++];
      const res = await fetch(`${base}/api/threads/${r.thread}`, { headers: auth });
      const body = await res.json();
      const msgs = body.messages ?? [];
      const a = msgs[1];
      const text = a?.parts.filter((p) => p.type === 'text').map((p) => p.text).join('');
      const turn = a?.parts.find((p) => p.type === 'data-turn')?.data?.status;
      if (res.status !== 200 || msgs.map((m) => m.role).join(',') !== 'user,assistant' || turn !== 'answered' ||
          text !== replyText({ tokens, vary: true, key: r.thread })) {
        failures.push(`${label} ${r.thread}: stored ${res.status} ${msgs.map((m) => m.role).join(',')} ${turn}`);
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, lane));
  return failures;
}

function summary(label, nodes, run, cpu) {
  const firsts = run.results.filter((r) => r.ms.first !== null).map((r) => r.ms.first);
  const served = {};
  for (const r of run.results) served[r.node ?? '?'] = (served[r.node ?? '?'] ?? 0) + 1;
  const turnS = tokens / rate;
  return {
    config: label, nodes, chats, concurrency,
    wall_s: +run.wall.toFixed(2),
    chats_per_s: +(chats / run.wall).toFixed(1),
    ideal_chats_per_s: +(Math.min(concurrency, chats) / turnS).toFixed(1),
    ttfc_ms: dist(firsts),
    turn_ms: dist(run.results.map((r) => r.ms.end)),
    served,
    cpu_s: cpu,
    failures: run.failures.length,
  };
}

const engine = await startEngine({ rate, tokens, vary: true });
const pg = await startPostgres();
const rows = [];
const failures = [];
const watchdog = setTimeout(() => {
  console.error(`nodes_scale: not finished after ${timeoutS} s`);
  process.exit(1);  // cluster.mjs stops what it started
}, timeoutS * 1000);
const extra = ['--workers', String(workers)];

// One configuration: its nodes (and proxy) up, one warm-up chat per node, the run, the CPU
// seconds each process used during it, the stored turns checked.
async function measure(label, { nodes, proxy = null, database = null }) {
  for (const n of nodes) {
    const w = await readStream(n.base, '/api/chat', { body: chatBody(`warm-${label}-${n.name}`, 'Hello') });
    if (w.types.at(-1) !== 'finish') throw new Error(`${label}: the warm-up chat on ${n.name} did not finish: ${w.status} ${w.types.join(',')} ${JSON.stringify(w.body)}`);
  }
  const pm = database ? pg.postmasterPid() : null;
  // Transactions the database committed (every node's, the warm-up excluded).
  const commits = async () => (database ? Number((await pg.query(database,
    'SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()'))[0][0]) : null);
  const sample = () => ({
    nodes: Object.fromEntries(nodes.map((n) => [n.name, own(n.pid)])),
    postgres: pm ? tree(pm) : null,
    haproxy: proxy ? own(proxy.pid) : null,
    engine: own(engine.pid),
    client: client(),
  });
  const commits0 = await commits();
  const before = sample();
  const run = await drive(proxy ? proxy.base : nodes[0].base, label, (i) => `${label}-${i}`);
  const after = sample();
  const d = (a, b) => (a === null ? null : +(b - a).toFixed(2));
  const cpu = {
    nodes: Object.fromEntries(nodes.map((n) => [n.name, d(before.nodes[n.name], after.nodes[n.name])])),
    postgres: d(before.postgres, after.postgres),
    haproxy: d(before.haproxy, after.haproxy),
    engine: d(before.engine, after.engine),
    client: d(before.client, after.client),
  };
  const row = summary(label, nodes.length, run, cpu);
  // pg_stat_database is updated when a backend reports (at most every 0.5 s): wait for it.
  if (database) await new Promise((ok) => setTimeout(ok, 1000));
  row.commits_per_chat = database ? +(((await commits()) - commits0) / chats).toFixed(1) : null;
  failures.push(...run.failures, ...(await checkStored(proxy ? proxy.base : nodes[0].base, label, run.results)));
  row.failures = failures.filter((f) => f.startsWith(`${label} `)).length;
  say(`${label}: ${row.chats_per_s} chats/s (ideal ${row.ideal_chats_per_s}), ttfc p50 ${row.ttfc_ms?.p50} ms, ` +
    `cpu ${JSON.stringify(cpu)}, ${row.failures} failures`);
  return row;
}

let running = [];
try {
  if (peer) {
    const n = await startNode(binary, { node: 'sqlite', leaseMs, engine: engine.base, extra });
    running = [n];
    rows.push(await measure('sqlite-1', { nodes: [n] }));
    await n.stop();
  }
  for (const k of counts) {
    const label = `pg-${k}`;
    const database = `bench_${k}_${Date.now().toString(36)}`;
    const store = await pg.createDatabase(database);
    const proxyPort = await freePort();
    const names = Array.from({ length: k }, (_, i) => `n${i + 1}`);
    // The first node migrates the empty database; the others join it.
    const first = await startNode(binary, { store, node: names[0], leaseMs, engine: engine.base, extra,
      publicHost: `127.0.0.1:${proxyPort}` });
    const rest = await Promise.all(names.slice(1).map((node) => startNode(binary, { store, node, leaseMs,
      engine: engine.base, extra, publicHost: `127.0.0.1:${proxyPort}` })));
    running = [first, ...rest];
    const proxy = await startHaproxy({ port: proxyPort, backends: running.map((n) => ({ name: n.name, port: n.port })) });
    await proxy.waitUp(k);
    rows.push(await measure(label, { nodes: running, proxy, database }));
    await Promise.all(running.map((n) => n.stop()));
    running = [];
    await proxy.stop();
  }
  const peerRow = rows.find((r) => r.config === 'sqlite-1');
  for (const r of rows) r.vs_peer = peerRow ? +(r.chats_per_s / peerRow.chats_per_s).toFixed(2) : null;
  const report = { chats, concurrency, rate, tokens, workers, lease_ms: leaseMs, cores: availableParallelism(),
    turn_at_engine_ms: (tokens / rate) * 1000, rows };
  if (!jsonOnly) {
    const head = ['config', 'chats/s', 'ideal', 'vs peer', 'ttfc p50/p99 ms', 'served', 'cpu s: nodes', 'postgres', 'haproxy', 'engine', 'client', 'commits/chat'];
    const table = rows.map((r) => [r.config, r.chats_per_s, r.ideal_chats_per_s, r.vs_peer ?? '-',
      `${r.ttfc_ms?.p50}/${r.ttfc_ms?.p99}`, Object.values(r.served).join('/'),
      Object.values(r.cpu_s.nodes).join('+'), r.cpu_s.postgres ?? '-', r.cpu_s.haproxy ?? '-', r.cpu_s.engine, r.cpu_s.client,
      r.commits_per_chat ?? '-']);
    const w = head.map((h, i) => Math.max(h.length, ...table.map((row) => String(row[i]).length)));
    console.log([head, ...table].map((row) => row.map((c, i) => String(c).padEnd(w[i])).join('  ')).join('\n'));
  }
  console.log(JSON.stringify(report, null, jsonOnly ? undefined : 1));
  if (failures.length) {
    console.error(`nodes_scale: ${failures.length} correctness failures; the first ones:`);
    for (const f of failures.slice(0, 20)) console.error(`  ${f}`);
    process.exitCode = 1;
  }
} catch (e) {
  console.error(`nodes_scale: ${e.message}`);
  process.exitCode = 1;
} finally {
  clearTimeout(watchdog);
  await Promise.all(running.map((n) => n.stop()));
  await engine.stop();
  await pg.close();
}
