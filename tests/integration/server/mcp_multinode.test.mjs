// A 2026-07-28 MCP client over several `affordance serve` nodes on one PostgreSQL (docs/MCP.md,
// docs/SCALE.md): with no session to pin it to a node, each request may land anywhere. The
// operator's requests carry the trust root (the nodes share one operator.secret, as a deployment
// distributes it) and are answered on the operator plane by whichever node gets them; a request
// without it is the normal plane on every node; what one node wrote through MCP the next node
// reads from the shared store. Run from CTest (PostgreSQL 15 from ./scripts/setup; never skipped):
//   node tests/integration/server/mcp_multinode.test.mjs build/affordance
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { accessToken, startNode, startPostgres } from './cluster.mjs';
import { root } from './serve.mjs';

const require = createRequire(join(root, 'tools/package.json'));
const { Client, StreamableHTTPClientTransport } = await import(require.resolve('@modelcontextprotocol/client'));
const binary = process.argv[2] ?? join(root, 'build/affordance');

let pg;
let a;
let b;
before(async () => {
  pg = await startPostgres();
  const store = await pg.createDatabase('mcp');
  a = await startNode(binary, { store, node: 'a' });
  // Node b gets node a's trust root before it starts (it would make its own otherwise).
  const dataB = mkdtempSync(join(tmpdir(), 'affordance-node-b-'));
  copyFileSync(join(a.data, 'operator.secret'), join(dataB, 'operator.secret'));
  b = await startNode(binary, { store, node: 'b', data: dataB });
});
after(async () => {
  await Promise.all([a, b].filter(Boolean).map((n) => n.stop()));
  await pg?.stop();
});

const secret = () => readFileSync(join(a.data, 'operator.secret'), 'utf8').trim();

function headers(operator) {
  return { authorization: `Bearer ${accessToken}`, ...(operator ? { 'affordance-operator-secret': secret() } : {}) };
}

// A 2.x client pinned to 2026-07-28 on `node`; with `prior`, adopted from another node's discover
// result (zero round trips: the probe itself never reaches this node).
async function connect(node, { operator = false, prior } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(`${node.base}/mcp`), { requestInit: { headers: headers(operator) } });
  const client = new Client({ name: `multinode-${node.name}`, version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(transport, prior ? { prior } : undefined);
  assert.equal(transport.sessionId, undefined, 'no session');
  return client;
}

function structured(result) {
  assert.ok(!result.isError, JSON.stringify(result.content));
  return result.structuredContent;
}

test('an operator-credential request on one node and the next on another: both on the operator plane', async () => {
  const onA = await connect(a, { operator: true });
  const prior = { kind: 'modern', discover: onA.getDiscoverResult() };
  const onB = await connect(b, { operator: true, prior });
  const normalA = await connect(a);
  const normalB = await connect(b, { prior: { kind: 'modern', discover: normalA.getDiscoverResult() } });
  try {
    const toolsA = (await onA.listTools()).tools.map((t) => t.name);
    const toolsB = (await onB.listTools()).tools.map((t) => t.name);
    assert.deepEqual(toolsB, toolsA, 'the same list, in the same order, on both nodes');
    assert.ok(toolsA.includes('grant') && toolsA.includes('revoke_grant'));
    assert.ok(!(await normalB.listTools()).tools.some((t) => t.name === 'grant'), 'no trust root: the normal plane');

    // A decision made on a: a grant. The next request, on b, revokes it: b knows it from the store.
    const granted = structured(await onA.callTool({ name: 'grant', arguments: { connector: 'calendar', access: 'read', expiresInS: 600 } }));
    assert.ok(granted.grant.grantedBy.endsWith('@mcp'));
    const seen = structured(await normalB.callTool({ name: 'list_connectors', arguments: {} }));
    assert.ok(seen.connectors.find((c) => c.slug === 'calendar').grants.some((g) => g.id === granted.grant.id));
    await assert.rejects(normalB.callTool({ name: 'revoke_grant', arguments: { id: granted.grant.id } }),
      (e) => e.code === -32602 && e.data?.code === 'mcp.operator_only');
    const revoked = structured(await onB.callTool({ name: 'revoke_grant', arguments: { id: granted.grant.id } }));
    assert.ok(revoked.grant.revokedMs > 0);

    // The same holds for resources: an artifact composed through a is read through b.
    const composed = structured(await onA.callTool({ name: 'compose_ui', arguments: {
      program: 'root = Stack([n])\nn = Callout("info", "Nodes", "Written on a")\n', title: 'from a' } }));
    const read = await onB.readResource({ uri: `affordance://artifacts/${composed.artifact.id}` });
    assert.equal(JSON.parse(read.contents[0].text).artifact.title, 'from a');
  } finally {
    await Promise.all([onA, onB, normalA, normalB].map((c) => c.close()));
  }
});
