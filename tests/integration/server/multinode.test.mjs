// Several `affordance serve` nodes on one PostgreSQL behind HAProxy (docs/SCALE.md), all started
// here (tests/integration/server/cluster.mjs): a real PostgreSQL 15 in a temp folder with two
// databases, the paced engine stand-in (tests/fixtures/engine/paced_engine.mjs), and
//   - three nodes n1..n3 on database `turns` (--provider openai at the stand-in, --lease-ms 10000),
//     started at once on the empty database (their migrations race), behind HAProxy (round robin,
//     health checks on /deploy-truth, --public-host 127.0.0.1:<proxy port>);
//   - two nodes w1, w2 on database `approvals` (replay of scripts/write.json) sharing ONE writable
//     copy of the calendar connector, the person's read and write grants given once in the store.
// What must hold:
//   a. chats through the proxy are served by more than one node (x-affordance-node); every node
//      names itself in /deploy-truth; a thread one node wrote reads the same on another;
//   b. `kill -9` of the node producing a stream mid-turn: a resume through the proxy
//      (GET /api/chat/{id}/stream) replays every chunk the original stream got, once each, in
//      order, as its prefix, and ends with data-turn "interrupted" + abort once the lease expired
//      and another node took the turn over; the stored message is "interrupted" with its text so
//      far; the killed node, restarted with its name, data and port while another node streams a
//      turn, leaves that turn running to its end;
//   c. two nodes approving the same staged write at the same moment: one new event in the shared
//      calendar, one receipt (executed), the other request a clear 4xx error or the same outcome;
//   d. a stop posted to node B cancels the turn running on node A within seconds: abort, and the
//      message stored "cancelled" as on one node;
//   e. `pg_ctl restart -m fast` while five turns stream: every stream ends in a named state
//      (finish, error with a code, abort or interrupted), a resume on another node once the
//      database is back replays the same stream, no node dies, every node serves new chats after
//      it, no turn is left running (in the turns or as a stored message still "running"), and
//      every message stored before it is intact.
// A missing PostgreSQL or HAProxy fails the test (it names ./scripts/setup); nothing is skipped.
// Run from CTest (server_multinode), or:
//   node tests/integration/server/multinode.test.mjs build/affordance
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { replyText } from '../../fixtures/engine/paced_engine.mjs';
import { auth, chatBody, freePort, grant, readStream, sharedConnectors, sleep, startEngine, startHaproxy, startNode,
  startPostgres } from './cluster.mjs';
import { root } from './serve.mjs';

const binary = process.argv[2] ?? join(root, 'build/affordance');
// The default lease: a database restart of a few seconds stays within it (a longer outage lets other
// nodes take over turns whose node is alive: a race this test does not try to time).
const LEASE_MS = 10000;
// A turn is TOKENS pieces at RATE a second at the engine: 4 s. A thread given the engine's `slow`
// fault streams at RATE / 10 (40 s): it is killed or cancelled long before it ends.
const RATE = 10;
const TOKENS = 40;
const reply = (thread) => replyText({ tokens: TOKENS, vary: true, key: thread });
const run = Date.now().toString(36);
const id = (name) => `${name}-${run}`;

let pg;
let engine;
let proxy;
let turnsUri;
let approvalsUri;
let approvalsDb;
let connectors;
const nodes = [];    // n1..n3: the nodes behind the proxy
const writers = [];  // w1, w2: the approval nodes
const ended = [];    // threads whose turns ended, for the check that a database restart keeps them

function nodeOptions(name, proxyPort) {
  return { store: turnsUri, node: name, leaseMs: LEASE_MS, engine: engine.base, publicHost: `127.0.0.1:${proxyPort}` };
}

// Restarts (with its name, data folder and port) any node behind the proxy that is not running.
async function ensureNodes() {
  for (let i = 0; i < nodes.length; i++) {
    const old = nodes[i];
    if (!old.alive()) {
      nodes[i] = Object.assign(await startNode(binary, { ...old.options, data: old.data, port: old.port }), { options: old.options });
    }
  }
  await proxy.waitUp(nodes.length);
}

