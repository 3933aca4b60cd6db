// Both MCP protocol eras on one door, with the official clients (pinned in tools/): the 2.x client
// (@modelcontextprotocol/client) pinned to 2026-07-28 and in `auto` mode, and the 1.x client
// (@modelcontextprotocol/sdk, 2025-11-25), each over Streamable HTTP (`/mcp` on `affordance serve`)
// and stdio (`affordance mcp`): connect, list tools, call read tools, typed errors for bad
// arguments, resources. Then a 2025 session and 2026 requests from other clients at once on one
// server, the operator plane proved per 2026 request, and a revision we do not speak answered with
// the specification's UnsupportedProtocolVersionError over both transports. Run from CTest:
//   node tests/integration/server/mcp_eras.test.mjs build/affordance
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import test from 'node:test';
import { root } from './serve.mjs';

const require = createRequire(join(root, 'tools/package.json'));
const v1 = {
  Client: (await import(require.resolve('@modelcontextprotocol/sdk/client/index.js'))).Client,
  Stdio: (await import(require.resolve('@modelcontextprotocol/sdk/client/stdio.js'))).StdioClientTransport,
  Http: (await import(require.resolve('@modelcontextprotocol/sdk/client/streamableHttp.js'))).StreamableHTTPClientTransport,
};
const v2module = await import(require.resolve('@modelcontextprotocol/client'));
const v2 = {
  Client: v2module.Client,
  Stdio: (await import(require.resolve('@modelcontextprotocol/client/stdio'))).StdioClientTransport,
  Http: v2module.StreamableHTTPClientTransport,
  UnsupportedProtocolVersionError: v2module.UnsupportedProtocolVersionError,
};
const binary = process.argv[2] ?? join(root, 'build/affordance');

const data = mkdtempSync(join(tmpdir(), 'affordance-mcp-eras-'));
process.on('exit', () => rmSync(data, { recursive: true, force: true }));
const connectors = join(data, 'connectors');
mkdirSync(connectors);
for (const f of ['calendar.json', 'calendar.ics']) copyFileSync(join(root, 'examples/connectors', f), join(connectors, f));
const common = ['--data', data, '--connectors', connectors];
execFileSync(binary, ['grants', 'grant', 'calendar', '--read', ...common], { stdio: 'ignore' });
const declared = JSON.parse(execFileSync(binary, ['capabilities', '--json'])).capabilities.filter((c) => c.door === 'mcp');
const normalTools = declared.filter((c) => c.access !== 'person').map((c) => c.name).sort();
const OPERATOR_TOOLS = ['approve_action', 'deny_action', 'grant', 'revoke_grant'];
const secret = () => readFileSync(join(data, 'operator.secret'), 'utf8').trim();

const PROGRAM = 'root = Stack([note])\nnote = Callout("info", "Eras", "A surface for resources")\n';

