// The MCP door with the official TypeScript client (@modelcontextprotocol/sdk, pinned in tools/):
// over stdio (`affordance mcp`) and over Streamable HTTP (`/mcp` on `affordance serve`), it lists
// the tools, calls every one and checks results and errors; the operator-session rules (minted only
// on stdio with --operator or for a loopback HTTP peer with the local trust root, never for another
// address); bad input over both transports leaves the server up. Turns use the replay provider
// (the test double for the model), so `ask` is a replay test. Run from CTest:
//   node tests/integration/server/mcp_client.test.mjs build/affordance
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import test from 'node:test';
import { newcomerConnectors, root, script } from './serve.mjs';

const require = createRequire(join(root, 'tools/package.json'));
const { Client } = await import(require.resolve('@modelcontextprotocol/sdk/client/index.js'));
const { StdioClientTransport } = await import(require.resolve('@modelcontextprotocol/sdk/client/stdio.js'));
const { StreamableHTTPClientTransport } = await import(require.resolve('@modelcontextprotocol/sdk/client/streamableHttp.js'));
const { McpError } = await import(require.resolve('@modelcontextprotocol/sdk/types.js'));
const binary = process.argv[2] ?? join(root, 'build/affordance');

const OPERATOR_TOOLS = ['approve_action', 'deny_action', 'grant', 'revoke_grant'];
const TOKEN = 'mcp-test-access-token-0123456789';

// A data folder with the calendar connector copied (approved writes change its file) and a read
// grant on it (reads need grants); the replay script `full.json` reads the calendar and composes
// two surfaces.
const data = mkdtempSync(join(tmpdir(), 'affordance-mcp-'));
const connectors = join(data, 'connectors');
mkdirSync(connectors);
for (const f of ['calendar.json', 'calendar.ics']) copyFileSync(join(root, 'examples/connectors', f), join(connectors, f));
const common = ['--data', data, '--connectors', connectors];
execFileSync(binary, ['grants', 'grant', 'calendar', '--read', ...common], { stdio: 'ignore' });
const session = [...common, '--provider', 'replay', '--script', script('full.json')];

const declared = JSON.parse(execFileSync(binary, ['capabilities', '--json'])).capabilities.filter((c) => c.door === 'mcp');

