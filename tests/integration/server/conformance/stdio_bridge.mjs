// The conformance suite speaks only Streamable HTTP (`--url`), so the stdio door is reached through
// this bridge, as an MCP host would drive it: each `initialize` without a session starts its own
// `affordance mcp` process (one process, one session, as hosts run stdio servers), and every later
// message of that session is written to that process's stdin as one line; its answer (matched by
// JSON-RPC id) is the HTTP response. Notifications get 202, DELETE ends the process, and at most
// four processes live at once (a fifth session ends the oldest: the suite runs its scenarios one
// after another, each with a fresh client). The bridge adds no protocol of its own: every answer is
// the stdio server's line, byte for byte.
//   startBridge(command, args) -> { url, close() }
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { createInterface } from 'node:readline';

export async function startBridge(command, args) {
  const sessions = new Map();  // id -> { child, pending: Map(json id -> resolve) }

  function open() {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    const pending = new Map();
    createInterface({ input: child.stdout }).on('line', (line) => {
      let id;
      try {
        id = JSON.stringify(JSON.parse(line).id ?? null);
      } catch {
        return;
      }
      const done = pending.get(id);
      if (done) {
        pending.delete(id);
        done(line);
      }
    });
    child.once('exit', () => {
      for (const done of pending.values()) done(null);
      pending.clear();
    });
    return { child, pending };
  }

  function exchange(session, message) {
    const key = JSON.stringify(message.id ?? null);
    const answered = new Promise((ok) => session.pending.set(key, ok));
    session.child.stdin.write(JSON.stringify(message) + '\n');
    return answered;
  }

  const server = http.createServer((req, res) => {
    const reply = (status, body, headers = {}) => {
      res.writeHead(status, { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers });
      res.end(body);
    };
    const sid = req.headers['mcp-session-id'];
    if (req.method === 'DELETE') {
      const s = sessions.get(sid);
      if (!s) return reply(404, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'unknown session' } }));
      sessions.delete(sid);
      s.child.stdin.end();
      return reply(200, '{}');
    }
    if (req.method !== 'POST') return reply(405, undefined);
    let body = '';
    req.setEncoding('utf8').on('data', (d) => (body += d)).on('end', async () => {
      let message;
      try {
        message = JSON.parse(body);
      } catch {
        return reply(400, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }));
      }
      let session = sessions.get(sid);
      let minted;
      if (!sid && message.method === 'initialize') {
        session = open();
        minted = randomBytes(16).toString('hex');
      }
      if (!session) {
        return reply(sid ? 404 : 400, JSON.stringify({ jsonrpc: '2.0', id: message.id ?? null,
          error: { code: -32600, message: sid ? 'unknown session' : 'initialize first' } }));
      }
      if (message.id === undefined || message.method === undefined) {
        session.child.stdin.write(JSON.stringify(message) + '\n');
        return reply(202, undefined);
      }
      const line = await exchange(session, message);
      if (line === null) return reply(502, JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32603, message: 'the stdio server exited' } }));
      if (minted) {
        sessions.set(minted, session);
        while (sessions.size > 4) {
          const [oldest, s] = sessions.entries().next().value;
          sessions.delete(oldest);
          s.child.stdin.end();
        }
      }
      return reply(200, line, minted ? { 'mcp-session-id': minted } : {});
    });
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${server.address().port}/mcp`,
    close() {
      for (const s of sessions.values()) s.child.kill('SIGTERM');
      sessions.clear();
      server.close();
    },
  };
}
