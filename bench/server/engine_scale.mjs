// The engine-scale benchmark and check: `affordance serve` against a paced OpenAI-compatible
// engine stand-in (tests/fixtures/engine/paced_engine.mjs, its own process: every request served
// at once at a fixed token rate, no token IDs), N chats at once:
//   node bench/server/engine_scale.mjs [--turns 1000] [--rate 20] [--tokens 64] [--workers 2]
//        [--binary build/affordance] [--model-read-timeout-ms MS] [--timeout-s 600] [--json]
//        [--probes 50]
// Opens N chat streams at once (one new thread each, one POST /api/chat per thread) and reports
// the wall time from the first POST to the last stream end against the engine-bound ideal (one
// turn's time at the engine: tokens / rate), time to first chunk (p50/p99/max), the turns in
// flight at the engine at once (its maxOpen; the target is N), and server memory per in-flight
// turn ((peak VmRSS - idle baseline) / most streams open at once, sampled every 20 ms) and the
// server's CPU time per turn (this tool, the stand-in and the server share the host's cores). Fatal
// (exit 1): a stream that does not end with finish + [DONE]; a stream whose text-delta deltas do
// not spell its conversation's reply exactly (the stand-in runs with --vary-by-key, so each thread
// has its own reply and a chunk of another turn shows); a chunk naming another turn's message or
// thread, or a text part this stream never opened; a turn not persisted as user + assistant with
// data-turn status "answered" and the same text. --json prints only the JSON result.
// --probes P: once all N turns are in flight at the engine, P more chats are posted one at a time,
// 20 ms apart, while the N stream; their time to first chunk is what a new user sees on a server
// holding N open turns (probe_ttfc_ms; the burst's own ttfc_ms is queueing behind N arrivals).
// Loopback only; it starts and stops its own engine and server.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { replyText } from '../../tests/fixtures/engine/paced_engine.mjs';

const root = resolve(new URL('../..', import.meta.url).pathname);
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const binary = arg('binary', join(root, 'build/affordance'));
const turns = Number(arg('turns', 1000));
const rate = Number(arg('rate', 20));
const tokens = Number(arg('tokens', 64));
const workers = Number(arg('workers', 2));
const readTimeout = arg('model-read-timeout-ms', null);
const timeoutS = Number(arg('timeout-s', 600));
const jsonOnly = process.argv.includes('--json');
const probes = Number(arg('probes', 0));
const enginePath = join(root, 'tests/fixtures/engine/paced_engine.mjs');

const rss = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
// User + system CPU seconds a process has used (/proc/PID/stat fields 14 and 15, in clock ticks of 1/100 s).
const cpu = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};
const pct = (xs, p) => xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const stat = (xs) => (xs.length ? { p50: +pct(xs, 50).toFixed(1), p99: +pct(xs, 99).toFixed(1), max: +Math.max(...xs).toFixed(1) } : null);
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

function request(port, method, path, body) {
  return new Promise((ok, fail) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        try {
          ok({ status: res.statusCode, body: text ? JSON.parse(text) : null });
        } catch (e) {
          fail(new Error(`${method} ${path}: ${res.statusCode} not JSON: ${text.slice(0, 200)}`));
        }
      });
    });
    req.on('error', fail);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