async function startServe(extra = [], args = session) {
  const child = spawn(binary, ['serve', '--port', '0', '--json', ...args, ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise((ok, fail) => {
    createInterface({ input: child.stdout }).once('line', ok);
    child.once('exit', (code) => fail(new Error(`affordance serve exited with ${code}`)));
  });
  const info = JSON.parse(line);
  return {
    port: info.port,
    base: `http://127.0.0.1:${info.port}`,
    alive: () => child.exitCode === null,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((ok) => child.once('exit', ok));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function stdioClient(extra = [], args = session) {
  const transport = new StdioClientTransport({ command: binary, args: ['mcp', ...args, ...extra], env: process.env, stderr: 'ignore' });
  const client = new Client({ name: 'mcp-test-stdio', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function httpClient(url, headers = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: 'mcp-test-http', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

const secret = () => readFileSync(join(data, 'operator.secret'), 'utf8').trim();
const names = (list) => list.tools.map((t) => t.name).sort();

async function rejectsWith(promise, code, pattern) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof McpError, `expected an McpError, got ${e}`);
    assert.equal(e.code, code);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

function structured(result) {
  assert.ok(!result.isError, `unexpected tool error: ${JSON.stringify(result.content)}`);
  assert.ok(result.structuredContent, 'a successful call carries structuredContent');
  assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  return result.structuredContent;
}

function toolError(result) {
  assert.equal(result.isError, true, `expected isError: ${JSON.stringify(result)}`);
  return JSON.parse(result.content[0].text).error;
}

const event = { summary: 'MCP review', start: '2026-12-03T15:00:00Z', end: '2026-12-03T16:00:00Z' };

// Every tool of a normal session, called through `client`; returns the id of a staged approval.
async function exerciseNormalSession(client, label) {
  const list = await client.listTools();
  const expected = declared.filter((c) => c.access !== 'person').map((c) => c.name).sort();
  assert.deepEqual(names(list), expected, 'tools/list of a normal session is the registry without operator tools');
  for (const t of list.tools) {
    assert.equal(t.inputSchema.type, 'object', t.name);
    assert.equal(t.outputSchema.type, 'object', t.name);
  }

  const connectorsOut = structured(await client.callTool({ name: 'list_connectors', arguments: {} }));
  const calendar = connectorsOut.connectors.find((c) => c.slug === 'calendar');
  assert.ok(calendar, 'the calendar connector is listed');
  assert.ok(calendar.operations.some((o) => o.name === 'create_event' && o.kind === 'mutation' && o.risk === 'write'));
  assert.ok(calendar.grants.some((g) => g.access === 'read' && g.scope === 'connector:calendar'));

  const rows = structured(await client.callTool({
    name: 'read_connector',
    arguments: { connector: 'calendar', request: { operation: 'list_events', args: { from: '2026-11-01T00:00:00Z', to: '2027-01-01T00:00:00Z' } } },
  }));
  assert.equal(rows.connector, 'calendar');
  assert.equal(rows.status, 'ok');
  assert.ok(rows.rows.length > 0, 'the calendar has events in the window');
  assert.ok(rows.operation_ledger.length > 0, 'the read carries its ledger');
  assert.equal(toolError(await client.callTool({ name: 'read_connector', arguments: { connector: 'nope', request: 'x' } })).code,
    'connect.unknown_connector');

  // Writes need a write grant: asking for one records a request, grants nothing.
  const requested = structured(await client.callTool({ name: 'request_grant', arguments: { connector: 'calendar', access: 'write', reason: `${label} wants to add events` } }));
  assert.equal(requested.scope, 'connector:calendar');
  assert.equal(requested.access, 'write');
  assert.match(requested.grantCommand, /affordance grants grant calendar --write/);
  if (!requested.granted) {
    assert.equal(toolError(await client.callTool({ name: 'stage_action', arguments: { connector: 'calendar', operation: 'create_event', args: event } })).code,
      'authority.no_grant');
    execFileSync(binary, ['grants', 'grant', 'calendar', '--write', ...common], { stdio: 'ignore' });
  }
  const staged = structured(await client.callTool({
    name: 'stage_action', arguments: { connector: 'calendar', operation: 'create_event', args: { ...event, summary: `${event.summary} ${label}` } },
  }));
  assert.equal(staged.approval.status, 'pending');
  assert.equal(staged.approval.state, 'pending');
  assert.equal(staged.approval.stagedBy, 'mcp:mcp-test-' + (label.startsWith('http') ? 'http' : 'stdio'));
  assert.equal(toolError(await client.callTool({ name: 'stage_action', arguments: { connector: 'calendar', operation: 'create_event', args: { summary: '' } } })).code,
    'authority.bad_args');
  assert.equal(toolError(await client.callTool({ name: 'stage_action', arguments: { connector: 'calendar', operation: 'list_events', args: {} } })).code,
    'authority.not_a_mutation');

  const id = staged.approval.approvalId;
  const pending = structured(await client.callTool({ name: 'list_approvals', arguments: { status: 'pending' } }));
  assert.ok(pending.approvals.some((a) => a.approvalId === id));
  const shown = structured(await client.callTool({ name: 'show_approval', arguments: { id } }));
  assert.equal(shown.approval.approvalId, id);
  assert.match(shown.message, /waits for a person|pending/i);
  assert.equal(toolError(await client.callTool({ name: 'show_approval', arguments: { id: 'apr_missing' } })).code, 'authority.unknown_approval');

  // ask: one harness turn (replay): reads the calendar, composes two surfaces, answers.
  const asked = structured(await client.callTool({ name: 'ask', arguments: { message: 'What is on my calendar next week?' } }));
  assert.match(asked.threadId, /\S/);
  assert.match(asked.text, /Here is next week/);
  assert.equal(asked.status, 'surface_composed');
  assert.equal(asked.surfaces.length, 2);
  assert.ok(asked.surfaces.every((s) => s.program && s.state === 'persisted'));
  assert.ok(asked.truth.some((t) => t.dataState), 'the connector read carries its data state');
  // Each claim of the prose with its evidence class: the cited read is a source.
  assert.equal(asked.claims[0].class, 'source');
  assert.deepEqual(asked.claims[0].refs, ['r1']);
  assert.match(asked.claims[0].text, /Here is next week, in the table above \[r1\]\./);
  assert.ok(asked.claims.slice(1).every((c) => c.class === 'inference'));
  assert.equal(asked.turn.status, 'surface_composed');
  const again = structured(await client.callTool({ name: 'ask', arguments: { message: 'And again?', thread: asked.threadId } }));
  assert.equal(again.threadId, asked.threadId, 'a thread continues');
  assert.equal(toolError(await client.callTool({ name: 'ask', arguments: { message: 'hi', thread: 't_missing' } })).code, 'server.unknown_thread');

  // compose_ui validates and stores an artifact version; open_artifact reads it back.
  const program = 'root = Stack([note])\nnote = Callout("info", "From MCP", "Composed by ' + label + '")\n';
  const composed = structured(await client.callTool({ name: 'compose_ui', arguments: { program, title: label } }));
  assert.match(composed.artifact.id, /^a_/);
  assert.equal(composed.artifact.body, program);
  const opened = structured(await client.callTool({ name: 'open_artifact', arguments: { id: composed.artifact.id } }));
  assert.equal(opened.artifact.body, program);
  assert.equal(opened.artifact.version, composed.artifact.version);
  const invalid = toolError(await client.callTool({ name: 'compose_ui', arguments: { program: 'root = NoSuchComponent("x")\n' } }));
  assert.equal(invalid.code, 'surface.invalid');
  assert.ok(invalid.data.errors.length > 0 && invalid.data.errors.every((e) => e.code));
  const unknownHandle = toolError(await client.callTool({ name: 'compose_ui', arguments: { program: 'root = Stack([t])\nq = Query("nope_handle", {}, {rows: []})\nt = Table([Col("A", q.rows.a)])\n' } }));
  assert.equal(unknownHandle.code, 'surface.invalid');
  assert.equal(toolError(await client.callTool({ name: 'open_artifact', arguments: { id: 'a_missing' } })).code, 'store.not_found');

  const activity = structured(await client.callTool({ name: 'read_activity', arguments: { limit: 1000 } }));
  const kinds = new Set(activity.activity.map((e) => e.kind));
  for (const k of ['grant', 'read', 'stage']) assert.ok(kinds.has(k), `Activity has ${k}`);
  if (!requested.granted) {
    assert.ok(activity.activity.some((e) => e.kind === 'grant_request' && e.actor.startsWith('mcp:') && e.data.reason.includes(label)));
  }
  const stages = structured(await client.callTool({ name: 'read_activity', arguments: { kind: 'stage' } }));
  assert.ok(stages.activity.every((e) => e.kind === 'stage'));

  // Not the operator: no approve tool, and calling one by name is refused.
  await rejectsWith(client.callTool({ name: 'approve_action', arguments: { id } }), -32602, /operator session/);
  await rejectsWith(client.callTool({ name: 'grant', arguments: { connector: 'calendar', access: 'write' } }), -32602, /operator session/);
  // Unknown tools and bad arguments are JSON-RPC errors; the session goes on.
  await rejectsWith(client.callTool({ name: 'no_such_tool', arguments: {} }), -32602, /unknown tool/);
  await rejectsWith(client.callTool({ name: 'read_activity', arguments: { limit: 'lots' } }), -32602, /\/limit/);
  await rejectsWith(client.callTool({ name: 'ask', arguments: {} }), -32602, /message/);
  assert.deepEqual(await client.ping(), {});
  const stillThere = structured(await client.callTool({ name: 'show_approval', arguments: { id } }));
  assert.equal(stillThere.approval.status, 'pending', 'nothing a normal session did decided it');
  return id;
}

// The operator's tools through `client`: approve + execute one approval, deny another.
async function exerciseOperator(client, approveId, denyId) {
  const list = await client.listTools();
  assert.deepEqual(names(list), declared.map((c) => c.name).sort(), 'the operator sees every MCP tool');
  const approved = structured(await client.callTool({ name: 'approve_action', arguments: { id: approveId, execute: true } }));
  assert.equal(approved.approval.status, 'executed');
  assert.equal(approved.approval.state, 'verified', 'the fresh read proved the created event');
  assert.match(approved.approval.decidedBy, /^user:.*@mcp$/);
  assert.equal(approved.approval.receipt.outcome, 'executed');
  assert.equal(toolError(await client.callTool({ name: 'approve_action', arguments: { id: approveId } })).code, 'authority.already_decided');
  const denied = structured(await client.callTool({ name: 'deny_action', arguments: { id: denyId, reason: 'not this one' } }));
  assert.equal(denied.approval.status, 'denied');
  const g = structured(await client.callTool({ name: 'grant', arguments: { connector: 'calendar', operation: 'event_detail', access: 'read', expiresInS: 600 } }));
  assert.equal(g.grant.scope, 'connector:calendar:event_detail');
  assert.ok(g.grant.expiresMs > Date.now());
  const r = structured(await client.callTool({ name: 'revoke_grant', arguments: { id: g.grant.id } }));
  assert.ok(r.grant.revokedMs > 0);
  assert.equal(toolError(await client.callTool({ name: 'grant', arguments: { connector: 'nope', access: 'read' } })).code, 'connect.unknown_connector');
}

const server = await startServe();
test.after(async () => {
  await server.stop();
  rmSync(data, { recursive: true, force: true });
});

test('the registry declares every MCP tool the issue names', () => {
  const all = declared.map((c) => c.name);
  for (const n of ['ask', 'read_connector', 'list_connectors', 'request_grant', 'stage_action', 'list_approvals', 'show_approval', 'read_activity', 'compose_ui', 'open_artifact', ...OPERATOR_TOOLS]) {
    assert.ok(all.includes(n), n);
  }
  for (const n of OPERATOR_TOOLS) assert.equal(declared.find((c) => c.name === n).access, 'person');
});

test('stdio: a normal session lists and calls every tool; the operator session (--operator) approves and grants', async () => {
  const client = await stdioClient();
  assert.equal(client.getServerVersion().name, 'affordance');
  const first = await exerciseNormalSession(client, 'stdio one');
  const second = await exerciseNormalSession(client, 'stdio two');
  await client.close();

  const operator = await stdioClient(['--operator']);
  await exerciseOperator(operator, first, second);
  await operator.close();
  // Activity shows who decided: the person through the operator session.
  const log = JSON.parse(execFileSync(binary, ['activity', '--kind', 'approve', '--json', ...common]));
  assert.ok(log.activity.some((e) => e.subject === first && /@mcp$/.test(e.actor)));
});

test('Streamable HTTP: a normal session lists and calls every tool; loopback + trust root is the operator', async () => {
  const { client, transport } = await httpClient(`${server.base}/mcp`);
  assert.match(transport.sessionId, /^[0-9a-f]{32}$/);
  const first = await exerciseNormalSession(client, 'http one');
  const second = await exerciseNormalSession(client, 'http two');
  await client.close();

  await assert.rejects(httpClient(`${server.base}/mcp`, { 'affordance-operator-secret': 'f'.repeat(64) }), /403|operator secret/);
  const { client: operator } = await httpClient(`${server.base}/mcp`, { 'affordance-operator-secret': secret() });
  await exerciseOperator(operator, first, second);
  await operator.close();
});

test('a request from a non-loopback address never gets the operator session', async (t) => {
  const address = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
  if (!address) {
    t.skip('this machine has no non-loopback IPv4 interface');
    return;
  }
  // Bound on every address (which needs --allow-remote and an access token): the same server is
  // reached from loopback and from the machine's own external address.
  // A wildcard bind names no host: the machine's address is its public host (the gate refuses
  // any other Host, server/gate.h).
  const remote = await startServe(['--host', '0.0.0.0', '--allow-remote', '--access-token', TOKEN,
    '--public-host', address]);
  try {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const external = `http://${address}:${remote.port}/mcp`;
    const loopback = `http://127.0.0.1:${remote.port}/mcp`;
    // The right secret from the external address: refused, and no session is created.
    const init = {
      jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const refused = await fetch(external, {
      method: 'POST', headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'affordance-operator-secret': secret() }, body: JSON.stringify(init),
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.headers.get('mcp-session-id'), null);
    const body = await refused.json();
    assert.equal(body.error.data.code, 'mcp.operator_not_loopback');
    assert.ok(body.error.message.includes(address), `the server saw the external peer: ${body.error.message}`);
    await assert.rejects(httpClient(external, { ...auth, 'affordance-operator-secret': secret() }), /403|loopback/);

    // Without the secret the external client gets a normal session (the access token admits it).
    const { client: normal } = await httpClient(external, auth);
    const tools = names(await normal.listTools());
    for (const n of OPERATOR_TOOLS) assert.ok(!tools.includes(n), n);
    await rejectsWith(normal.callTool({ name: 'approve_action', arguments: { id: 'apr_x' } }), -32602, /operator session/);
    await normal.close();

    // An operator session minted on loopback cannot be used from the external address: a session
    // belongs to the address (and credential, and OS user) that made it, so from there it does
    // not exist.
    const { client: operator, transport } = await httpClient(loopback, { ...auth, 'affordance-operator-secret': secret() });
    assert.ok(names(await operator.listTools()).includes('approve_action'));
    const stolen = await fetch(external, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    assert.equal(stolen.status, 404);
    assert.equal((await stolen.json()).error.data.code, 'mcp.unknown_session');
    assert.ok(names(await operator.listTools()).includes('approve_action'), 'still fine from loopback');
    await operator.close();

    // The access token is still required.
    const noToken = await fetch(loopback, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(init) });
    assert.equal(noToken.status, 401);
  } finally {
    await remote.stop();
  }
});

// A slow answer (slow.json: ~40 ms per token, several seconds in all), cancelled by the client.
const slowSession = [...common, '--provider', 'replay', '--script', script('slow.json')];
async function askAndCancel(client, message) {
  const controller = new AbortController();
  const asked = client.callTool({ name: 'ask', arguments: { message } }, undefined, { signal: controller.signal, timeout: 60000 });
  await new Promise((ok) => setTimeout(ok, 700));  // the turn is streaming by now
  const started = Date.now();
  controller.abort(new Error('the user stopped it'));
  await assert.rejects(asked, /stopped it/);
  return started;
}

test('Streamable HTTP: notifications/cancelled stops a running ask; its turn is persisted as cancelled', async () => {
  const slow = await startServe([], slowSession);
  try {
    const { client } = await httpClient(`${slow.base}/mcp`);
    const started = await askAndCancel(client, 'cancel me over http');
    // The turn ends as cancelled long before its answer would have (seconds more).
    let status = '';
    let thread = null;
    while (Date.now() - started < 3000) {
      const threads = await (await fetch(`${slow.base}/api/threads`)).json();
      thread = (threads.threads ?? threads).find((t) => /cancel me over http/.test(JSON.stringify(t)));
      if (thread) {
        const full = JSON.stringify(await (await fetch(`${slow.base}/api/threads/${thread.id}`)).json());
        const m = full.match(/"status":"(cancelled|complete|completed|answered|[a-z_]+)"/g) ?? [];
        if (full.includes('"cancelled"')) { status = 'cancelled'; break; }
        status = m.join(',');
      }
      await new Promise((ok) => setTimeout(ok, 100));
    }
    assert.ok(thread, 'the ask created its thread');
    assert.equal(status, 'cancelled', `turn status after cancel: ${status}`);
    // The session goes on.
    await client.ping();
    await client.close();
    assert.ok(slow.alive());
  } finally {
    await slow.stop();
  }
});

test('stdio: notifications/cancelled stops a running ask, nothing is answered for it, and the session goes on', async () => {
  const client = await stdioClient([], slowSession);
  await askAndCancel(client, 'cancel me over stdio');
  await client.ping();
  const started = Date.now();
  await client.close();  // end of input: the server exits without waiting for the cancelled turn's answer
  assert.ok(Date.now() - started < 5000);
});

test('Streamable HTTP bad input: the right errors, and the server stays up', async () => {
  const url = `${server.base}/mcp`;
  const post = (body, headers = {}) => fetch(url, {
    method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

  let r = await post('{"jsonrpc": "2.0", "id": 1, "method":');
  assert.equal(r.status, 400);
  assert.equal((await r.json()).error.code, -32700);
  r = await post([init]);
  assert.equal(r.status, 400);
  assert.equal((await r.json()).error.code, -32600);
  r = await post(init, { origin: 'http://evil.example' });
  assert.equal(r.status, 403);
  r = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  assert.equal(r.status, 400, 'no session id');
  r = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': 'f'.repeat(32) });
  assert.equal(r.status, 404, 'unknown session');
  r = await post(init, { accept: 'text/html' });
  assert.equal(r.status, 406);

  r = await post(init, { origin: server.base });
  assert.equal(r.status, 200);
  const sid = r.headers.get('mcp-session-id');
  assert.equal((await r.json()).result.protocolVersion, '2025-06-18');
  const inSession = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
  r = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, inSession);
  assert.equal(r.status, 202);
  assert.equal(await r.text(), '');
  r = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, { ...inSession, 'mcp-protocol-version': '1999-01-01' });
  assert.equal(r.status, 400, 'unsupported protocol version header');
  r = await post({ ...init, id: 4 }, inSession);
  assert.equal(r.status, 400, 'initialize inside a session');
  r = await post({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } }, inSession);
  assert.equal(r.status, 200);
  assert.equal((await r.json()).error.code, -32602);
  r = await post({ jsonrpc: '2.0', id: 6, method: 'no/such/method' }, inSession);
  assert.equal((await r.json()).error.code, -32601);
  // An oversized message: the headers announce 2 MiB, above the server's body limit (1 MiB).
  const raw = await new Promise((ok, fail) => {
    const socket = connect(server.port, '127.0.0.1', () => {
      socket.write(`POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${server.port}\r\ncontent-type: application/json\r\nmcp-session-id: ${sid}\r\ncontent-length: ${2 * 1024 * 1024}\r\n\r\n`);
    });
    let text = '';
    socket.on('data', (d) => { text += d; });
    socket.on('end', () => ok(text));
    socket.on('error', fail);
  });
  assert.match(raw, /^HTTP\/1\.1 413/, 'oversized message');
  assert.match(raw, /server\.body_too_large/);
  r = await fetch(url, { method: 'GET', headers: { accept: 'text/event-stream', ...inSession } });
  assert.equal(r.status, 405, 'no server-initiated stream');

  r = await post({ jsonrpc: '2.0', id: 7, method: 'ping' }, inSession);
  assert.deepEqual((await r.json()).result, {});
  r = await fetch(url, { method: 'DELETE', headers: inSession });
  assert.equal(r.status, 200);
  r = await post({ jsonrpc: '2.0', id: 8, method: 'ping' }, inSession);
  assert.equal(r.status, 404, 'an ended session is gone');
  assert.ok(server.alive());
});

test('stdio: a message a million levels deep is a typed error, and the loop goes on', async () => {
  const child = spawn(binary, ['mcp', ...session], { stdio: ['pipe', 'pipe', 'ignore'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const deep = '['.repeat(1000000) + ']'.repeat(1000000);  // 2 MB, under --max-message (4 MiB)
  child.stdin.write(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":${deep}}\n`);
  const refused = JSON.parse((await lines.next()).value);
  assert.equal(refused.error.code, -32600);
  assert.equal(refused.error.data.code, 'mcp.too_deep');
  child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) + '\n');
  assert.deepEqual(JSON.parse((await lines.next()).value), { jsonrpc: '2.0', id: 2, result: {} });
  const exited = new Promise((ok) => child.once('exit', ok));
  child.stdin.end();
  assert.equal(await exited, 0);
});

test('stdio bad input: the right errors, and the loop goes on', async () => {
  const child = spawn(binary, ['mcp', ...session, '--max-message', '2048'], { stdio: ['pipe', 'pipe', 'ignore'] });
  const lines = [];
  const waiters = [];
  createInterface({ input: child.stdout }).on('line', (l) => {
    lines.push(JSON.parse(l));
    waiters.splice(0).forEach((w) => w());
  });
  const next = async (n) => {
    while (lines.length < n) await new Promise((ok) => waiters.push(ok));
    return lines[n - 1];
  };
  const send = (s) => child.stdin.write(s + '\n');

  send('this is not json');
  assert.equal((await next(1)).error.code, -32700);
  send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
  let m = await next(2);
  assert.equal(m.error.code, -32600, 'before initialize');
  assert.equal(m.id, 1);
  send('{"jsonrpc": "2.0", "id": 2, "method": "ping", "pad": "' + 'x'.repeat(5000) + '"}');
  m = await next(3);
  assert.equal(m.error.code, -32600);
  assert.equal(m.error.data.code, 'mcp.message_too_large');
  send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }));
  m = await next(4);
  assert.equal(m.id, 3);
  assert.equal(m.result.protocolVersion, '2025-11-25');
  send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  send(JSON.stringify([{ jsonrpc: '2.0', id: 4, method: 'ping' }]));
  assert.equal((await next(5)).error.code, -32600, 'batches');
  send(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'approve_action', arguments: { id: 'apr_x' } } }));
  m = await next(6);
  assert.equal(m.error.code, -32602);
  assert.equal(m.error.data.code, 'mcp.operator_only');
  send(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/list' }));
  m = await next(7);
  assert.ok(m.result.tools.some((t) => t.name === 'ask'));
  const exited = new Promise((ok) => child.once('exit', ok));
  child.stdin.end();
  assert.equal(await exited, 0, 'end of input ends the process cleanly');
});

// Issues 42 and 44 at the MCP door: `ask` reports a local SQLite source as local, a fan-out with one
// failed detail read as partial (the claim citing it unresolved, the weakest evidence partial), and
// a limited list's size.
test('stdio: ask reports a local source, a partial fan-out and a limited list as they are', async () => {
  const home = mkdtempSync(join(tmpdir(), 'affordance-mcp-newcomer-'));
  process.env.FIXTURE_PP_FAIL_IDS = '7';
  const dir = newcomerConnectors(binary, home);
  const client = await stdioClient([], ['--data', home, '--connectors', dir, '--provider', 'replay', '--script', script('partial.json')]);
  try {
    const asked = structured(await client.callTool({ name: 'ask', arguments: { message: 'My notes and items?' } }));
    const states = asked.truth.filter((t) => t.dataState).map((t) => t.dataState);
    assert.deepEqual(states, ['local', 'partial', 'live']);
    assert.equal(asked.turn.truth.weakestEvidence, 'partial');
    assert.deepEqual(asked.claims.map((c) => c.class), ['source', 'unresolved']);
    assert.deepEqual(asked.turn.truth.claims, { source: 1, effect: 0, unresolved: 1, inference: 0 });
  } finally {
    await client.close();
    delete process.env.FIXTURE_PP_FAIL_IDS;
    rmSync(home, { recursive: true, force: true });
  }
});
