// The server's trust boundary, attacked the way a web page in the person's own browser attacks it
// (docs/SECURITY.md). Debian's headless Chromium resolves evil.test to 127.0.0.1
// (--host-resolver-rules), so the attacker's pages and the person's UI live in one real browser:
//   - cross-site requests: a page at http://evil.test:PORT2 sends the "simple" requests a browser
//     lets any page send without a CORS preflight (text/plain, form-encoded, multipart, a form
//     posted into a frame) to http://127.0.0.1:PORT and http://localhost:PORT: start a turn,
//     create a thread, run a query, mark a surface hydrated, approve a write whose id it knows;
//   - DNS rebinding: a page at http://evil.test:PORT3 is served by the attacker, then the
//     name "rebinds": a forwarder that stood for the attacker's host now reaches affordance, so
//     the page's same-origin requests arrive with Host evil.test:PORT3. It tries to read the
//     threads, start a turn, mint a person session and approve;
//   - framing: the attacker frames the UI to have the person click Approve in it.
// Nothing is read, no turn starts, no thread appears, the approval stays pending and the
// calendar is unchanged; the server's refusal counters prove each attempt arrived. Then the
// project's own UI, opened the normal way in the same browser, asks, stages and approves, and
// exactly one event is written. Model: the replay provider (scripts/write.json).
//   node tests/integration/server/security.test.mjs build/affordance /usr/bin/chromium
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { createRequire } from 'node:module';
import { createServer as createTcpServer, connect } from 'node:net';
import { join } from 'node:path';
import test from 'node:test';
import { root, startServer } from './serve.mjs';

const require = createRequire(join(root, 'tools/package.json'));
const { chromium } = require('playwright-core');
const [binary = join(root, 'build/affordance'), executablePath = '/usr/bin/chromium'] = process.argv.slice(2);

const listen = (server) => new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server.address().port)));

// The attacker's pages. `/csrf.html` sends every simple request it can to the targets named in
// its query; `/rebind.html` asks for the rebinding, then uses its own origin; `/frame.html`
// frames the UI. Each page leaves what it saw in window.result.
const CSRF_PAGE = `<!doctype html><meta charset="utf-8"><body><script type="module">
const q = new URLSearchParams(location.search);
const targets = JSON.parse(q.get('targets'));
const approval = q.get('approval'), call = q.get('call'), thread = q.get('thread');
const result = { reads: [], sent: 0, errors: [] };
const user = (text) => JSON.stringify({ id: 'evil-' + Math.random().toString(36).slice(2), trigger: 'submit-message',
  messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text }] }] });
const decision = JSON.stringify({ id: thread, trigger: 'submit-message', messageId: 'm', messages: [{ id: 'm', role: 'assistant',
  parts: [{ type: 'tool-invoke_mutation', toolCallId: call, state: 'approval-responded', input: {}, approval: { id: approval, approved: true } }] }] });
for (const base of targets) {
  // Reads: a CORS fetch (the browser hides the answer unless the server allows this origin).
  for (const path of ['/api/threads', '/api/threads/' + thread, '/deploy-truth']) {
    try {
      const r = await fetch(base + path);
      result.reads.push({ path, status: r.status, body: await r.text() });
    } catch (e) {
      result.reads.push({ path, blocked: String(e) });
    }
  }
  // Writes as simple requests: no preflight, so they reach the server; their answers are opaque
  // (and refused by the browser itself here: the server's CORP header). Whether each one arrived
  // is what the server's refusal counters say.
  const simple = [
    ['/api/chat', 'text/plain', user('Read my calendar and add an event for evil.test')],
    ['/api/chat', 'text/plain', decision],
    ['/api/chat', 'application/x-www-form-urlencoded', decision],
    ['/api/threads', 'text/plain', '{"title":"made by evil.test"}'],
    ['/api/query', 'text/plain', '{"artifact":"a_x","statement":"s"}'],
    ['/api/threads/' + thread + '/surfaces/s1/ack', 'text/plain', '{"state":"hydrated"}'],
    ['/api/session', 'text/plain', '{}'],
    ['/mcp', 'text/plain', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"approve_action","arguments":{"id":"' + approval + '","execute":true}}}'],
  ];
  for (const [path, type, body] of simple) {
    await fetch(base + path, { method: 'POST', mode: 'no-cors', headers: { 'content-type': type }, body })
      .catch((e) => result.errors.push(path + ': ' + e));
    result.sent++;
  }
  const form = new FormData();
  form.append('id', thread);
  form.append('messages', decision);
  await fetch(base + '/api/chat', { method: 'POST', mode: 'no-cors', body: form }).catch((e) => result.errors.push(String(e)));
  await fetch(base + '/api/chat/' + thread + '/cancel', { method: 'POST', mode: 'no-cors' }).catch((e) => result.errors.push(String(e)));
  result.sent += 2;
  // A form posted into a frame: a navigation, which carries no CORS at all.
  await new Promise((done) => {
    const frame = document.createElement('iframe');
    frame.name = 'sink' + result.sent;
    document.body.append(frame);
    frame.onload = done;  // set after the blank frame's own load: this is the post's answer
    const f = document.createElement('form');
    f.method = 'POST'; f.enctype = 'text/plain'; f.target = frame.name; f.action = base + '/api/chat';
    const input = document.createElement('input');
    input.name = decision.slice(0, -2); input.value = '"}';  // name=value forms the JSON text
    f.append(input);
    document.body.append(f);
    f.submit();
    setTimeout(done, 3000);
  });
  result.sent++;
}
window.result = result;
</script>`;