async function startServe() {
  const child = spawn(binary, ['serve', '--port', '0', '--json', ...common], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise((ok, fail) => {
    createInterface({ input: child.stdout }).once('line', ok);
    child.once('exit', (code) => fail(new Error(`affordance serve exited with ${code}`)));
  });
  const { port } = JSON.parse(line);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    alive: () => child.exitCode === null,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((ok) => child.once('exit', ok));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

// The clients under test: [label, make(transportKind, target, {operator}) -> {client, transport}].
const KINDS = {
  'v2 pinned 2026-07-28': { sdk: v2, options: { versionNegotiation: { mode: { pin: '2026-07-28' } } }, era: '2026-07-28' },
  'v2 auto': { sdk: v2, options: { versionNegotiation: { mode: 'auto' } }, era: '2026-07-28' },
  'v1': { sdk: v1, options: {}, era: '2025-11-25' },
};

async function connect(kind, transportKind, target, { operator = false, name = 'eras' } = {}) {
  const { sdk, options } = KINDS[kind];
  const transport = transportKind === 'http'
    ? new sdk.Http(new URL(target), { requestInit: { headers: operator ? { 'affordance-operator-secret': secret() } : {} } })
    : new sdk.Stdio({ command: binary, args: ['mcp', ...common, ...(operator ? ['--operator'] : [])], env: process.env, stderr: 'ignore' });
  const client = new sdk.Client({ name: `${name}-${transportKind}`, version: '1.0.0' }, options);
  await client.connect(transport);
  return { client, transport };
}

function structured(result) {
  assert.ok(!result.isError, `unexpected tool error: ${JSON.stringify(result.content)}`);
  assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  return result.structuredContent;
}

async function rejectsWithCode(promise, code, dataCode) {
  await assert.rejects(promise, (e) => {
    assert.equal(e.code, code, `expected JSON-RPC ${code}, got ${e.code}: ${e.message}`);
    if (dataCode) assert.equal(e.data?.code, dataCode, JSON.stringify(e.data));
    return true;
  });
}

// What every client must be able to do on either transport.
async function exercise(kind, transportKind, target) {
  const { client, transport } = await connect(kind, transportKind, target);
  try {
    const era = KINDS[kind].era;
    if (KINDS[kind].sdk === v2) {
      assert.equal(client.getNegotiatedProtocolVersion(), era, `${kind} negotiates ${era}`);
      assert.equal(client.getProtocolEra(), 'modern');
      if (transportKind === 'http') assert.equal(transport.sessionId, undefined, 'no session is minted for 2026-07-28');
    } else if (transportKind === 'http') {
      assert.match(transport.sessionId, /^[0-9a-f]{32}$/, 'the 2025 session has its id');
    }
    const list = await client.listTools();
    const names = list.tools.map((t) => t.name);
    assert.deepEqual(names, normalTools, `${kind}: the normal plane's tools, in name order`);
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), names, 'the same order every time');

    const connectorsOut = structured(await client.callTool({ name: 'list_connectors', arguments: {} }));
    assert.ok(connectorsOut.connectors.some((c) => c.slug === 'calendar'));
    const rows = structured(await client.callTool({
      name: 'read_connector',
      arguments: { connector: 'calendar', request: { operation: 'list_events', args: { from: '2026-11-01T00:00:00Z', to: '2027-01-01T00:00:00Z' } } },
    }));
    assert.equal(rows.status, 'ok');
    assert.ok(rows.rows.length > 0);

    // Typed errors: bad arguments, an unknown tool, an operator tool from the normal plane.
    await rejectsWithCode(client.callTool({ name: 'show_approval', arguments: { id: 7 } }), -32602, 'mcp.bad_arguments');
    await rejectsWithCode(client.callTool({ name: 'read_connector', arguments: { connector: 'calendar' } }), -32602, 'mcp.bad_arguments');
    await rejectsWithCode(client.callTool({ name: 'no_such_tool', arguments: {} }), -32602, 'mcp.unknown_tool');
    await rejectsWithCode(client.callTool({ name: 'grant', arguments: { connector: 'calendar', access: 'read' } }), -32602, 'mcp.operator_only');

    // Resources: a composed surface is listed, read (as open_artifact returns it) and templated.
    const composed = structured(await client.callTool({ name: 'compose_ui', arguments: { program: PROGRAM, title: `${kind} ${transportKind}` } }));
    const uri = `affordance://artifacts/${composed.artifact.id}`;
    const resources = [];
    let cursor;
    do {
      const page = await client.listResources(cursor ? { cursor } : {});
      resources.push(...page.resources);
      cursor = page.nextCursor;
    } while (cursor);
    assert.ok(resources.some((r) => r.uri === uri), `${uri} is listed`);
    const read = await client.readResource({ uri });
    assert.equal(read.contents[0].mimeType, 'application/json');
    const opened = structured(await client.callTool({ name: 'open_artifact', arguments: { id: composed.artifact.id } }));
    assert.deepEqual(JSON.parse(read.contents[0].text), opened);
    const version = await client.readResource({ uri: `${uri}/versions/1` });
    assert.equal(JSON.parse(version.contents[0].text).artifact.body, PROGRAM);
    const templates = await client.listResourceTemplates();
    assert.deepEqual(templates.resourceTemplates.map((t) => t.uriTemplate).sort(),
      ['affordance://approvals/{id}', 'affordance://artifacts/{id}', 'affordance://artifacts/{id}/versions/{version}']);
    await rejectsWithCode(client.readResource({ uri: 'affordance://artifacts/a_missing' }), -32602);
  } finally {
    await client.close();
  }
}

let server;
test.before(async () => {
  server = await startServe();
});
test.after(async () => server?.stop());

for (const kind of Object.keys(KINDS)) {
  test(`${kind} over Streamable HTTP: connects, lists tools, calls read tools, typed errors, resources`, async () => {
    await exercise(kind, 'http', server.url);
  });
  test(`${kind} over stdio: connects, lists tools, calls read tools, typed errors, resources`, async () => {
    await exercise(kind, 'stdio');
  });
}