const byName = (name) => nodes.find((n) => n.name === name);

// The stored messages of a thread, read through `base`: [{id, role, status, text, turn}].
async function stored(base, thread) {
  const res = await fetch(`${base}/api/threads/${thread}`, { headers: auth });
  const body = await res.json();
  if (res.status !== 200) return { httpStatus: res.status, body };
  return body.messages.map((m) => ({ id: m.id, role: m.role, status: m.metadata?.status,
    text: m.parts.filter((p) => p.type === 'text').map((p) => p.text).join(''),
    turn: m.parts.find((p) => p.type === 'data-turn')?.data?.status ?? null }));
}

// A finished turn: 200, [DONE] after finish, the exact reply, data-turn "answered".
function whyNotAnswered(r, thread) {
  if (r.status !== 200) return `status ${r.status} ${JSON.stringify(r.body)}`;
  if (r.failure) return r.failure;
  if (!r.done || r.types.at(-1) !== 'finish') return `ends ${r.types.slice(-3).join(',')}${r.done ? ' [DONE]' : ''}`;
  if (r.errorText) return `error ${r.errorText}`;
  if (r.turn?.data?.status !== 'answered') return `data-turn ${r.turn?.data?.status}`;
  if (r.text !== reply(thread)) return `text ${JSON.stringify(r.text)} != ${JSON.stringify(reply(thread))}`;
  return null;
}

// How a stream ended, by name, or null when it ended in none: a cut connection, a stream without
// finish / abort and [DONE], an error chunk without a code.
function endState(r) {
  if (r.status !== 200 || !r.done) return null;
  const code = r.errorText === null ? null : /^([a-z_]+\.[a-z_]+)\b/.exec(r.errorText)?.[1] ?? '';
  if (code === '') return null;
  const last = r.types.at(-1);
  if (last === 'finish') return code ? `error ${code}` : 'finish';
  if (last === 'abort') return r.turn?.data?.status === 'interrupted' ? 'interrupted' : code ? `abort (error ${code})` : 'abort';
  return null;
}

before(async () => {
  pg = await startPostgres();
  turnsUri = await pg.createDatabase('turns');
  approvalsDb = 'approvals';
  approvalsUri = await pg.createDatabase(approvalsDb);
  engine = await startEngine({ rate: RATE, tokens: TOKENS, vary: true });

  // The proxy's port first: every node names it with --public-host (the gate's Host check).
  const proxyPort = await freePort();
  const started = await Promise.all(['n1', 'n2', 'n3'].map(async (name) => {
    const options = nodeOptions(name, proxyPort);
    const n = await startNode(binary, options);
    n.options = options;
    return n;
  }));
  nodes.push(...started);
  proxy = await startHaproxy({ port: proxyPort, backends: nodes.map((n) => ({ name: n.name, port: n.port })) });
  await proxy.waitUp(nodes.length);

  // The approval nodes share one calendar; the grants go into the shared store once.
  connectors = sharedConnectors();
  const w1 = await startNode(binary, { store: approvalsUri, node: 'w1', leaseMs: LEASE_MS, script: 'write.json',
    connectors: connectors.dir });
  grant(binary, { store: approvalsUri, data: w1.data, connectors: connectors.dir, access: ['--read', '--write'] });
  const w2 = await startNode(binary, { store: approvalsUri, node: 'w2', leaseMs: LEASE_MS, script: 'write.json',
    connectors: connectors.dir });
  writers.push(w1, w2);
});

after(async () => {
  await Promise.all([...nodes, ...writers].map((n) => n.stop()));
  await proxy?.stop();
  await engine?.stop();
  await pg?.close();
});

