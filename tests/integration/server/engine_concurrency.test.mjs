// Turns in flight at once against a real engine process: ONE `affordance serve` (--provider
// openai, --workers 2, --model-read-timeout-ms 1500) and ONE paced engine stand-in
// (tests/fixtures/engine/paced_engine.mjs: rate 50, 20 tokens, a reply per conversation), in one
// run: 60 normal turns at once (exact text, finish + [DONE], persisted "answered"; the engine sees
// all 60 open at once, which a server bounded by --workers cannot do) and, concurrently, one turn
// per engine fault, chosen per thread through the engine's x-session-token header: a hang
// (model.read_timeout), a reset (model.stream_interrupted), garbage (model.stream_malformed), an
// HTTP 500 (model.http_status), each persisted "provider_error"; a turn the client cancels with
// POST /api/chat/{id}/cancel ("cancelled", the stream ends with abort); a turn whose client drops
// the SSE connection mid-stream (it still completes: "answered", full text). The server is alive
// and answering at the end. The engine holds every stream's first piece until 60 are open at once
// (its barrier, 20 s at most), so the concurrency check does not depend on admission speed. Run
// from CTest:
//   node tests/integration/server/engine_concurrency.test.mjs build/affordance
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { replyText } from '../../fixtures/engine/paced_engine.mjs';
import { root } from './serve.mjs';

const binary = process.argv[2] ?? join(root, 'build/affordance');
const RATE = 50;
const TOKENS = 20;
const NORMAL = 60;
const READ_TIMEOUT_MS = 1500;
const BARRIER_MS = 20000;
const STREAM_LIMIT_MS = 150000;  // a stream still open then is cut and reported
const reply = (thread) => replyText({ tokens: TOKENS, vary: true, key: thread });
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

function request(port, method, path, body) {
  return new Promise((ok, fail) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent,
      headers: method === 'GET' ? {} : { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        let parsed = null;
        try {
          parsed = text ? JSON.parse(text) : null;
        } catch {
          parsed = { raw: text };
        }
        ok({ status: res.statusCode, body: parsed });
      });
    });
    req.setTimeout(30000, () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', fail);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

// One chat turn; every chunk recorded. `onDelta(r, req)` runs after each text-delta (cancel and
// drop act there).
function chat(port, thread, onDelta = null) {
  return new Promise((ok) => {
    const r = { thread, status: null, chunks: [], types: [], text: '', deltas: 0, done: false, dropped: false,
      errorText: null, turn: null, messageId: null, failure: null, cancel: null };
    let settled = false;
    const settle = () => {
      if (!settled) {
        settled = true;
        clearTimeout(limit);
        ok(r);
      }
    };
    const body = JSON.stringify({ id: thread, trigger: 'submit-message',
      messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Tell me about the week.' }] }] });
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/api/chat', agent,
      headers: { 'content-type': 'application/json', 'x-ai-sdk-version': '7.0.173' } }, (res) => {
      r.status = res.statusCode;
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        buf += d;
        let at;
        while (!r.dropped && (at = buf.indexOf('\n\n')) >= 0) {
          const event = buf.slice(0, at);
          buf = buf.slice(at + 2);
          if (!event.startsWith('data: ')) continue;
          const data = event.slice(6);
          if (data === '[DONE]') {
            r.done = true;
            continue;
          }
          const c = JSON.parse(data);
          r.chunks.push(c);
          r.types.push(c.type);
          if (c.type === 'start') r.messageId = c.messageId;
          if (c.type === 'text-delta') {
            r.text += c.delta;
            r.deltas++;
            onDelta?.(r, req);
          }
          if (c.type === 'error') r.errorText = c.errorText;
          if (c.type === 'data-turn') r.turn = c;
        }
      });
      res.on('end', settle);
      res.on('close', settle);
    });
    const limit = setTimeout(() => {
      r.failure = `still open after ${STREAM_LIMIT_MS} ms`;
      req.destroy();
      settle();
    }, STREAM_LIMIT_MS);
    req.on('error', (e) => {
      if (!r.dropped) r.failure = r.failure ?? e.message;
      settle();
    });
    req.end(body);
  });
}