const REBIND_PAGE = `<!doctype html><meta charset="utf-8"><body><script type="module">
const q = new URLSearchParams(location.search);
const approval = q.get('approval'), call = q.get('call'), thread = q.get('thread');
const result = { before: null, after: [] };
window.progress = result;
result.before = await (await fetch('/whoami')).text();   // still the attacker's server
result.flip = await (await fetch('/flip')).text();        // the name now points at 127.0.0.1:PORT
await new Promise((ok) => setTimeout(ok, 300));
const json = { 'content-type': 'application/json' };      // same-origin now: no preflight needed
const decision = JSON.stringify({ id: thread, trigger: 'submit-message', messageId: 'm', messages: [{ id: 'm', role: 'assistant',
  parts: [{ type: 'tool-invoke_mutation', toolCallId: call, state: 'approval-responded', input: {}, approval: { id: approval, approved: true } }] }] });
const tries = [
  ['GET', '/api/threads'], ['GET', '/api/threads/' + thread], ['GET', '/'], ['GET', '/deploy-truth'],
  ['GET', '/api/chat/' + thread + '/stream'], ['POST', '/api/session', '{}'],
  ['POST', '/api/chat', JSON.stringify({ id: 'rebound', trigger: 'submit-message', messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'hi' }] }] })],
  ['POST', '/api/chat', decision],
  ['POST', '/mcp', '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"evil","version":"1"}}}'],
];
for (const [method, path, body] of tries) {
  try {
    const r = await fetch(path, { method, headers: body ? json : {}, body, cache: 'no-store' });
    result.after.push({ method, path, status: r.status, body: (await r.text()).slice(0, 400) });
  } catch (e) {
    result.after.push({ method, path, error: String(e) });
  }
}
window.result = result;
</script>`;

