// The server's JSON routes (docs/SERVER.md). Errors come back as {error: {code, message}}.
declare const __AI_SDK_VERSION__: string;
export const AI_SDK_VERSION = __AI_SDK_VERSION__;

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

export function headers(): Record<string, string> {
  const h: Record<string, string> = { 'x-ai-sdk-version': AI_SDK_VERSION };
  const t = token();
  if (t) h.authorization = `Bearer ${t}`;
  return h;
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
  const json = text ? JSON.parse(text) : {};
  if (!res.ok) throw new ApiError(json?.error?.code ?? `http.${res.status}`, json?.error?.message ?? res.statusText);
  return json as T;
}

export const api = {
  threads: () => call<{ threads: Thread[] }>('GET', '/api/threads').then((r) => r.threads),
  create: () => call<{ thread: Thread }>('POST', '/api/threads', {}).then((r) => r.thread),
  read: (id: string) => call<{ thread: Thread; messages: any[] }>('GET', `/api/threads/${encodeURIComponent(id)}`),
  rename: (id: string, title: string) =>
    call<{ thread: Thread }>('PATCH', `/api/threads/${encodeURIComponent(id)}`, { title }),
  remove: (id: string) => call<{ deleted: string }>('DELETE', `/api/threads/${encodeURIComponent(id)}`),
  cancel: (id: string) => call<{ cancelled: boolean }>('POST', `/api/chat/${encodeURIComponent(id)}/cancel`),
  ack: (thread: string, surface: string, state: 'painted' | 'hydrated') =>
    call<{ surfaceId: string; state: string }>(
      'POST',
      `/api/threads/${encodeURIComponent(thread)}/surfaces/${encodeURIComponent(surface)}/ack`,
      { state },
    ),
};