test('a 2025 session and 2026 requests from other clients at once; the plane is proved per 2026 request', async () => {
  const legacy = await connect('v1', 'http', server.url, { name: 'legacy' });
  const modern = await connect('v2 pinned 2026-07-28', 'http', server.url, { name: 'modern' });
  const operator = await connect('v2 pinned 2026-07-28', 'http', server.url, { operator: true, name: 'op' });
  try {
    const rounds = await Promise.all(Array.from({ length: 6 }, (_, i) => [legacy, modern, operator][i % 3].client.listTools()));
    rounds.forEach((r, i) => {
      const names = r.tools.map((t) => t.name);
      if (i % 3 === 2) for (const t of OPERATOR_TOOLS) assert.ok(names.includes(t), `the operator credential sees ${t}`);
      else assert.deepEqual(names, normalTools);
    });
    // The operator's 2026 requests may decide; each carries the trust root itself.
    const granted = structured(await operator.client.callTool({ name: 'grant', arguments: { connector: 'calendar', access: 'write', expiresInS: 600 } }));
    assert.equal(granted.grant.grantedBy.endsWith('@mcp'), true);
    const listed = structured(await legacy.client.callTool({ name: 'list_connectors', arguments: {} }));
    assert.ok(listed.connectors.find((c) => c.slug === 'calendar').grants.some((g) => g.id === granted.grant.id));
    const revoked = structured(await operator.client.callTool({ name: 'revoke_grant', arguments: { id: granted.grant.id } }));
    assert.ok(revoked.grant.revokedMs > 0);
    await rejectsWithCode(modern.client.callTool({ name: 'revoke_grant', arguments: { id: granted.grant.id } }), -32602, 'mcp.operator_only');
    // The 2025 session is still the one it was.
    assert.match(legacy.transport.sessionId, /^[0-9a-f]{32}$/);
    assert.deepEqual((await legacy.client.listTools()).tools.map((t) => t.name), normalTools);
  } finally {
    await Promise.all([legacy, modern, operator].map((c) => c.client.close()));
  }
});

test('stdio: --operator is the credential of every 2026 request of the process', async () => {
  const { client } = await connect('v2 pinned 2026-07-28', 'stdio', null, { operator: true });
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const t of OPERATOR_TOOLS) assert.ok(names.includes(t), t);
  } finally {
    await client.close();
  }
});

const envelope = (version) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
});

test('a revision we do not speak gets UnsupportedProtocolVersionError (-32022) over HTTP and stdio', async () => {
  // Raw over HTTP: 400 and the error naming what we serve and what was asked.
  const body = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope('2099-01-01') } };
  const r = await fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' },
    body: JSON.stringify(body),
  });
  assert.equal(r.status, 400);
  const answer = await r.json();
  assert.equal(answer.error.code, -32022);
  assert.deepEqual(answer.error.data, { supported: ['2026-07-28'], requested: '2099-01-01' });
  assert.equal(answer.id, 1);
  assert.equal(r.headers.get('mcp-session-id'), null);

  // Raw over stdio: the same error, and the process goes on.
  const child = spawn(binary, ['mcp', ...common], { stdio: ['pipe', 'pipe', 'ignore'] });
  const lines = createInterface({ input: child.stdout });
  const next = () => new Promise((ok) => lines.once('line', (l) => ok(JSON.parse(l))));
  child.stdin.write(JSON.stringify({ ...body, id: 'a' }) + '\n');
  const err = await next();
  assert.equal(err.id, 'a');
  assert.equal(err.error.code, -32022);
  assert.deepEqual(err.error.data.supported, ['2026-07-28']);
  child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 'b', method: 'server/discover', params: { _meta: envelope('2026-07-28') } }) + '\n');
  const discover = await next();
  assert.deepEqual(discover.result.supportedVersions, ['2026-07-28']);
  assert.equal(discover.result.resultType, 'complete');
  child.stdin.end();
  assert.equal(await new Promise((ok) => child.once('exit', ok)), 0);

  // The 2.x client pinned to a revision we lack fails with the typed error, on both transports.
  for (const transportKind of ['http', 'stdio']) {
    const transport = transportKind === 'http' ? new v2.Http(new URL(server.url))
      : new v2.Stdio({ command: binary, args: ['mcp', ...common], env: process.env, stderr: 'ignore' });
    const client = new v2.Client({ name: 'future', version: '1' }, { versionNegotiation: { mode: { pin: '2027-01-01' } } });
    await assert.rejects(client.connect(transport), (e) => {
      assert.ok(e instanceof v2.UnsupportedProtocolVersionError, `${transportKind}: ${e}`);
      assert.deepEqual(e.supported, ['2026-07-28']);
      return true;
    });
  }
  assert.ok(server.alive());
});