test('a. chats through the proxy spread over the nodes; each names itself; any node reads any thread', async () => {
  for (const n of [...nodes, ...writers]) {
    const truth = await n.json('GET', '/deploy-truth');
    assert.equal(truth.status, 200);
    assert.equal(truth.headers.get('x-affordance-node'), n.name, `${n.name}: the x-affordance-node header`);
    const { name, store, leaseMs } = truth.body.node ?? {};
    assert.deepEqual({ name, store, leaseMs }, { name: n.name, store: 'postgresql', leaseMs: LEASE_MS },
      `${n.name}: /deploy-truth node ${JSON.stringify(truth.body.node)}`);
    const missing = await n.json('GET', '/api/threads/no-such-thread');
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('x-affordance-node'), n.name, `${n.name}: an error carries x-affordance-node too`);
  }

  const threads = Array.from({ length: 6 }, (_, i) => id(`spread-${i}`));
  const results = await Promise.all(threads.map((t) => readStream(proxy.base, '/api/chat', { body: chatBody(t, 'Tell me about the week.') })));
  const bad = [];
  const served = {};
  results.forEach((r, i) => {
    const why = whyNotAnswered(r, threads[i]) ?? (byName(r.node) ? null : `x-affordance-node ${r.node}`);
    if (why) bad.push(`${threads[i]}: ${why}`);
    served[r.node] = (served[r.node] ?? 0) + 1;
  });
  assert.deepEqual(bad, []);
  assert.ok(Object.keys(served).length > 1, `every chat went to one node: ${JSON.stringify(served)}`);

  // Written by one node, read through another (directly), the same.
  for (let i = 0; i < threads.length; i++) {
    const other = nodes.find((n) => n.name !== results[i].node);
    const messages = await stored(other.base, threads[i]);
    assert.deepEqual(messages.map?.((m) => [m.role, m.role === 'user' || m.id === results[i].messageId, m.text, m.turn]),
      [['user', true, 'Tell me about the week.', null], ['assistant', true, reply(threads[i]), 'answered']],
      `${threads[i]} (served by ${results[i].node}) read on ${other.name}: ${JSON.stringify(messages)}`);
    ended.push(threads[i]);
  }
  const list = await (await fetch(`${proxy.base}/api/threads`, { headers: auth })).json();
  for (const t of threads) assert.ok(list.threads.some((x) => x.id === t), `${t} listed through the proxy`);

  // The proxy runs on this machine as this user, but a request it forwards is someone else's:
  // without the token it is refused, and the person's authority is never minted through it.
  const anonymous = await fetch(`${proxy.base}/api/threads`);
  assert.equal(anonymous.status, 401, 'a proxied request without the token');
  assert.equal((await anonymous.json()).error.code, 'server.unauthorized');
  const minted = await fetch(`${proxy.base}/api/session`, {
    method: 'POST', headers: { ...auth, 'content-type': 'application/json', origin: proxy.base }, body: '{}' });
  assert.equal(minted.status, 403, 'a person session minted through the proxy');
  assert.equal((await minted.json()).error.code, 'server.no_person_proof');
});