// Starts a child that prints one JSON line with its port; its stderr is kept (and shown).
function startChild(command, args) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => {
    stderr += d;
    process.stderr.write(d);
  });
  const ready = new Promise((ok, fail) => {
    createInterface({ input: child.stdout }).once('line', (line) => {
      try {
        ok(JSON.parse(line));
      } catch {
        fail(new Error(`not a JSON line: ${line}`));
      }
    });
    child.once('exit', (code) => fail(Object.assign(new Error(`exited with ${code}`), { stderr: () => stderr })));
  });
  return { child, ready };
}

async function stop(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((ok) => child.once('exit', ok));
  try {
    process.kill(child.pid, 'SIGTERM');
  } catch {}
  const killed = setTimeout(() => {
    try {
      process.kill(child.pid, 'SIGKILL');
    } catch {}
  }, 10000);
  await exited;
  clearTimeout(killed);
}

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
const data = mkdtempSync(join(tmpdir(), 'affordance-engine-concurrency-'));
let engine = null;
let server = null;
let readTimeoutFlag = true;
const run = {};  // what the one run saw; each test below checks one part of it

// The stored assistant message of a thread: {status, text, id} once its turn ended, else null.
async function stored(port, thread) {
  const got = await request(port, 'GET', `/api/threads/${thread}`);
  if (got.status !== 200) return { httpStatus: got.status };
  const msgs = got.body.messages ?? [];
  const a = msgs.find((m) => m.role === 'assistant');
  const turn = a?.parts.find((p) => p.type === 'data-turn');
  if (!turn) return null;
  return { roles: msgs.map((m) => m.role).join(','), id: a.id, status: turn.data?.status,
    text: a.parts.filter((p) => p.type === 'text').map((p) => p.text).join('') };
}

