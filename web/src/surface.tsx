// A ComposeUI surface inline in the conversation, rendered by @openuidev/react-lang with our
// library. A live surface (one with Query bindings) owes the server a paint acknowledgement: once
// the renderer has drawn it, the UI posts `painted` and shows the state the server stored. Its
// Query() handles are served from the evidence of the same turn (the connector reads whose query
// contracts match), labelled as such: the UI does not claim `hydrated` for data it did not fetch.
import { Renderer } from '@openuidev/react-lang';
import { useEffect, useMemo, useRef, useState } from 'react';
import { api } from './api';
import { library } from './library';
import { Badge } from './message';

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function evidenceProvider(parts: any[]) {
  const byHandle: Record<string, { args: unknown; rows: unknown[] }[]> = {};
  for (const p of parts) {
    if (!(typeof p.type === 'string' && p.type.startsWith('tool-')) || p.state !== 'output-available') continue;
    const out = p.output;
    for (const c of out?.query_contracts ?? []) {
      (byHandle[c.handle] ??= []).push({ args: c.args, rows: out.rows ?? [] });
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

export function Surface({ threadId, data, parts }: { threadId: string; data: any; parts: any[] }) {
  const [state, setState] = useState<string>(data.state);
  const box = useRef<HTMLDivElement>(null);
  const toolProvider = useMemo(() => evidenceProvider(parts), [parts]);
  const live = Boolean(data.live);

  useEffect(() => setState(data.state), [data.state]);

  useEffect(() => {
    if (!live || state === 'painted' || state === 'hydrated') return;
    let cancelled = false;
    // Two frames: the renderer's output is in the DOM and has been laid out.
    const id = requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        if (cancelled || !box.current || box.current.childElementCount === 0) return;
        api.ack(threadId, data.surfaceId, 'painted').then((r) => !cancelled && setState(r.state)).catch(() => {});
      }),
    );
    return () => {
      cancelled = true;
      cancelAnimationFrame(id);
    };
  }, [live, state, threadId, data.surfaceId]);

  return (
    <figure className="surface" data-surface={data.surfaceId} data-state={state}>
      <div className="surface-body" ref={box}>
        <Renderer response={data.program} library={library} toolProvider={toolProvider} isStreaming={false} />
      </div>
      <figcaption>
        <Badge label={state} tone={state === 'painted' || state === 'hydrated' ? 'good' : 'info'} title="truth state of this surface" />
        <span>{live ? 'live surface · data from this turn’s evidence' : 'static surface · no acknowledgement owed'}</span>
      </figcaption>
    </figure>
  );
}
