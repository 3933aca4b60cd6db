// The server's JSON routes (docs/SERVER.md). Errors come back as {error: {code, message}}.
import type { ChatMessage } from './parts';

export const AI_SDK_VERSION = __AI_SDK_VERSION__;

// The body of a failed request.
export type ErrorBody = { error?: { code: string; message: string } };

export type Thread = {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  messages: number;
  active: boolean;
};

// A bearer token for a server bound beyond loopback: opened once as /#token=..., then kept.
function token(): string | null {
  const given = new URLSearchParams(location.hash.slice(1)).get('token');
  if (given) {
    localStorage.setItem('affordance.token', given);
    history.replaceState(null, '', location.pathname);
  }
  return localStorage.getItem('affordance.token');
}

// The person's session (docs/SECURITY.md): the credential that lets this page approve and deny.
// The server mints it for a browser it can tell is the person's (a loopback connection of the OS
// user who runs it) or for a one-time sign-in code (`affordance login-link` prints /#login=...).
// It lives in this origin's storage and goes out only in a header our own script sets: never a
// cookie, which the browser would also attach to requests other pages make.
const SESSION_KEY = 'affordance.session';
let session: string | null = localStorage.getItem(SESSION_KEY);
let person = false;

// Whether this page holds the person's session (set once by startSession before the UI renders).
export function canDecide(): boolean {
  return person;
}

export function headers(): Record<string, string> {
  const h: Record<string, string> = { 'x-ai-sdk-version': AI_SDK_VERSION };
  const t = token();
  if (t) h.authorization = `Bearer ${t}`;
  if (session) h['x-affordance-session'] = session;
  return h;
}

// Starts (or renews) the person's session; false when this browser may ask and read but not
// decide. A sign-in code in the address is used once and removed from it.
export async function startSession(): Promise<boolean> {
  const params = new URLSearchParams(location.hash.slice(1));
  const login = params.get('login');
  if (login) {
    params.delete('login');
    const rest = params.toString();
    history.replaceState(null, '', location.pathname + (rest ? `#${rest}` : ''));
  }
  try {
    const res = await fetch('/api/session', {
      method: 'POST',
      headers: { ...headers(), 'content-type': 'application/json' },
      body: JSON.stringify(login ? { login } : {}),
    });
    if (res.ok) {
      const body: { session: { token: string } } = await res.json();
      session = body.session.token;
      localStorage.setItem(SESSION_KEY, session);
      person = true;
      return true;
    }
  } catch {
    // offline: keep what we have; the next request says what is wrong
  }
  session = null;
  person = false;
  localStorage.removeItem(SESSION_KEY);
  return false;
}

export class ApiError extends Error {
  constructor(public code: string, message: string) {
    super(message);
  }
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
    headers: { ...headers(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const json: T & ErrorBody = text ? JSON.parse(text) : {};
  if (!res.ok) throw new ApiError(json?.error?.code ?? `http.${res.status}`, json?.error?.message ?? res.statusText);
  return json;
}

export const api = {
  threads: () => call<{ threads: Thread[] }>('GET', '/api/threads').then((r) => r.threads),
  create: () => call<{ thread: Thread }>('POST', '/api/threads', {}).then((r) => r.thread),
  read: (id: string) => call<{ thread: Thread; messages: ChatMessage[] }>('GET', `/api/threads/${encodeURIComponent(id)}`),
  rename: (id: string, title: string) =>
    call<{ thread: Thread }>('PATCH', `/api/threads/${encodeURIComponent(id)}`, { title }),
  remove: (id: string) => call<{ deleted: string }>('DELETE', `/api/threads/${encodeURIComponent(id)}`),
  cancel: (id: string) => call<{ cancelled: boolean }>('POST', `/api/chat/${encodeURIComponent(id)}/cancel`, {}),
  ack: (thread: string, surface: string, state: 'painted' | 'hydrated') =>
    call<{ surfaceId: string; state: string }>(
      'POST',
      `/api/threads/${encodeURIComponent(thread)}/surfaces/${encodeURIComponent(surface)}/ack`,
      { state },
    ),
};