before(async () => {
  const e = startChild(process.execPath, [join(root, 'tests/fixtures/engine/paced_engine.mjs'), '--port', '0',
    '--rate', String(RATE), '--tokens', String(TOKENS), '--vary-by-key']);
  engine = e.child;
  const enginePort = (await e.ready).port;
  const serveArgs = ['serve', '--port', '0', '--json', '--data', data, '--workers', '2', '--provider', 'openai',
    '--base-url', `http://127.0.0.1:${enginePort}`, '--connectors', join(root, 'examples/connectors')];
  let s = startChild(binary, [...serveArgs, '--model-read-timeout-ms', String(READ_TIMEOUT_MS)]);
  server = s.child;
  let info;
  try {
    info = await s.ready;
  } catch (err) {
    // A binary without the flag: run the rest anyway (the provider's default read timeout, 60 s)
    // so every other check still reports; the flag's own test below fails.
    if (!/model-read-timeout-ms/.test(err.stderr?.() ?? '')) throw err;
    console.error('engine_concurrency: serve refused --model-read-timeout-ms; running without it');
    readTimeoutFlag = false;
    s = startChild(binary, serveArgs);
    server = s.child;
    info = await s.ready;
  }
  const port = info.port;
  run.port = port;

  const thread = async (title) => (await request(port, 'POST', '/api/threads', { title })).body.thread.id;
  const normal = [];
  for (let i = 0; i < NORMAL; i++) normal.push(await thread(`normal ${i}`));
  const faulty = {};
  for (const name of ['hang', 'reset', 'garbage', 'http500', 'cancel', 'drop']) faulty[name] = await thread(name);
  const fault = async (key, mode, after_) => {
    const r = await request(enginePort, 'POST', '/control/fault', { key, mode, after: after_ });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  };
  await fault(faulty.hang, 'hang', 3);
  await fault(faulty.reset, 'reset', 3);
  await fault(faulty.garbage, 'garbage', 3);
  await fault(faulty.http500, 'http500', 0);
  await fault(faulty.cancel, 'slow', 0);  // 5 tokens/s: time to cancel mid-stream
  await fault(faulty.drop, 'slow', 0);
  await request(enginePort, 'POST', '/stats/reset');
  // The engine holds every stream's first piece until 60 are open at once (or 20 s passed), so
  // "in flight at once" does not depend on how fast the server admits 66 requests; a server that
  // runs at most --workers turns releases it by the timeout, and maxOpen stays at that bound.
  const barrier = await request(enginePort, 'POST', '/control/barrier', { count: NORMAL, timeoutMs: BARRIER_MS });
  assert.equal(barrier.status, 200, JSON.stringify(barrier.body));

  // All at once.
  const cancelOnce = (r) => {
    if (r.deltas !== 2 || r.cancel) return;
    r.cancel = request(port, 'POST', `/api/chat/${r.thread}/cancel`, {});
  };
  const dropOnce = (r, req) => {
    if (r.deltas !== 2 || r.dropped) return;
    r.dropped = true;
    req.destroy();
  };
  const all = await Promise.all([
    ...normal.map((t) => chat(port, t)),
    chat(port, faulty.hang), chat(port, faulty.reset), chat(port, faulty.garbage), chat(port, faulty.http500),
    chat(port, faulty.cancel, cancelOnce), chat(port, faulty.drop, dropOnce),
  ]);
  run.normal = all.slice(0, NORMAL);
  const [hang, reset, garbage, http500, cancel, drop] = all.slice(NORMAL);
  run.faulty = { hang, reset, garbage, http500, cancel, drop };
  run.cancelAnswer = cancel.cancel ? await cancel.cancel : null;
  run.engine = (await request(enginePort, 'GET', '/stats')).body;

  // The stored turns; the dropped client's turn runs on to its end (bounded wait).
  run.stored = {};
  for (const r of all) run.stored[r.thread] = await stored(port, r.thread);
  for (let i = 0; i < 300 && run.stored[drop.thread] === null; i++) {
    await sleep(100);
    run.stored[drop.thread] = await stored(port, drop.thread);
  }
  run.threads = await request(port, 'GET', '/api/threads');
  run.alive = server.exitCode === null && server.signalCode === null;
});

after(async () => {
  await Promise.all([stop(server), stop(engine)]);
  rmSync(data, { recursive: true, force: true });
});

// A failed provider turn: its error chunk names the code, then finish; stored "provider_error".
function assertProviderError(r, code) {
  assert.equal(r.failure, null, r.failure);
  assert.equal(r.status, 200);
  assert.ok(r.errorText, `no error chunk; chunks: ${r.types.join(',')}`);
  assert.match(r.errorText, new RegExp(`^${code.replace('.', '\\.')}\\b`), r.errorText);
  assert.equal(r.turn?.data?.status, 'provider_error', `streamed data-turn ${JSON.stringify(r.turn?.data?.status)}`);
  assert.equal(r.types.at(-1), 'finish', r.types.join(','));
  assert.ok(r.done, 'the stream ends with [DONE]');
  assert.ok(reply(r.thread).startsWith(r.text), `text before the fault is a prefix of the reply: ${JSON.stringify(r.text)}`);
  const s = run.stored[r.thread];
  assert.equal(s?.status, 'provider_error', `stored ${JSON.stringify(s)}`);
}

test('serve takes --model-read-timeout-ms', () => {
  assert.ok(readTimeoutFlag, 'affordance serve refused --model-read-timeout-ms');
});