// At most `limit` of fn(item) at once, in order of the items.
async function pool(items, limit, fn) {
  const out = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

// One chat turn on `thread`: every SSE event read and checked against this stream's own turn.
function stream(port, thread, state) {
  return new Promise((ok) => {
    const t0 = performance.now();
    const r = { thread, status: null, first: null, firstText: null, end: null, chunks: 0, finish: false, done: false,
      error: null, text: '', messageId: null, turnStatus: null, problems: [] };
    const opened = new Set();
    const body = JSON.stringify({ id: thread, trigger: 'submit-message',
      messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'What is on next week?' }] }] });
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/api/chat', agent,
      headers: { 'content-type': 'application/json', 'x-ai-sdk-version': '7.0.173' } }, (res) => {
      r.status = res.statusCode;
      state.open++;
      state.maxOpen = Math.max(state.maxOpen, state.open);
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
          if (r.done) r.problems.push(`a chunk after [DONE]: ${data.slice(0, 80)}`);
          if (data === '[DONE]') { r.done = true; continue; }
          if (r.first === null) r.first = performance.now() - t0;
          r.chunks++;
          state.chunks++;
          let c;
          try {
            c = JSON.parse(data);
          } catch {
            r.problems.push(`a chunk is not JSON: ${data.slice(0, 80)}`);
            continue;
          }
          if (r.finish) r.problems.push(`a ${c.type} chunk after finish`);
          switch (c.type) {
            case 'start':
              if (r.messageId !== null) r.problems.push('a second start chunk');
              r.messageId = c.messageId;
              if (c.messageMetadata?.threadId !== thread) r.problems.push(`start names thread ${c.messageMetadata?.threadId}`);
              break;
            case 'text-start':
              opened.add(c.id);
              break;
            case 'text-delta':
              if (!opened.has(c.id)) r.problems.push(`text-delta for part ${c.id} this stream never opened`);
              if (r.firstText === null) r.firstText = performance.now() - t0;
              r.text += c.delta;
              break;
            case 'data-turn':
              if (c.id !== r.messageId) r.problems.push(`data-turn names message ${c.id}, the stream's start ${r.messageId}`);
              r.turnStatus = c.data?.status ?? null;
              break;
            case 'error':
              r.error = c.errorText;
              break;
            case 'finish':
              r.finish = true;
              break;
            default:
              break;
          }
        }
      });
      res.on('end', () => { state.open--; r.end = performance.now() - t0; ok(r); });
      res.on('error', (e) => { r.error = r.error ?? e.message; });
    });
    req.on('error', (e) => { r.error = r.error ?? e.message; r.end = r.end ?? performance.now() - t0; ok(r); });
    req.end(body);
  });
}

// Starts a child that prints one JSON line with a port first; its exit before that is an error.
function startChild(command, args, name) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = new Promise((ok, fail) => {
    createInterface({ input: child.stdout }).once('line', (line) => {
      try {
        const info = JSON.parse(line);
        if (!info.port) throw new Error('no port');
        ok(info);
      } catch {
        fail(new Error(`${name} did not start: ${line}`));
      }
    });
    child.once('exit', (code, signal) => fail(new Error(`${name} exited with ${code ?? signal} before it listened`)));
  });
  return { child, ready };
}

async function stop(child) {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((ok) => child.once('exit', ok));
    process.kill(child.pid, 'SIGTERM');
    const killed = setTimeout(() => {
      try {
        if (child.exitCode === null) process.kill(child.pid, 'SIGKILL');
      } catch {}
    }, 10000);
    await exited;
    clearTimeout(killed);
  }
}

