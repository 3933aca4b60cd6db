// A bounded loopback load run of `affordance serve` with the replay provider:
//   node bench/server/load.mjs [--binary build/affordance] [--streams 500] [--workers 2]
//                              [--script tests/integration/server/scripts/fast.json]
// Opens N chat streams at once (one thread each, one POST /api/chat per thread), reads every SSE
// event, and reports time to first chunk (p50/p99), chunks per second, server memory per open
// stream (VmRSS at the peak of open streams minus the idle baseline, divided by the streams open
// then), and checks that every stream ended with finish + [DONE] and every turn is persisted.
// Loopback only; it starts and stops its own server.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const root = resolve(new URL('../..', import.meta.url).pathname);
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const binary = arg('binary', join(root, 'build/affordance'));
const streams = Number(arg('streams', 500));
const workers = Number(arg('workers', 2));
const script = arg('script', join(root, 'tests/integration/server/scripts/fast.json'));

const rss = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
const pct = (xs, p) => xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

function request(port, method, path, body) {
  return new Promise((ok, fail) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => ok({ status: res.statusCode, body: text ? JSON.parse(text) : null }));
    });
    req.on('error', fail);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

function stream(port, thread, state) {
  return new Promise((ok) => {
    const t0 = performance.now();
    const r = { first: null, end: null, chunks: 0, finish: false, done: false, error: null };
    const body = JSON.stringify({ id: thread, trigger: 'submit-message',
      messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'What is on next week?' }] }] });
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/api/chat', agent,
      headers: { 'content-type': 'application/json', 'x-ai-sdk-version': '7.0.173' } }, (res) => {
      state.open++;
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        buf += d;
        let at;
        while ((at = buf.indexOf('\n\n')) >= 0) {
          const event = buf.slice(0, at);
          buf = buf.slice(at + 2);
          if (!event.startsWith('data: ')) continue;
          const data = event.slice(6);
          if (data === '[DONE]') { r.done = true; continue; }
          if (r.first === null) r.first = performance.now() - t0;
          r.chunks++;
          state.chunks++;
          if (JSON.parse(data).type === 'finish') r.finish = true;
        }
      });
      res.on('end', () => { state.open--; r.end = performance.now() - t0; ok(r); });
    });
    req.on('error', (e) => { r.error = e.message; ok(r); });
    req.end(body);
  });
}

const data = mkdtempSync(join(tmpdir(), 'affordance-load-'));
const child = spawn(binary, ['serve', '--port', '0', '--json', '--data', data, '--workers', String(workers),
  '--provider', 'replay', '--script', script, '--connectors', join(root, 'examples/connectors')],
{ stdio: ['ignore', 'pipe', 'inherit'] });
const info = JSON.parse(await new Promise((ok) => createInterface({ input: child.stdout }).once('line', ok)));
const port = info.port;
try {
  // Threads first (not measured), then one warm-up turn so the baseline holds loaded frames.
  const threads = [];
  for (let i = 0; i < streams + 1; i++) threads.push((await request(port, 'POST', '/api/threads', { title: `load ${i}` })).body.thread.id);
  const warm = { open: 0, chunks: 0 };
  await stream(port, threads.pop(), warm);
  const baseline = rss(child.pid);

  const state = { open: 0, chunks: 0 };
  let peak = { rss: baseline, open: 0 };
  const sampler = setInterval(() => {
    const now = rss(child.pid);
    if (state.open > peak.open || (state.open === peak.open && now > peak.rss)) peak = { rss: now, open: state.open };
  }, 20);
  const t0 = performance.now();
  const results = await Promise.all(threads.map((t) => stream(port, t, state)));
  const wall = (performance.now() - t0) / 1000;
  clearInterval(sampler);

  const firsts = results.filter((r) => r.first !== null).map((r) => r.first);
  const ends = results.filter((r) => r.end !== null).map((r) => r.end);
  const complete = results.filter((r) => r.finish && r.done && !r.error).length;
  const list = (await request(port, 'GET', '/api/threads')).body.threads;
  const persisted = list.filter((t) => t.title.startsWith('load ') && t.messages === 2).length - 1;  // minus warm-up
  const report = {
    streams, workers, script: script.replace(root + '/', ''), wall_s: +wall.toFixed(2),
    complete, persisted_turns: persisted,
    ttfc_ms: { p50: +pct(firsts, 50).toFixed(1), p99: +pct(firsts, 99).toFixed(1) },
    stream_ms: { p50: +pct(ends, 50).toFixed(1), p99: +pct(ends, 99).toFixed(1) },
    chunks: state.chunks, chunks_per_s: Math.round(state.chunks / wall),
    rss_baseline_mb: +(baseline / 2 ** 20).toFixed(1), rss_peak_mb: +(peak.rss / 2 ** 20).toFixed(1),
    peak_open_streams: peak.open,
    kb_per_open_stream: peak.open ? +((peak.rss - baseline) / peak.open / 1024).toFixed(1) : null,
  };
  console.log(JSON.stringify(report, null, 1));
  const ok = complete === streams && persisted === streams;
  if (!ok) console.error(`load: ${streams - complete} streams incomplete, ${streams - persisted} turns not persisted`);
  process.exitCode = ok ? 0 : 1;
} finally {
  child.kill('SIGTERM');
  await new Promise((ok) => child.once('exit', ok));
  rmSync(data, { recursive: true, force: true });
}