test(`${NORMAL} normal turns at once: exact text, finish + [DONE], persisted "answered"`, () => {
  const bad = [];
  const ids = new Set();
  for (const r of run.normal) {
    const s = run.stored[r.thread];
    const want = reply(r.thread);
    const why = r.failure ? r.failure
      : r.status !== 200 ? `status ${r.status}`
        : r.text !== want ? `text ${JSON.stringify(r.text)} != ${JSON.stringify(want)}`
          : !r.done || r.types.at(-1) !== 'finish' ? `ends ${r.types.slice(-3).join(',')}${r.done ? ' [DONE]' : ''}`
            : r.errorText ? `error ${r.errorText}`
              : r.turn?.data?.status !== 'answered' ? `streamed status ${r.turn?.data?.status}`
                : r.turn?.id !== r.messageId ? `data-turn ${r.turn?.id} != start ${r.messageId}`
                  : ids.has(r.messageId) ? `message id ${r.messageId} twice`
                    : s?.roles !== 'user,assistant' || s.status !== 'answered' || s.text !== want || s.id !== r.messageId
                      ? `stored ${JSON.stringify(s)}` : null;
    ids.add(r.messageId);
    if (why) bad.push(`${r.thread}: ${why}`);
  }
  assert.deepEqual(bad, []);
});

test(`the engine had all ${NORMAL} normal turns open at once`, () => {
  assert.ok(run.engine.maxOpen >= NORMAL,
    `engine maxOpen ${run.engine.maxOpen} < ${NORMAL}: turns are not in flight at once (${JSON.stringify(run.engine)})`);
  assert.equal(run.engine.barrier, 'count', `the engine's barrier was released by ${run.engine.barrier}`);
});

test('an engine that hangs: model.read_timeout, provider_error', () => assertProviderError(run.faulty.hang, 'model.read_timeout'));
test('an engine that resets the connection: model.stream_interrupted, provider_error',
  () => assertProviderError(run.faulty.reset, 'model.stream_interrupted'));
test('an engine that sends garbage: model.stream_malformed, provider_error',
  () => assertProviderError(run.faulty.garbage, 'model.stream_malformed'));
test('an engine that answers 500: model.http_status, provider_error', () => {
  assertProviderError(run.faulty.http500, 'model.http_status');
  assert.match(run.faulty.http500.errorText, /stand-in failure/);
  assert.equal(run.faulty.http500.text, '');
});

test('a turn cancelled mid-stream through POST /api/chat/{id}/cancel: abort, "cancelled"', () => {
  const r = run.faulty.cancel;
  assert.equal(r.failure, null, r.failure);
  assert.ok(run.cancelAnswer, 'the cancel was sent after the second text-delta');
  assert.equal(run.cancelAnswer.status, 202, JSON.stringify(run.cancelAnswer.body));
  assert.ok(r.types.includes('abort'), r.types.join(','));
  assert.ok(!r.types.includes('finish'), r.types.join(','));
  assert.ok(r.done, 'the stream ends with [DONE]');
  assert.equal(r.turn?.data?.status, 'cancelled');
  assert.ok(r.text.length < reply(r.thread).length && reply(r.thread).startsWith(r.text), JSON.stringify(r.text));
  assert.equal(run.stored[r.thread]?.status, 'cancelled', JSON.stringify(run.stored[r.thread]));
});

test('a client that drops its stream mid-turn: the turn completes, "answered", full text', () => {
  const r = run.faulty.drop;
  assert.ok(r.dropped, 'the client dropped after the second text-delta');
  const s = run.stored[r.thread];
  assert.equal(s?.status, 'answered', JSON.stringify(s));
  assert.equal(s.text, reply(r.thread));
});

test('the server is alive and answers GET /api/threads', () => {
  assert.ok(run.alive, 'affordance serve exited');
  assert.equal(run.threads.status, 200);
  const titles = new Set(run.threads.body.threads.map((t) => t.title));
  for (const t of ['hang', 'reset', 'garbage', 'http500', 'cancel', 'drop', 'normal 0', `normal ${NORMAL - 1}`]) {
    assert.ok(titles.has(t), `thread ${t} listed`);
  }
});
