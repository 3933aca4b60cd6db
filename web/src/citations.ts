// Evidence chips: a text part's text cut into plain runs and cited runs ([r3], [r1, r3]) from the
// citations the server resolved (the AI SDK's text-part `citations`), and the words a chip says
// about what it cites. The citations come over the wire, so every one is checked against the text:
// a range that is out of bounds, not integral, overlapping another, or whose slice is not its
// citedText is dropped and its text shows as written, never lost or repeated.
import { isObject, type JsonObject } from './json';
import type { CitationClass, CitationFacts } from './parts';

// One cited reference of a run: its ref ("r3") and what the server said it points to.
export type CitedRef = { ref: string; facts?: CitationFacts };
export type Segment =
  | { kind: 'text'; text: string }
  | { kind: 'cite'; text: string; start: number; end: number; refs: CitedRef[] };

const CLASSES: readonly CitationClass[] = ['source', 'effect', 'unresolved', 'invalid'];

function str(o: JsonObject, k: string): string | undefined {
  const v = o[k];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function num(o: JsonObject, k: string): number | undefined {
  const v = o[k];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

// The facts of one citation (source.providerMetadata.affordance), field by field: a field of the
// wrong type is left out rather than shown wrong. Undefined when there are none or no valid class.
export function factsOf(citation: unknown): CitationFacts | undefined {
  if (!isObject(citation) || !isObject(citation.source)) return undefined;
  const meta = citation.source.providerMetadata;
  const a = isObject(meta) && isObject(meta.affordance) ? meta.affordance : undefined;
  if (!a) return undefined;
  const cls = CLASSES.find((c) => c === a.class);
  const ref = str(a, 'ref') ?? str(citation.source, 'id');
  if (!cls || !ref) return undefined;
  const facts: CitationFacts = { ref, class: cls };
  for (const k of ['toolCallId', 'toolName', 'truth', 'status', 'dataState', 'connector', 'reason'] as const) {
    const v = str(a, k);
    if (v !== undefined) facts[k] = v;
  }
  for (const k of ['syncedAt', 'rows'] as const) {
    const v = num(a, k);
    if (v !== undefined) facts[k] = v;
  }
  return facts;
}

// The chip's class: the server's, or unresolved when it sent none (the UI vouches for nothing
// the server did not report).
export function chipClass(r: CitedRef): CitationClass {
  return r.facts?.class ?? 'unresolved';
}

type Range = { start: number; end: number; refs: CitedRef[] };

// The valid cited ranges of `text`, sorted, one per distinct [start, end), with every entry of it.
function ranges(text: string, citations: readonly unknown[]): Range[] {
  const byRange = new Map<string, Range>();
  for (const c of citations) {
    if (!isObject(c)) continue;
    const { startIndex: start, endIndex: end, citedText } = c;
    if (typeof start !== 'number' || typeof end !== 'number' || !Number.isInteger(start) || !Number.isInteger(end)) continue;
    if (start < 0 || end <= start || end > text.length) continue;
    if (typeof citedText !== 'string' || text.slice(start, end) !== citedText) continue;
    const facts = factsOf(c);
    const ref = facts?.ref ?? (isObject(c.source) ? str(c.source, 'id') : undefined);
    if (!ref) continue;
    const key = `${start}:${end}`;
    const r = byRange.get(key) ?? { start, end, refs: [] };
    // "[r1, r1]" is one reference, shown once.
    if (!r.refs.some((x) => x.ref === ref)) r.refs.push({ ref, facts });
    byRange.set(key, r);
  }
  const sorted = [...byRange.values()].sort((a, b) => a.start - b.start || a.end - b.end);
  // Two ranges that overlap contradict each other: neither is trusted, both show as text.
  const bad = new Set<number>();
  let reach = -1;
  let reacher = -1;
  sorted.forEach((r, i) => {
    if (r.start < reach) {
      bad.add(i);
      bad.add(reacher);
    }
    if (r.end > reach) {
      reach = r.end;
      reacher = i;
    }
  });
  return sorted.filter((_, i) => !bad.has(i));
}

// The text as plain runs and cited runs, in order; their texts joined are exactly `text`.
export function segments(text: string, citations?: readonly unknown[]): Segment[] {
  const out: Segment[] = [];
  let at = 0;
  for (const r of Array.isArray(citations) ? ranges(text, citations) : []) {
    if (r.start > at) out.push({ kind: 'text', text: text.slice(at, r.start) });
    out.push({ kind: 'cite', text: text.slice(r.start, r.end), start: r.start, end: r.end, refs: r.refs });
    at = r.end;
  }
  if (at < text.length || out.length === 0) out.push({ kind: 'text', text: text.slice(at) });
  return out;
}

// The segments cut into paragraphs where the text has a blank line, as `text.split(/\n{2,}/)`
// would: the citations are placed on the whole text first, so a chip lands in its paragraph.
export function paragraphs(text: string, citations?: readonly unknown[]): Segment[][] {
  const paras: Segment[][] = [[]];
  for (const s of segments(text, citations)) {
    if (s.kind === 'cite') {
      paras[paras.length - 1].push(s);
      continue;
    }
    s.text.split(/\n{2,}/).forEach((piece, i) => {
      if (i > 0) paras.push([]);
      if (piece) paras[paras.length - 1].push({ kind: 'text', text: piece });
    });
  }
  return paras;
}

const WHEN = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

// How long ago an epoch-seconds time was, in plain words; a time ahead of `now` (a skewed clock)
// reads as just now.
export function ago(atSeconds: number, now: number = Date.now()): string {
  const s = Math.max(0, now / 1000 - atSeconds);
  if (s < 45) return 'just now';
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min ago`;
  const h = Math.round(s / 3600);
  if (h < 36) return `${h} h ago`;
  const d = Math.round(s / 86400);
  return `${d} day${d === 1 ? '' : 's'} ago`;
}

// The tool part's status, when no truth state says more.
const STATUS_WORDS: Record<string, string> = {
  'output-available': 'done', 'output-error': 'failed', 'output-denied': 'denied',
  'approval-requested': 'waiting for a decision', 'not-run': 'not run', cancelled: 'cancelled', 'input-error': 'bad arguments',
};

function words(s: string): string {
  return s.replaceAll('_', ' ');
}

// The chip's hover title and accessible label: the ref, the tool, the connector, then what the
// call came to: where its data was from and how fresh (source), the write's state (effect), or
// why it does not support the claim (unresolved), e.g.
//   r3 · RunConnectorCommand · calendar · mirrored, synced 12 min ago (12 May 2025, 14:03) · 3 rows
//   r2 · invoke_mutation · denied: the write was denied, nothing ran
//   r9 · points to no tool result
export function citationTitle(r: CitedRef, now: number = Date.now()): string {
  const f = r.facts;
  if (!f) return `${r.ref} · no evidence recorded for this reference`;
  if (f.class === 'invalid') return `${r.ref} · points to no tool result`;
  const parts = [r.ref];
  if (f.toolName) parts.push(f.toolName);
  if (f.connector) parts.push(f.connector);
  const state = f.truth ? words(f.truth) : f.status ? (STATUS_WORDS[f.status] ?? words(f.status)) : '';
  if (f.class === 'unresolved') {
    const why = [state, f.reason].filter(Boolean).join(': ');
    parts.push(why || 'unresolved');
    return parts.join(' · ');
  }
  if (f.class === 'effect' && state) parts.push(state);
  if (f.dataState) {
    let fresh = f.dataState;
    if (f.syncedAt && f.syncedAt > 0 && f.dataState !== 'local') fresh += `, synced ${ago(f.syncedAt, now)} (${WHEN.format(new Date(f.syncedAt * 1000))})`;
    else if (f.dataState === 'mirrored' || f.dataState === 'stale') fresh += ', last sync unknown';
    parts.push(fresh);
  }
  if (f.rows !== undefined && Number.isInteger(f.rows) && f.rows >= 0) parts.push(`${f.rows} row${f.rows === 1 ? '' : 's'}`);
  return parts.join(' · ');
}