// A forwarder that first stands for the attacker's host, then for affordance: what a DNS answer
// that changes between two lookups does to a page's origin. Flipping drops open connections, so
// the browser's next request opens a new one (as a rebinding attacker forces by refusing them).
async function rebinder(attackerPort, victimPort) {
  let target = attackerPort;
  const sockets = new Set();
  const server = createTcpServer((client) => {
    sockets.add(client);
    const upstream = connect(target, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    const close = () => { client.destroy(); upstream.destroy(); sockets.delete(client); };
    client.on('error', close); upstream.on('error', close); client.on('close', close); upstream.on('close', close);
  });
  const port = await listen(server);
  return {
    port,
    flip() {
      target = victimPort;
      for (const s of sockets) s.destroy();
    },
    close: () => server.close(),
  };
}

async function attacker(victimPort, getRebinder) {
  const server = createHttpServer((req, res) => {
    const path = req.url.split('?')[0];
    const send = (type, body) => { res.writeHead(200, { 'content-type': type, connection: 'close' }); res.end(body); };
    if (path === '/csrf.html') return send('text/html', CSRF_PAGE);
    if (path === '/rebind.html') return send('text/html', REBIND_PAGE);
    if (path === '/whoami') return send('text/plain', 'attacker');
    if (path === '/flip') {
      res.on('close', () => setTimeout(() => getRebinder().flip(), 50));  // once the answer is out
      send('text/plain', 'flipped');
      return;
    }
    if (path === '/frame.html') {
      return send('text/html', `<!doctype html><iframe id="ui" src="http://127.0.0.1:${victimPort}/" width="800" height="600"></iframe>`);
    }
    res.writeHead(404, { connection: 'close' });
    res.end();
  });
  return { server, port: await listen(server) };
}

test('a foreign page cannot read, converse or decide, by simple requests, rebinding or framing; the person still can', async () => {
  const server = await startServer(binary, 'write.json', [], { writable: true });
  let rebind;
  const evil = await attacker(server.info.port, () => rebind);
  rebind = await rebinder(evil.port, server.info.port);
  const browser = await chromium.launch({
    executablePath, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--host-resolver-rules=MAP evil.test 127.0.0.1'],
  });
  try {
    const refused = async () => (await server.json('GET', '/deploy-truth')).body.refused ?? {};
    const person = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const problems = [];
    person.on('pageerror', (e) => problems.push(e.message));

    // The person stages a write in the real UI.
    await person.goto(server.base + '/');
    await person.getByRole('button', { name: /New conversation/ }).first().click();
    const box = person.getByRole('textbox', { name: 'Message' });
    await box.fill('Put a budget sync on Thursday at 15:00.');
    await box.press('Enter');
    const write = person.locator('[data-tool="invoke_mutation"]').first();
    const approve = write.getByRole('button', { name: 'Approve' });
    await approve.waitFor({ timeout: 30000 });
    const thread = new URLSearchParams((await person.evaluate(() => location.hash)).slice(1)).get('thread');
    const stored = (await server.json('GET', `/api/threads/${thread}`)).body.messages;
    const staged = stored.flatMap((m) => m.parts).find((p) => p.type === 'tool-invoke_mutation');
    assert.equal(staged.state, 'approval-requested');
    const approval = staged.approval.id;
    const call = staged.toolCallId;
    const calendar = server.calendar();
    const threadsBefore = (await server.json('GET', '/api/threads')).body.threads.length;
    const known = { approval, call, thread };

    // 1. Cross-site simple requests, knowing the approval id, to both loopback names.
    const before = await refused();
    const page = await browser.newPage();
    const targets = JSON.stringify([server.base, `http://localhost:${server.info.port}`]);
    await page.goto(`http://evil.test:${evil.port}/csrf.html?${new URLSearchParams({ ...known, targets })}`);
    await page.waitForFunction(() => window.result, null, { timeout: 60000 });
    const csrf = await page.evaluate(() => window.result);
    for (const r of csrf.reads) {
      assert.ok(r.blocked || (r.status >= 400 && !r.body.includes(approval) && !r.body.includes('Budget')),
        `a cross-site read got through: ${JSON.stringify(r)}`);
    }
    assert.equal(csrf.sent, 2 * 11);
    const delta = (after, code) => (after[code] ?? 0) - (before[code] ?? 0);
    // Every request arrived and was refused (reads and writes alike: the Origin is not ours). A
    // page's last request may still be on its way when the page says it is done: wait for the
    // counter, a bounded while.
    const arrived = async (code, since, least) => {
      let now = await refused();
      for (let i = 0; i < 50 && delta(now, code) - since < least; i++) {
        await new Promise((ok) => setTimeout(ok, 100));
        now = await refused();
      }
      return now;
    };
    const afterCsrf = await arrived('server.foreign_origin', 0, 2 * (3 + 11));
    assert.ok(delta(afterCsrf, 'server.foreign_origin') >= 2 * (3 + 11),
      `refusals: ${JSON.stringify(afterCsrf)} before ${JSON.stringify(before)}`);

    // 2. DNS rebinding: the same origin, now pointing at affordance.
    const rebound = await browser.newPage();
    await rebound.goto(`http://evil.test:${rebind.port}/rebind.html?${new URLSearchParams(known)}`);
    await rebound.waitForFunction(() => window.result, null, { timeout: 60000 }).catch(async (e) => {
      throw new Error(`the rebinding page did not finish: ${JSON.stringify(await rebound.evaluate(() => window.progress))}`);
    });
    const rb = await rebound.evaluate(() => window.result);
    assert.equal(rb.before, 'attacker', 'the page came from the attacker');
    assert.equal(rb.after.length, 9);
    for (const r of rb.after) {
      assert.equal(r.status, 421, `rebinding reached a route: ${JSON.stringify(r)}`);
      assert.ok(!r.body.includes(approval) && !r.body.includes('Budget') && !r.body.includes('<div id="root">'), r.body);
      assert.match(r.body, /server\.foreign_host/);
    }
    const afterRebind = await arrived('server.foreign_host', delta(afterCsrf, 'server.foreign_host'), 9);
    // Each arrived (Chromium sends a request refused with 421 once more, on a new connection).
    assert.ok(delta(afterRebind, 'server.foreign_host') - delta(afterCsrf, 'server.foreign_host') >= 9,
      JSON.stringify(afterRebind));

    // 3. Framing the UI to have the person click Approve inside it: the browser refuses to draw it.
    const framer = await browser.newPage();
    await framer.goto(`http://evil.test:${evil.port}/frame.html`);
    await framer.waitForTimeout(1500);
    const framed = framer.frames().find((f) => f !== framer.mainFrame());
    assert.ok(framed, 'the frame exists');
    assert.equal(await framed.locator('#root').count(), 0, `the UI was drawn inside a foreign page: ${framed.url()}`);

    // Nothing was read, started, created or decided.
    const threadsAfter = (await server.json('GET', '/api/threads')).body.threads;
    assert.equal(threadsAfter.length, threadsBefore, JSON.stringify(threadsAfter.map((t) => t.title)));
    const still = (await server.json('GET', `/api/threads/${thread}`)).body.messages.flatMap((m) => m.parts)
      .find((p) => p.type === 'tool-invoke_mutation');
    assert.equal(still.state, 'approval-requested', 'the approval is still pending');
    assert.equal(server.calendar(), calendar, 'the calendar is unchanged');
    assert.equal((await server.json('GET', '/deploy-truth')).body.turns.started, 1, 'no turn but the person\'s started');

    // The person, in the project's own UI opened the normal way, approves: written once.
    await approve.click();
    await write.locator('.badge', { hasText: 'verified' }).waitFor({ timeout: 30000 });
    assert.equal(server.calendar().split('SUMMARY:Budget sync').length - 1, 1, 'written once');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    rebind.close();
    evil.server.close();
    await server.stop();
  }
});
