// The real `ai` package's client reads our UI message streams: DefaultChatTransport (the stock
// useChat transport: fetch, SSE parsing, chunk schema validation) and readUIMessageStream (the
// client's message assembly, which enforces chunk order). Run from CTest:
//   node tests/integration/server/stream_reader.test.mjs build/affordance
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import test from 'node:test';
import { root, startServer } from './serve.mjs';

const require = createRequire(join(root, 'tools/package.json'));
const { DefaultChatTransport, readUIMessageStream, lastAssistantMessageIsCompleteWithApprovalResponses } =
  await import(require.resolve('ai'));
const aiVersion = require('ai/package.json').version;
const binary = process.argv[2] ?? join(root, 'build/affordance');

function user(text) {
  return { id: `u-${Math.random().toString(16).slice(2)}`, role: 'user', parts: [{ type: 'text', text }] };
}

// Reads a stream with the real client; returns the final message, the chunk types and errors.
async function read(stream) {
  const [forReader, forTypes] = stream.tee();
  const types = [];
  const collecting = (async () => {
    for await (const chunk of forTypes) types.push(chunk.type);
  })();
  const errors = [];
  let message;
  for await (const m of readUIMessageStream({ stream: forReader, onError: (e) => errors.push(e) })) message = m;
  await collecting;
  return { message, types, errors };
}

async function chat(server, text, { chatId, headers = {} } = {}) {
  const id = chatId ?? (await server.json('POST', '/api/threads', {})).body.thread.id;
  const transport = new DefaultChatTransport({ api: `${server.base}/api/chat`, headers: { 'x-ai-sdk-version': aiVersion, ...headers } });
  const stream = await transport.sendMessages({
    chatId: id, messages: [user(text)], trigger: 'submit-message', messageId: undefined, abortSignal: undefined,
  });
  return { id, transport, stream };
}

test('every part kind of a multi-step turn parses and assembles', async () => {
  const server = await startServer(binary, 'full.json');
  try {
    const { id, stream } = await chat(server, 'What is on next week?');
    const { message, types, errors } = await read(stream);
    assert.deepEqual(errors, []);
    for (const t of ['start', 'start-step', 'reasoning-start', 'reasoning-delta', 'reasoning-end', 'text-start',
      'text-delta', 'text-end', 'tool-input-start', 'tool-input-delta', 'tool-input-available', 'tool-input-error',
      'tool-output-available', 'tool-output-error', 'data-truth', 'data-surface', 'data-turn', 'finish-step', 'finish']) {
      assert.ok(types.includes(t), `missing ${t} in ${types.join(',')}`);
    }
    assert.equal(message.role, 'assistant');
    assert.equal(message.metadata?.threadId, id);
    const kinds = message.parts.map((p) => p.type);
    assert.ok(kinds.includes('reasoning'));
    assert.ok(kinds.includes('text'));
    const read_ = message.parts.find((p) => p.type === 'tool-RunConnectorCommand' && p.state === 'output-available');
    assert.ok(read_, 'the connector call has its output');
    assert.ok(Array.isArray(read_.output.rows));
    const unknown = message.parts.find((p) => p.type === 'tool-NoSuchTool');
    assert.equal(unknown.state, 'output-error');
    assert.match(unknown.errorText, /harness\.unknown_tool/);
    assert.ok(message.parts.some((p) => p.state === 'output-error' && /not valid JSON|malformed/.test(p.errorText ?? '')),
      'the malformed call is an error part');
    const surfaces = message.parts.filter((p) => p.type === 'data-surface');
    assert.equal(surfaces.length, 2);
    assert.deepEqual(surfaces.map((s) => s.data.state), ['persisted', 'persisted']);
    const truth = message.parts.filter((p) => p.type === 'data-truth');
    assert.ok(truth.some((t) => t.data.dataState), 'the connector read carries its data state');
    const turn = message.parts.find((p) => p.type === 'data-turn');
    assert.equal(turn.data.status, 'surface_composed');

    // What the server stores is what the stream showed: the read route gives the same parts.
    const stored = (await server.json('GET', `/api/threads/${id}`)).body.messages[1];
    assert.equal(stored.id, message.id);
    const streamedKinds = new Set(kinds);
    for (const k of stored.parts.map((p) => p.type)) assert.ok(streamedKinds.has(k), `stored ${k} was not streamed`);
  } finally {
    await server.stop();
  }
});

test('a provider failure arrives as an error chunk the client reports', async () => {
  const server = await startServer(binary, 'exhausted.json');
  try {
    const { stream } = await chat(server, 'x');
    const { types, errors, message } = await read(stream);
    assert.ok(types.includes('error'), types.join(','));
    assert.equal(errors.length, 1);
    assert.match(String(errors[0].message ?? errors[0]), /model\.replay_exhausted/);
    assert.ok(message.parts.some((p) => p.type === 'tool-RunConnectorCommand'), 'the first step is kept');
  } finally {
    await server.stop();
  }
});

