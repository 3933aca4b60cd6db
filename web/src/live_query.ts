// Two-time grounding in the browser (docs/SURFACE.md). A surface saved as an artifact executes its
// Query() handles again when it renders, through POST /api/query; the server answers the rows
// with a source-binding receipt comparing the live read with the binding the surface was composed
// with. A mismatch (409) is an error the surface shows: its rows are never replaced silently.
// Mutation() handles are staged through governed writes (an approval request), never run.
import { ApiError, headers, type ErrorBody } from './api';

export type Receipt = {
  match: boolean;
  mismatches: string[];
  servedFrom: string;
  dataState: string;
  rows: number;
  rowsDigest: string;
  preview: Record<string, unknown>;
  live: Record<string, unknown>;
};

export type Binding = { statement: string; handle: string; args: unknown; argsLiteral: boolean };

export type Artifact = {
  id: string;
  kind: string;
  appSlug: string;
  version: number;
  body: string;
  live: boolean;
  bindings: { queries: Binding[]; mutations: Binding[] };
  generation?: number;
  threadId: string;
  surfaceId: string;
};

// POST /api/query: the rows and their receipt; a mismatch (409) also carries an error.
type QueryBody = { rows?: unknown[]; truncated?: boolean; receipt?: Receipt };
// POST /api/artifacts/{id}/mutations/{statement}: the staged approval request.
type StagedBody = { approval?: unknown };

async function post<T>(path: string, body: unknown): Promise<{ status: number; json: T & ErrorBody }> {
  const res = await fetch(path, {
    method: 'POST',
    headers: { ...headers(), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : {} };
}

export async function readArtifact(ref: string): Promise<Artifact> {
  const res = await fetch(`/api/artifacts/${encodeURIComponent(ref)}`, { headers: headers() });
  const json: { artifact: Artifact } & ErrorBody = await res.json();
  if (!res.ok) throw new ApiError(json?.error?.code ?? `http.${res.status}`, json?.error?.message ?? res.statusText);
  return json.artifact;
}

export type QueryEvent = { handle: string; receipt?: Receipt; error?: { code: string; message: string } };

// The toolProvider of a stored artifact: each handle it binds is executed through /api/query
// (queries) or staged through /api/artifacts/{id}/mutations/{statement} (mutations).
export function artifactProvider(artifact: Artifact, onEvent: (e: QueryEvent) => void) {
  const provider: Record<string, (args: Record<string, unknown>) => Promise<unknown>> = {};
  for (const q of artifact.bindings.queries) {
    provider[q.handle] = async (args) => {
      const { status, json } = await post<QueryBody>('/api/query', {
        artifact: artifact.id,
        version: artifact.version,
        handle: q.handle,
        args,
      });
      if (status !== 200) {
        const error = json?.error ?? { code: `http.${status}`, message: 'the query failed' };
        onEvent({ handle: q.handle, receipt: json?.receipt, error });
        throw new ApiError(error.code, error.message);
      }
      onEvent({ handle: q.handle, receipt: json.receipt });
      return { rows: json.rows };
    };
  }
  for (const m of artifact.bindings.mutations) {
    provider[m.handle] = async (args) => {
      const path = `/api/artifacts/${encodeURIComponent(artifact.id)}/mutations/${encodeURIComponent(m.statement)}`;
      const { status, json } = await post<StagedBody>(path, { version: artifact.version, args });
      if (status !== 200) {
        const error = json?.error ?? { code: `http.${status}`, message: 'staging failed' };
        onEvent({ handle: m.handle, error });
        throw new ApiError(error.code, error.message);
      }
      return { staged: json.approval };
    };
  }
  return provider;
}