test('b. kill -9 of the node producing a stream: a resume through the proxy replays it and ends interrupted', async () => {
  await ensureNodes();
  const thread = id('killed');
  await engine.fault(thread, 'slow', 0);
  let victim = null;
  let killedAt = null;
  let resume = null;
  const original = await readStream(proxy.base, '/api/chat', {
    body: chatBody(thread, 'Tell me about the week.'),
    onChunk: (c, r, req) => {
      if (r.deltas !== 3 || victim) return;
      victim = byName(r.node);
      if (!victim) return req.destroy();  // fails below; the slow turn need not be waited for
      // Killed mid-turn; the client comes back at once, through the proxy (to another node).
      resume = victim.kill('SIGKILL').then(() => {
        killedAt = performance.now();
        return readStream(proxy.base, `/api/chat/${thread}/stream`, { method: 'GET', limitMs: 60000 });
      });
    },
  });
  assert.ok(victim, `the original stream named no node of ours (${original.node}) or got no 3 deltas: ${original.types.join(',')}`);
  const r = await resume;
  const tookMs = performance.now() - killedAt;
  assert.equal(victim.alive(), false);
  assert.equal(r.status, 200, `the resume answered ${r.status} ${JSON.stringify(r.body)} (204: no running turn was found ` +
    'right after the kill)');
  assert.notEqual(r.node, victim.name, 'the resume was served by another node');
  assert.equal(r.failure, null, r.failure);
  assert.deepEqual(r.chunks.slice(0, original.chunks.length), original.chunks,
    `the replay does not start with the ${original.chunks.length} chunks the original stream got ` +
    `(original ${original.types.join(',')}; replay ${r.types.join(',')})`);
  assert.ok(reply(thread).startsWith(r.text), `the replayed text is not a prefix of the reply: ${JSON.stringify(r.text)}`);
  assert.equal(r.types.filter((t) => t === 'start').length, 1, r.types.join(','));
  assert.deepEqual(r.types.slice(-2), ['data-turn', 'abort'], `the replay ends ${r.types.slice(-4).join(',')}`);
  assert.equal(r.turn?.data?.status, 'interrupted', JSON.stringify(r.turn));
  assert.equal(r.turn?.id, original.messageId);
  assert.ok(r.done, 'the replay ends with [DONE]');
  // The lease runs out at most a lease after the kill; the next sweep (every third of one) ends it.
  assert.ok(tookMs < (LEASE_MS * 4) / 3 + 3000, `the replay ended ${tookMs.toFixed(0)} ms after the kill (lease ${LEASE_MS} ms)`);

  const messages = await stored(proxy.base, thread);
  const a = messages.find?.((m) => m.role === 'assistant');
  assert.ok(a, `no stored assistant message: ${JSON.stringify(messages)}`);
  assert.equal(a.id, original.messageId);
  assert.equal(a.status, 'interrupted', JSON.stringify(a));
  assert.ok(a.text.length > 0 && reply(thread).startsWith(a.text), `stored text so far: ${JSON.stringify(a.text)}`);
  for (const n of nodes.filter((x) => x.alive())) {
    const again = await readStream(n.base, `/api/chat/${thread}/stream`, { method: 'GET', limitMs: 10000 });
    assert.equal(again.status, 204, `${n.name}: the thread still has a running turn (${again.types.join(',')})`);
  }
  ended.push(thread);
});

test('b2. a node restarted with its name, data and port leaves the turns of other nodes running', async () => {
  const dead = nodes.find((n) => !n.alive()) ?? nodes[0];
  if (dead.alive()) await dead.kill('SIGKILL');
  const other = nodes.find((n) => n.alive());
  const thread = id('across-restart');
  let restarted = null;
  const r = await readStream(other.base, '/api/chat', {
    body: chatBody(thread, 'Tell me about the week.'),
    onChunk: (c, s) => {
      if (s.deltas === 1 && !restarted) {
        restarted = startNode(binary, { ...dead.options, data: dead.data, port: dead.port });
      }
    },
  });
  const back = await restarted;
  nodes[nodes.indexOf(dead)] = Object.assign(back, { options: dead.options });
  assert.equal(whyNotAnswered(r, thread), null, `the turn on ${other.name} while ${dead.name} restarted`);
  const messages = await stored(back.base, thread);
  assert.equal(messages.find?.((m) => m.role === 'assistant')?.turn, 'answered', JSON.stringify(messages));
  await proxy.waitUp(nodes.length);
  assert.equal((await back.json('GET', '/deploy-truth')).body.node?.name, dead.name);
  ended.push(thread);
});