test('cancel ends the stream with abort; a reconnect replays a running turn in full', async () => {
  const server = await startServer(binary, 'slow.json');
  try {
    // Resume: a second client re-attaches mid-turn and assembles the same message.
    const first = await chat(server, 'stream slowly');
    const reader = first.stream.getReader();
    let chunk;
    do chunk = (await reader.read()).value; while (chunk.type !== 'text-delta');
    const resumed = await first.transport.reconnectToStream({ chatId: first.id });
    assert.ok(resumed, 'a running turn can be resumed');
    const again = await read(resumed);
    assert.deepEqual(again.errors, []);
    assert.equal(again.types[0], 'start');
    assert.equal(again.types.at(-1), 'finish');
    assert.match(again.message.parts.find((p) => p.type === 'text').text, /cancelled, dropped and resumed/);
    reader.cancel();
    assert.equal(await first.transport.reconnectToStream({ chatId: first.id }), null, '204 once it ended');

    // Abort.
    const second = await chat(server, 'stream slowly', { chatId: first.id });
    const [a, b] = second.stream.tee();
    const r = a.getReader();
    do chunk = (await r.read()).value; while (chunk.type !== 'text-delta');
    const cancelled = await server.json('POST', `/api/chat/${first.id}/cancel`);
    assert.equal(cancelled.status, 202);
    r.cancel();
    const { types, errors } = await read(b);
    assert.deepEqual(errors, []);
    assert.equal(types.at(-1), 'abort');
    const stored = (await server.json('GET', `/api/threads/${first.id}`)).body.messages;
    assert.equal(stored.length, 4);
    assert.equal(stored[3].parts.find((p) => p.type === 'data-turn').data.status, 'cancelled');
  } finally {
    await server.stop();
  }
});

test('replay: a staged write, approved the way useChat sends it, runs once and is verified', async () => {
  const server = await startServer(binary, 'write.json', [], { writable: true });
  try {
    const before = server.calendar();
    // The web UI's transport carries the person's session, which the decision below needs.
    const staged = await chat(server, 'Put a budget sync on Thursday at 15:00.', { headers: await server.person() });
    const first = await read(staged.stream);
    assert.deepEqual(first.errors, []);
    const part = first.message.parts.find((p) => p.type === 'tool-invoke_mutation');
    assert.equal(part.state, 'approval-requested');
    assert.equal(server.calendar(), before, 'staging ran nothing');

    // addToolApprovalResponse: the part records the decision; useChat's sendAutomaticallyWhen
    // (the web UI's) fires on it and resends the assistant message.
    const decided = {
      ...first.message,
      parts: first.message.parts.map((p) => (p === part
        ? { ...p, state: 'approval-responded', approval: { ...p.approval, approved: true } } : p)),
    };
    assert.equal(lastAssistantMessageIsCompleteWithApprovalResponses({ messages: [decided] }), true);
    const stream = await staged.transport.sendMessages({
      chatId: staged.id, messages: [decided], trigger: 'submit-message', messageId: decided.id, abortSignal: undefined,
    });
    let message;
    const errors = [];
    for await (const m of readUIMessageStream({ message: decided, stream, onError: (e) => errors.push(e) })) message = m;
    assert.deepEqual(errors, []);
    const done = message.parts.find((p) => p.type === 'tool-invoke_mutation');
    assert.equal(done.state, 'output-available');
    assert.equal(done.output.state, 'verified');
    assert.equal(message.parts.find((p) => p.type === 'data-approval').data.truth, 'verified');
    assert.match(message.parts.filter((p) => p.type === 'text').map((p) => p.text).join(''), /The budget sync is in your calendar/);
    assert.equal(lastAssistantMessageIsCompleteWithApprovalResponses({ messages: [message] }), false,
      'the continuation does not trigger another send');
    assert.equal(server.calendar().split('SUMMARY:Budget sync').length - 1, 1, 'written once');
  } finally {
    await server.stop();
  }
});

// The serializer's version gating for every approval chunk (server_sse_fixture: ChunkFor +
// SseEvent, the code the stream route runs), read by the real client through a stock transport.
const fixture = process.argv[3];
async function serialized(version, chunks) {
  const { spawnSync } = await import('node:child_process');
  const out = spawnSync(fixture, [version], { input: chunks.map((c) => JSON.stringify(c)).join('\n') });
  assert.equal(out.status, 0, String(out.stderr));
  const transport = new DefaultChatTransport({
    api: 'http://127.0.0.1:9/unused',
    fetch: async () => new Response(out.stdout, { headers: { 'content-type': 'text/event-stream' } }),
  });
  return transport.sendMessages({ chatId: 'c', messages: [user('x')], trigger: 'submit-message', messageId: undefined, abortSignal: undefined });
}

test('approval requests and denials pass for 6+ clients and stay visible to 5.x clients', { skip: !fixture }, async () => {
  const call = [
    { type: 'start', messageId: 'm1' }, { type: 'start-step' },
    { type: 'tool-input-start', toolCallId: 'w1', toolName: 'calendar__create_event' },
    { type: 'tool-input-available', toolCallId: 'w1', toolName: 'calendar__create_event', input: { title: 'Lunch' } },
    { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'w1' },
    { type: 'finish-step' }, { type: 'finish', finishReason: 'stop' },
  ];
  const first = await read(await serialized(aiVersion, call));
  assert.deepEqual(first.errors, []);
  const part = first.message.parts.find((p) => p.type === 'tool-calendar__create_event');
  assert.equal(part.state, 'approval-requested');
  assert.equal(part.approval.id, 'a1');

  // The decision came back denied: the continuation closes the same call.
  const denied = await serialized(aiVersion, [
    { type: 'start', messageId: 'm1' }, { type: 'start-step' }, { type: 'tool-output-denied', toolCallId: 'w1' },
    { type: 'finish-step' }, { type: 'finish', finishReason: 'stop' },
  ]);
  let message;
  for await (const m of readUIMessageStream({ message: first.message, stream: denied, terminateOnError: true })) message = m;
  assert.equal(message.parts.find((p) => p.type === 'tool-calendar__create_event').state, 'output-denied');

  // A 5.x client gets data parts instead (and no finishReason), which every version accepts.
  const old = await read(await serialized('5.0.0', call));
  assert.deepEqual(old.errors, []);
  assert.ok(old.types.includes('data-approval-request'));
  assert.ok(!old.types.includes('tool-approval-request'));
  assert.equal(old.message.parts.find((p) => p.type === 'data-approval-request').data.approvalId, 'a1');
});