const data = mkdtempSync(join(tmpdir(), 'affordance-engine-scale-'));
let engine = null;
let server = null;
const watchdog = setTimeout(async () => {
  console.error(`engine_scale: not finished after ${timeoutS} s; stopping`);
  await Promise.all([stop(server), stop(engine)]);
  rmSync(data, { recursive: true, force: true });
  process.exit(1);
}, timeoutS * 1000);
try {
  const e = startChild(process.execPath, [enginePath, '--port', '0', '--rate', String(rate), '--tokens', String(tokens), '--vary-by-key'], 'the engine stand-in');
  engine = e.child;
  const enginePort = (await e.ready).port;
  const s = startChild(binary, ['serve', '--port', '0', '--json', '--data', data, '--workers', String(workers),
    '--provider', 'openai', '--base-url', `http://127.0.0.1:${enginePort}`, '--connectors', join(root, 'examples/connectors'),
    ...(readTimeout !== null ? ['--model-read-timeout-ms', String(readTimeout)] : [])], 'affordance serve');
  server = s.child;
  const port = (await s.ready).port;

  // Threads first (not measured), then one warm-up turn so the baseline holds loaded frames.
  const made = await pool(Array.from({ length: turns + 1 + probes }, (_, i) => i), 16,
    async (i) => (await request(port, 'POST', '/api/threads', { title: `engine ${i}` })).body.thread.id);
  const probeThreads = made.splice(turns + 1);
  const warmThread = made.pop();
  const warm = await stream(port, warmThread, { open: 0, maxOpen: 0, chunks: 0 });
  if (!warm.finish || !warm.done) throw new Error(`the warm-up turn did not complete: ${JSON.stringify({ ...warm, text: warm.text.slice(0, 80) })}`);
  const baseline = rss(server.pid);
  const cpu0 = cpu(server.pid);
  await request(enginePort, 'POST', '/stats/reset');

  const state = { open: 0, maxOpen: 0, chunks: 0 };
  let peakRss = baseline;
  const sampler = setInterval(() => { peakRss = Math.max(peakRss, rss(server.pid)); }, 20);
  const t0 = performance.now();
  const running = Promise.all(made.map((t) => stream(port, t, state)));
  // Probes: new chats while the N turns are in flight at the engine.
  const probeResults = [];
  const openAtProbe = [];
  if (probes > 0) {
    const until = performance.now() + 60000;
    while ((await request(enginePort, 'GET', '/stats')).body.open < turns && performance.now() < until) {
      await new Promise((ok) => setTimeout(ok, 10));
    }
    const pending = [];
    for (const t of probeThreads) {
      openAtProbe.push((await request(enginePort, 'GET', '/stats')).body.open);
      pending.push(stream(port, t, { open: 0, maxOpen: 0, chunks: 0 }));
      await new Promise((ok) => setTimeout(ok, 20));
    }
    probeResults.push(...(await Promise.all(pending)));
  }
  const results = await running;
  const wall = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  peakRss = Math.max(peakRss, rss(server.pid));
  const serverCpu = cpu(server.pid) - cpu0;
  const engineStats = (await request(enginePort, 'GET', '/stats')).body;

  // Correctness: every stream, then every stored turn.
  const failures = [];
  const fail = (thread, why) => failures.push(`${thread}: ${why}`);
  const seen = new Map();
  for (const r of results) {
    const want = replyText({ tokens, vary: true, key: r.thread });
    if (r.status !== 200) fail(r.thread, `POST /api/chat answered ${r.status}`);
    if (!r.finish || !r.done) fail(r.thread, `stream ended without ${!r.finish ? 'finish' : ''}${!r.finish && !r.done ? ' and ' : ''}${!r.done ? '[DONE]' : ''}${r.error ? ` (error: ${r.error})` : ''}`);
    else if (r.error) fail(r.thread, `error chunk: ${r.error}`);
    if (r.text !== want) fail(r.thread, `streamed text differs from the reply: got ${JSON.stringify(r.text.slice(0, 120))} (${r.text.length} chars), want ${JSON.stringify(want.slice(0, 120))} (${want.length} chars)`);
    if (r.turnStatus !== 'answered') fail(r.thread, `data-turn status ${r.turnStatus}`);
    for (const p of r.problems.slice(0, 3)) fail(r.thread, p);
    if (r.messageId === null) fail(r.thread, 'no start chunk');
    else if (seen.has(r.messageId)) fail(r.thread, `message id ${r.messageId} also started thread ${seen.get(r.messageId)}`);
    else seen.set(r.messageId, r.thread);
  }
  const stored = await pool(results, 16, async (r) => {
    const want = replyText({ tokens, vary: true, key: r.thread });
    const got = await request(port, 'GET', `/api/threads/${r.thread}`);
    if (got.status !== 200) return fail(r.thread, `GET /api/threads/{id} answered ${got.status}`), false;
    const msgs = got.body.messages ?? [];
    const roles = msgs.map((m) => m.role).join(',');
    if (roles !== 'user,assistant') return fail(r.thread, `stored messages are ${roles || 'none'}`), false;
    const a = msgs[1];
    const turn = a.parts.find((p) => p.type === 'data-turn');
    const text = a.parts.filter((p) => p.type === 'text').map((p) => p.text).join('');
    let ok = true;
    if (turn?.data?.status !== 'answered') { fail(r.thread, `stored turn status ${turn?.data?.status}`); ok = false; }
    if (r.messageId !== null && a.id !== r.messageId) { fail(r.thread, `stored assistant message ${a.id}, streamed ${r.messageId}`); ok = false; }
    if (text !== want) { fail(r.thread, `stored text differs: ${JSON.stringify(text.slice(0, 120))}`); ok = false; }
    return ok;
  });
  const list = (await request(port, 'GET', '/api/threads')).body.threads;
  const listed = list.filter((t) => t.title.startsWith('engine ') && t.messages === 2).length - 1 - probes;  // minus warm-up and probes

  const firsts = results.filter((r) => r.first !== null).map((r) => r.first);
  const firstTexts = results.filter((r) => r.firstText !== null).map((r) => r.firstText);
  const ends = results.filter((r) => r.end !== null).map((r) => r.end);
  const ideal = tokens / rate;
  const report = {
    turns, workers, rate, tokens, cores: availableParallelism(), read_timeout_ms: readTimeout === null ? null : Number(readTimeout),
    wall_s: +wall.toFixed(2), ideal_s: +ideal.toFixed(2), wall_over_ideal: +(wall / ideal).toFixed(2),
    ttfc_ms: stat(firsts), first_text_ms: stat(firstTexts), stream_ms: stat(ends),
    engine_max_open: engineStats.maxOpen, engine_requests: engineStats.requests,
    engine_completed: engineStats.completed, engine_aborted: engineStats.aborted,
    max_open_streams: state.maxOpen, chunks: state.chunks, chunks_per_s: Math.round(state.chunks / wall),
    rss_baseline_mb: +(baseline / 2 ** 20).toFixed(1), rss_peak_mb: +(peakRss / 2 ** 20).toFixed(1),
    server_cpu_s: +serverCpu.toFixed(2), server_cpu_ms_per_turn: +((serverCpu * 1000) / turns).toFixed(2),
    kb_per_inflight_turn: state.maxOpen ? +((peakRss - baseline) / state.maxOpen / 1024).toFixed(1) : null,
    complete: results.filter((r) => r.finish && r.done && !r.error).length,
    exact_text: results.filter((r) => r.text === replyText({ tokens, vary: true, key: r.thread })).length,
    persisted_answered: stored.filter(Boolean).length, listed_with_two_messages: listed,
    failures: failures.length,
  };
  if (probes > 0) {
    const probeFirsts = probeResults.filter((r) => r.first !== null).map((r) => r.first);
    report.probes = probes;
    report.probe_ttfc_ms = stat(probeFirsts);
    report.engine_open_at_probes = { min: Math.min(...openAtProbe), max: Math.max(...openAtProbe) };
    report.probes_complete = probeResults.filter((r) => r.finish && r.done && !r.error).length;
    if (report.probes_complete !== probes) failures.push(`${probes - report.probes_complete} probe chats did not complete`);
    report.failures = failures.length;
  }
  if (!jsonOnly) {
    const rows = [
      ['turns at once', turns], ['workers', workers], ['engine rate', `${rate} tok/s, ${tokens} tokens`],
      ['wall (first POST .. last end)', `${report.wall_s} s`], ['engine-bound ideal', `${report.ideal_s} s`],
      ['wall / ideal', report.wall_over_ideal],
      ['time to first chunk p50/p99/max', report.ttfc_ms && `${report.ttfc_ms.p50} / ${report.ttfc_ms.p99} / ${report.ttfc_ms.max} ms`],
      ['first text p50/p99/max', report.first_text_ms && `${report.first_text_ms.p50} / ${report.first_text_ms.p99} / ${report.first_text_ms.max} ms`],
      ['engine maxOpen (target = turns)', `${report.engine_max_open} / ${turns}`],
      ['most streams open at once', report.max_open_streams],
      ['server RSS idle -> peak', `${report.rss_baseline_mb} -> ${report.rss_peak_mb} MB`],
      ['per in-flight turn', `${report.kb_per_inflight_turn} KB`],
      ['server CPU', `${report.server_cpu_s} s, ${report.server_cpu_ms_per_turn} ms per turn (${report.cores} cores here)`],
      ['complete / exact text / persisted', `${report.complete} / ${report.exact_text} / ${report.persisted_answered}`],
    ];
    if (probes > 0) {
      rows.push(['probe chats (while N in flight)', `${report.probes_complete} / ${probes} complete, engine open ${report.engine_open_at_probes.min}..${report.engine_open_at_probes.max}`]);
      rows.push(['probe time to first chunk p50/p99/max', report.probe_ttfc_ms && `${report.probe_ttfc_ms.p50} / ${report.probe_ttfc_ms.p99} / ${report.probe_ttfc_ms.max} ms`]);
    }
    const w = Math.max(...rows.map(([k]) => k.length));
    for (const [k, v] of rows) console.log(`${k.padEnd(w)}  ${v}`);
    if (report.engine_max_open < turns) console.log(`note: at most ${report.engine_max_open} of ${turns} turns were at the engine at once`);
  }
  console.log(JSON.stringify(report, null, jsonOnly ? undefined : 1));
  if (failures.length) {
    console.error(`engine_scale: ${failures.length} correctness failures; the first ones:`);
    for (const f of failures.slice(0, 20)) console.error(`  ${f}`);
    process.exitCode = 1;
  }
} catch (e) {
  console.error(`engine_scale: ${e.message}`);
  process.exitCode = 1;
} finally {
  clearTimeout(watchdog);
  await Promise.all([stop(server), stop(engine)]);
  rmSync(data, { recursive: true, force: true });
}