test('c. two nodes approving the same write at once: one effect, one executed receipt', async () => {
  const [w1, w2] = writers;
  const sessions = [await w1.person(), await w2.person()];
  for (const round of [1, 2]) {
    const thread = id(`race-${round}`);
    const staged = await readStream(w1.base, '/api/chat', { body: chatBody(thread, 'Put a budget sync on Thursday.') });
    const request = staged.chunks.find((c) => c.type === 'tool-approval-request');
    assert.ok(request, `round ${round}: no approval request: ${staged.status} ${staged.types.join(',')}`);
    assert.equal(staged.chunks.at(-1)?.finishReason, 'tool-calls');
    const events = connectors.events('Budget sync');
    const decision = { id: thread, trigger: 'submit-message', messageId: 'm-assistant',
      messages: [{ id: 'm-assistant', role: 'assistant', parts: [{ type: 'step-start' },
        { type: 'tool-invoke_mutation', toolCallId: request.toolCallId, state: 'approval-responded', input: {},
          approval: { id: request.approvalId, approved: true } }] }] };
    const answers = await Promise.all(writers.map((w, i) => readStream(w.base, '/api/chat', { body: decision, headers: sessions[i] })));
    const seen = answers.map((r, i) => `${writers[i].name}: ${r.status} ${r.body ? JSON.stringify(r.body) : r.types.join(',')}`).join('\n');

    const outcomes = answers.flatMap((r) => r.chunks.filter((c) => c.type === 'tool-output-available' && c.toolCallId === request.toolCallId));
    assert.ok(outcomes.some((c) => c.output?.state === 'verified'), `round ${round}: no verified outcome:\n${seen}`);
    const receipts = new Set(outcomes.map((c) => c.output?.receipt?.id));
    assert.equal(receipts.size, 1, `round ${round}: outcomes name receipts ${[...receipts].join(', ')}`);
    for (const r of answers.filter((x) => x.status !== 200)) {
      assert.ok(r.status >= 400 && r.status < 500 && typeof r.body?.error?.code === 'string' && r.body.error.message,
        `round ${round}: the other request is not a clear refusal:\n${seen}`);
    }
    for (const r of answers.filter((x) => x.status === 200)) {
      assert.ok(r.done && endState(r), `round ${round}: a stream ended in no named state:\n${seen}`);
    }

    assert.equal(connectors.events('Budget sync'), events + 1, `round ${round}: new events in the shared calendar`);
    const receipt = outcomes[0].output.receipt;
    assert.equal(connectors.calendar().split(`UID:${receipt.response?.uid}`).length - 1, 1, `round ${round}: event ${receipt.response?.uid}`);
    const rows = await pg.query(approvalsDb, `SELECT id, outcome FROM receipts WHERE approval_id = '${request.approvalId}'`);
    assert.deepEqual(rows, [[receipt.id, 'executed']], `round ${round}: receipts of ${request.approvalId}`);
    const shown = JSON.parse(execFileSync(binary, ['approvals', 'show', request.approvalId, '--json', '--store', approvalsUri,
      '--data', w2.data, '--connectors', connectors.dir], { encoding: 'utf8' }));
    assert.equal(shown.approval?.receipt?.outcome, 'executed', JSON.stringify(shown));
    assert.equal(shown.approval?.receipt?.id, receipt.id);
  }
  assert.ok(w1.alive() && w2.alive());
});

