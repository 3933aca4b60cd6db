// A ComposeUI surface inline in the conversation, rendered by @openuidev/react-lang with our
// library. A live surface (one with Query bindings) owes the server a paint acknowledgement: once
// the renderer has drawn it, the UI posts `painted` and shows the state the server stored. A
// surface saved as an artifact re-executes its Query() handles through POST /api/query
// (live_query.ts); when every read came back with a matching receipt it posts `hydrated`, and a
// mismatch is shown as an error. A live app polls its artifact and re-renders (re-running its
// queries) when a mirror sync moved its generation. Older surfaces without an artifact are served
// from the evidence of the same turn, labelled as such.
import { Renderer } from '@openuidev/react-lang';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api } from './api';
import { isObject } from './json';
import { artifactProvider, readArtifact, type Artifact, type QueryEvent } from './live_query';
import { library } from './library';
import { Badge } from './message';
import { isStaticToolPart, type Part, type SurfaceData } from './parts';

// The acknowledgements this page has sent, by thread, surface and state: each state change is
// posted once, however often the component re-renders or remounts while its answer is in flight;
// every caller gets that one answer (a failed post is forgotten, so it can be sent again).
const sent = new Map<string, Promise<{ surfaceId: string; state: string }>>();

function acknowledge(threadId: string, surfaceId: string, state: 'painted' | 'hydrated') {
  const key = `${threadId}\u0000${surfaceId}\u0000${state}`;
  let answer = sent.get(key);
  if (!answer) {
    answer = api.ack(threadId, surfaceId, state);
    answer.catch(() => sent.delete(key));
    sent.set(key, answer);
  }
  return answer;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

// A tool's output as evidence: the rows it read and the query contracts they answer.
function evidenceProvider(parts: Part[]) {
  const byHandle: Record<string, { args: unknown; rows: unknown }[]> = {};
  for (const p of parts) {
    if (!isStaticToolPart(p) || p.state !== 'output-available' || !isObject(p.output)) continue;
    const out = p.output;
    const contracts = out.query_contracts ?? [];
    for (const c of Array.isArray(contracts) ? contracts : []) {
      if (!isObject(c)) continue;
      (byHandle[String(c.handle)] ??= []).push({ args: c.args, rows: out.rows ?? [] });
    }
  }
  const provider: Record<string, (args: Record<string, unknown>) => Promise<unknown>> = {};
  for (const [handle, reads] of Object.entries(byHandle)) {
    provider[handle] = async (args) => {
      const read = reads.find((r) => same(r.args, args)) ?? reads[0];
      return { rows: read.rows };
    };
  }
  return provider;
}

export function Surface({ threadId, data, parts }: { threadId: string; data: SurfaceData; parts: Part[] }) {
  const [state, setState] = useState<string>(data.state);
  const box = useRef<HTMLDivElement>(null);
  const [artifact, setArtifact] = useState<Artifact | null>(null);
  const [events, setEvents] = useState<Record<string, QueryEvent>>({});
  const [generation, setGeneration] = useState(0);
  const [unstored, setUnstored] = useState(false);  // no artifact to read: serve from evidence
  const live = Boolean(data.live);
  const onEvent = useCallback((e: QueryEvent) => setEvents((prev) => ({ ...prev, [e.handle]: e })), []);
  const toolProvider = useMemo(
    () => (artifact ? artifactProvider(artifact, onEvent) : evidenceProvider(parts)),
    [artifact, onEvent, parts],
  );

  // The stored artifact (its bindings); a live app is polled for a new generation (a mirror sync).
  useEffect(() => {
    const artifactId = data.artifactId;
    if (!artifactId || !live) return;
    let cancelled = false;
    const load = () =>
      readArtifact(artifactId)
        .then((a) => {
          // An inline or panel surface shows the version it was composed as; a live app its head.
          if (cancelled) return;
          if (data.kind !== 'live_app' && a.version !== data.version) return setUnstored(true);
          setArtifact((prev) => (prev && prev.version === a.version ? prev : a));
          if (a.generation !== undefined) setGeneration(a.generation);
        })
        .catch(() => !cancelled && setUnstored(true));
    load();
    const timer = data.kind === 'live_app' ? setInterval(load, 10000) : undefined;
    return () => {
      cancelled = true;
      if (timer) clearInterval(timer);
    };
  }, [data.artifactId, data.kind, live]);

  // A stored live surface renders once its bindings are known, so every Query() goes to the server.
  const ready = !live || !data.artifactId || artifact !== null || unstored;
  const failed = Object.values(events).filter((e) => e.error);
  const bound = artifact?.bindings.queries.length ?? 0;
  const hydrated = artifact !== null && bound > 0 && failed.length === 0 &&
    artifact.bindings.queries.every((q) => events[q.handle]?.receipt?.match);

  useEffect(() => {
    if (!hydrated || state === 'hydrated' || state !== 'painted') return;
    acknowledge(threadId, data.surfaceId, 'hydrated').then((r) => setState(r.state)).catch(() => {});
  }, [hydrated, state, threadId, data.surfaceId]);

  useEffect(() => setState(data.state), [data.state]);

  useEffect(() => {
    if (!live || state === 'painted' || state === 'hydrated') return;
    let cancelled = false;
    // Two frames: the renderer's output is in the DOM and has been laid out.
    const id = requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        if (cancelled || !box.current || box.current.childElementCount === 0) return;
        // The answer is the stored state, whichever render asked: it is shown even when this
        // effect was re-run meanwhile (the post is not sent again).
        acknowledge(threadId, data.surfaceId, 'painted').then((r) => setState(r.state)).catch(() => {});
      }),
    );
    return () => {
      cancelled = true;
      cancelAnimationFrame(id);
    };
  }, [live, state, threadId, data.surfaceId, ready]);

  return (
    <figure className="surface" data-surface={data.surfaceId} data-state={state}>
      <div className="surface-body" ref={box}>
        {ready && <Renderer key={`${artifact?.version ?? 0}:${generation}`} response={data.kind === 'live_app' && artifact ? artifact.body : data.program} library={library} toolProvider={toolProvider} isStreaming={false} />}
      </div>
      {failed.map((e) => (
        <p key={e.handle} className="surface-error" role="alert" data-code={e.error!.code}>
          {e.error!.code}: {e.error!.message}
        </p>
      ))}
      <figcaption>
        <Badge label={state} tone={state === 'painted' || state === 'hydrated' ? 'good' : 'info'} title="truth state of this surface" />
        <span>
          {!live
            ? 'static surface · no acknowledgement owed'
            : artifact
              ? `live surface · re-executed (${data.kind}${data.appSlug ? ' ' + data.appSlug : ''}, v${artifact.version})`
              : 'live surface · data from this turn’s evidence'}
        </span>
      </figcaption>
    </figure>
  );
}