test('d. a stop posted to node B cancels the turn running on node A', async () => {
  await ensureNodes();
  const [a, b, c] = nodes;
  const thread = id('stopped');
  await engine.fault(thread, 'slow', 0);
  let cancel = null;
  let sentAt = null;
  let abortAt = null;
  const r = await readStream(a.base, '/api/chat', {
    body: chatBody(thread, 'Tell me about the week.'),
    limitMs: 60000,
    onChunk: (chunk, s, req) => {
      if (s.deltas === 2 && !cancel) {
        sentAt = performance.now();
        cancel = b.json('POST', `/api/chat/${thread}/cancel`, {});
        // A refused stop fails below; the slow turn need not be waited for.
        cancel.then((answer) => answer.status !== 202 && req.destroy(), () => req.destroy());
      }
      if (chunk.type === 'abort') abortAt = performance.now();
    },
  });
  assert.ok(cancel, `no 2 deltas: ${r.status} ${r.types.join(',')}`);
  const answer = await cancel;
  assert.equal(answer.status, 202, JSON.stringify(answer.body));
  assert.equal(answer.body?.cancelled, true, JSON.stringify(answer.body));
  assert.equal(r.node, a.name);
  assert.equal(r.failure, null, r.failure);
  assert.ok(r.types.includes('abort'), `no abort: ${r.types.join(',')}`);
  assert.ok(!r.types.includes('finish'), r.types.join(','));
  assert.ok(r.done, 'the stream ends with [DONE]');
  assert.ok(abortAt - sentAt < 5000, `abort came ${(abortAt - sentAt).toFixed(0)} ms after the stop`);
  assert.equal(r.turn?.data?.status, 'cancelled', JSON.stringify(r.turn));
  const messages = await stored(c.base, thread);
  const m = messages.find?.((x) => x.role === 'assistant');
  assert.equal(m?.turn, 'cancelled', JSON.stringify(messages));
  assert.ok(reply(thread).startsWith(m.text), JSON.stringify(m.text));
  for (const n of nodes) {
    const again = await readStream(n.base, `/api/chat/${thread}/stream`, { method: 'GET', limitMs: 10000 });
    assert.equal(again.status, 204, `${n.name}: the thread still has a running turn`);
  }
  ended.push(thread);
});

test('e. a PostgreSQL restart while turns stream: named ends, no node dies, new chats served, nothing lost', async () => {
  await ensureNodes();
  // What is stored before (this test's own finished chats too, whatever the tests before did).
  const fresh = [id('before-restart-0'), id('before-restart-1')];
  await Promise.all(fresh.map(async (t) => {
    const r = await readStream(proxy.base, '/api/chat', { body: chatBody(t, 'Tell me about the week.') });
    assert.equal(whyNotAnswered(r, t), null, t);
  }));
  ended.push(...fresh);
  const before = {};
  for (const t of ended) before[t] = await stored(proxy.base, t);

  // Five turns through the proxy; once each streams, the database restarts.
  const threads = Array.from({ length: 5 }, (_, i) => id(`restart-${i}`));
  const servedBy = threads.map(() => null);
  const over = threads.map(() => false);
  let markFirst;
  const allStarted = new Promise((ok) => (markFirst = ok));
  const streams = threads.map((t, i) => readStream(proxy.base, '/api/chat', {
    body: chatBody(t, 'Tell me about the week.'),
    limitMs: 90000,
    onChunk: (c, s) => {
      if (s.deltas === 1 && servedBy[i] === null) {
        servedBy[i] = s.node;
        if (servedBy.every((x) => x !== null)) markFirst();
      }
    },
  }).then((r) => {
    over[i] = true;
    return r;
  }));
  await Promise.race([allStarted, sleep(10000)]);
  const t0 = performance.now();
  await pg.restart({ mode: 'fast' });
  const restartMs = performance.now() - t0;
  // A client that reconnects to another node once the database is back replays the same stream.
  const resumes = threads.map((t, i) => {
    const other = nodes.find((n) => n.name !== servedBy[i]);
    return over[i] || !other ? null
      : readStream(other.base, `/api/chat/${t}/stream`, { method: 'GET', limitMs: 90000 }).then((r) => ({ ...r, at: other.name }));
  });
  const results = await Promise.all(streams);
  const resumed = await Promise.all(resumes);

  const problems = [];
  const states = results.map((r, i) => `${threads[i]} on ${r.node}: ${endState(r) ?? `NONE (status ${r.status}, ` +
    `${r.failure ?? ''} ends ${r.types.slice(-3).join(',')}${r.done ? ' [DONE]' : ''} ${r.errorText ?? ''})`}` +
    ` (${r.deltas} deltas, data-turn ${r.turn?.data?.status ?? 'none'})`);
  results.forEach((r, i) => endState(r) === null && problems.push(`stream in no named state: ${states[i]}`));
  const dead = [...nodes, ...writers].filter((n) => !n.alive()).map((n) => `${n.name} (${n.child.exitCode ?? n.child.signalCode})`);
  if (dead.length) problems.push(`nodes died: ${dead.join(', ')}`);
  resumed.forEach((r, i) => {
    if (!r || r.status === 204) return;  // the turn had ended: nothing to resume
    try {
      assert.deepEqual(r.chunks, results[i].chunks);
    } catch {
      problems.push(`resume of ${threads[i]} on ${r.at} (status ${r.status}, ${r.failure ?? 'ok'}) differs from its stream ` +
        `(${states[i]}): ${r.chunks.length} chunks vs ${results[i].chunks.length}, ends ${r.types.slice(-3).join(',')}`);
    }
  });
  const unlogged = [...nodes].flatMap((n) => n.stderr().split('\n').filter((l) => /unlogged/.test(l)).map((l) => `${n.name}: ${l}`));

  // Every node serves new chats (directly, then through the proxy once every node is up again).
  await proxy.waitUp(nodes.length, 20000);
  await Promise.all(nodes.map(async (n) => {
    const t = id(`after-restart-${n.name}`);
    const why = whyNotAnswered(await readStream(n.base, '/api/chat', { body: chatBody(t, 'Tell me about the week.') }), t);
    if (why) problems.push(`a new chat on ${n.name}: ${why}`);
  }));
  const viaProxy = await Promise.all([0, 1, 2].map(async (i) => {
    const t = id(`after-restart-proxy-${i}`);
    return [t, await readStream(proxy.base, '/api/chat', { body: chatBody(t, 'Tell me about the week.') })];
  }));
  for (const [t, r] of viaProxy) {
    const why = whyNotAnswered(r, t);
    if (why) problems.push(`a new chat through the proxy (${r.node}): ${why}`);
  }
  for (const w of writers) {
    const list = await w.json('GET', '/api/threads');
    if (list.status !== 200) problems.push(`${w.name}: GET /api/threads ${list.status} ${JSON.stringify(list.body)}`);
  }

  // No turn is left running, in the turns or in the stored messages (a turn whose node lost its
  // lease is taken over and ends).
  for (const t of threads) {
    let r = null;
    for (let i = 0; i < 30; i++) {
      r = await readStream(proxy.base, `/api/chat/${t}/stream`, { method: 'GET', limitMs: 30000 });
      if (r.status === 204) break;
      await sleep(500);
    }
    const streamed = states[threads.indexOf(t)];
    if (r.status !== 204) problems.push(`${t}: still running (${r.status} ${r.types.join(',')}); its stream: ${streamed}`);
    const messages = await stored(proxy.base, t);
    const a = messages.find?.((m) => m.role === 'assistant');
    if (!messages.find?.((m) => m.role === 'user')) problems.push(`${t}: no stored user message ${JSON.stringify(messages)}`);
    else if (!a || a.status === 'running') problems.push(`${t}: stored ${JSON.stringify(a)}; its stream: ${streamed}`);
  }

  // Everything stored before the restart is still there, the same.
  for (const t of ended) {
    const now = await stored(proxy.base, t);
    try {
      assert.deepEqual(now, before[t]);
    } catch {
      problems.push(`${t} changed: before ${JSON.stringify(before[t])}\n  after ${JSON.stringify(now)}`);
    }
  }
  assert.deepEqual(problems, [], `across a ${restartMs.toFixed(0)} ms restart (streams: ${states.join('; ')})` +
    (unlogged.length ? `\nthe nodes said:\n${unlogged.join('\n')}` : ''));
});
