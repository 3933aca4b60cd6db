// One UI message: prose, reasoning, tool activity with truth-state badges, surfaces inline, and
// the turn's outcome. Truth comes only from data-truth / data-surface / data-turn parts: the UI
// never infers a state the server did not report.
import { Fragment, useState } from 'react';
import { Surface } from './surface';
import { canDecide } from './api';
import { isObject } from './json';
import { visible } from './visible';
import { chipClass, citationTitle, paragraphs, type CitedRef } from './citations';
import { servedNote } from './served';
import { until } from './until';
import {
  isToolPart, type ApprovalData, type ChatMessage, type ClaimClass, type EffectField, type Part, type ToolPart, type TruthData, type TurnData,
} from './parts';

const TRUTH_TONE: Record<string, string> = {
  emitted: 'muted', parsed: 'muted', executed: 'info', persisted: 'info',
  painted: 'good', hydrated: 'good', approved: 'good', verified: 'good',
  staged: 'warn', denied: 'bad', expired: 'bad', refused: 'bad', execution_outcome_unknown: 'bad', interrupted: 'bad', cancelled: 'warn',
};
const DATA_TONE: Record<string, string> = {
  live: 'good', local: 'good', mirrored: 'info', syncing: 'info', stale: 'warn', partial: 'warn', empty: 'muted', disconnected: 'bad',
};

export function Badge({ label, tone, title }: { label: string; tone?: string; title?: string }) {
  return (
    <span className={`badge ${tone ?? 'muted'}`} title={title}>
      {label.replaceAll('_', ' ')}
    </span>
  );
}

// One cited reference as a chip: its ref, toned by what the server resolved it to, with the
// evidence in its title and label (focusable, so a keyboard reaches the same words).
function Chip({ r }: { r: CitedRef }) {
  const cls = chipClass(r);
  const title = citationTitle(r);
  return (
    <span className={`cite cite-${cls}`} data-ref={r.ref} data-class={cls} title={title} aria-label={title} tabIndex={0}>
      {r.ref}
    </span>
  );
}

// Prose, with each resolved citation ([r3], [r1, r3]) as chips in its place. Without citations
// (still streaming, reasoning, an older thread) the text shows as written.
function Text({ text, citations }: { text: string; citations?: readonly unknown[] }) {
  return (
    <div className="prose">
      {paragraphs(text, citations).map((para, i) => (
        <p key={i}>
          {para.map((s, j) =>
            s.kind === 'text' ? (
              <Fragment key={j}>{s.text}</Fragment>
            ) : (
              <span key={j} className="cite-run" data-cited={s.text}>
                {s.refs.map((r) => <Chip key={r.ref} r={r} />)}
              </span>
            ),
          )}
        </p>
      ))}
    </div>
  );
}

function summary(input: unknown): string {
  if (!isObject(input)) return '';
  if (input.connector) {
    const req = input.request;
    const what = typeof req === 'string' ? req : (isObject(req) ? req.operation : undefined) ?? input.operation ?? '';
    return `${input.connector}${what ? ` · ${what}` : ''}`;
  }
  if (input.query) return String(input.query);
  if (input.question) return String(input.question);
  if (input.program) return 'OpenUI Lang program';
  return '';
}

const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'short' });
const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeZone: 'UTC' });
const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

// One value of an effect field, in the person's zone and locale. A date (all-day) has no time.
function fieldValue(kind: EffectField['kind'], v: unknown): string {
  if (v === undefined || v === null) return '—';
  if (typeof v === 'string' && (kind === 'datetime' || kind === 'date')) {
    if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return DATE.format(new Date(v + 'T00:00:00Z'));
    const t = Date.parse(v);
    if (!Number.isNaN(t)) return DATE_TIME.format(new Date(t));
  }
  return visible(typeof v === 'string' ? v : JSON.stringify(v));
}

// An argv as one line a shell would split the same way (connect::ArgvText): a word that is not
// plain is single-quoted.
function argvText(argv: readonly string[]): string {
  const plain = (w: string) => w.length > 0 && [...w].every((c) => {
    const n = c.charCodeAt(0);
    return (n >= 48 && n <= 57) || (n >= 65 && n <= 90) || (n >= 97 && n <= 122) || '-_./=:@,+%'.includes(c);
  });
  return argv.map((w) => (plain(w) ? w : `'${w.split("'").join("'\\''")}'`)).join(' ');
}

function expiry(ms?: number): string {
  if (!ms) return '';
  const left = ms - Date.now();
  if (left <= 0) return `expired ${DATE_TIME.format(new Date(ms))}`;
  return `expires ${DATE_TIME.format(new Date(ms))} (in ${until(left)})`;
}

// What the write will do, before Approve and Deny: the one thing a person decides on. It stays
// after the decision (`decided`), quieter, so the thread keeps what was approved or denied.
function EffectCard({ data, decided }: { data: ApprovalData; decided: boolean }) {
  const e = data.effect;
  if (!e?.summary) return <div className="effect"><p className="effect-summary">This write has no recorded effect; open the call for its arguments.</p></div>;
  const removes = e.verb === 'delete';
  return (
    <div className={`effect ${decided ? 'decided' : ''}`} data-effect={e.verb}>
      <p className="effect-summary">{visible(e.summary)}</p>
      <p className="effect-where">
        in {visible(e.target ?? '')}
        {data.risk && <> · <Badge label={`risk ${data.risk}`} tone={data.risk === 'destructive' ? 'bad' : 'warn'} /></>}
        {data.expiresMs && !decided ? <> · <span className="effect-expiry">{expiry(data.expiresMs)}</span></> : null}
      </p>
      <table className="effect-fields">
        <tbody>
          {(e.fields ?? []).map((f) => (
            <tr key={f.name} className={f.changed ? 'changed' : ''}>
              <th scope="row">{visible(f.label)}</th>
              <td>
                {removes ? (
                  <><s>{fieldValue(f.kind, f.before)}</s> <span className="effect-note">removed</span></>
                ) : f.changed ? (
                  <><s>{fieldValue(f.kind, f.before)}</s> → <strong>{fieldValue(f.kind, f.after)}</strong></>
                ) : (
                  fieldValue(f.kind, f.after ?? f.before)
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {e.argv && e.argv.length > 0 && (
        <p className="effect-argv">runs <code>{visible(argvText(e.argv))}</code></p>
      )}
      {e.before?.error && <p className="effect-note bad">The current values could not be read: {e.before.error}</p>}
      {e.before && e.before.found === false && !e.before.error && (
        <p className="effect-note bad">A fresh read found nothing to change: this would fail or do nothing.</p>
      )}
      <p className="effect-note">
        Times in {ZONE}.{data.digest && <> Request <code title={data.digest}>{data.digest.slice(0, 12)}</code>{decided ? ', as decided.' : ': exactly this runs, once.'}</>}
      </p>
    </div>
  );
}

function Tool({ part, truth, approval, onApproval }: {
  part: ToolPart; truth?: TruthData; approval?: ApprovalData; onApproval: (id: string, ok: boolean) => void;
}) {
  const [open, setOpen] = useState(false);
  const name = part.type === 'dynamic-tool' ? part.toolName : part.type.slice(5);
  const running = part.state === 'input-streaming' || part.state === 'input-available';
  // Closed without running (the turn was cancelled, or an earlier call ended it): said as what it
  // is, not as a failure. The codes are the harness's own (docs/HARNESS.md).
  const unrun = part.state === 'output-error' ? /^harness\.(cancelled|not_run):/.exec(part.errorText ?? '')?.[1] : undefined;
  const failed = !unrun && (part.state === 'output-error' || part.state === 'output-denied');
  const served = part.state === 'output-available' ? servedNote(part.output) : '';
  // Expired undecided (its time or its write grant ran out): closed like a denial, said as itself.
  const expired = approval?.state === 'expired' ||
    (part.state === 'approval-requested' && approval?.expiresMs !== undefined && approval.expiresMs <= Date.now());
  const waiting = part.state === 'approval-requested' && !expired;
  return (
    <div className={`tool ${failed ? 'failed' : ''}`} data-tool={name} data-state={part.state}>
      <button className="tool-head" onClick={() => setOpen(!open)} aria-expanded={open}>
        <span className={`tool-icon ${running ? 'spin' : ''}`} aria-hidden>
          {running ? '◌' : unrun ? '○' : failed ? '!' : '✓'}
        </span>
        <span className="tool-name">{name}</span>
        {truth?.ref && (
          <span className="tool-ref" data-ref={truth.ref} title={`this result's reference: the answer cites it as [${truth.ref}]`}>
            {truth.ref}
          </span>
        )}
        <span className="tool-summary">{summary(part.input)}</span>
        {served && <span className="tool-served" title="what the read served of what the source holds">{served}</span>}
        <span className="badges">
          {(part.state === 'approval-requested' || part.state === 'approval-responded') && (
            <Badge label="staged" tone={TRUTH_TONE.staged} title="a write waiting for a person's decision; nothing has run" />
          )}
          {truth?.state && <Badge label={truth.state} tone={TRUTH_TONE[truth.state]} title="truth state" />}
          {truth?.dataState && (
            <Badge label={truth.dataState} tone={DATA_TONE[truth.dataState]} title="where the data came from" />
          )}
        </span>
      </button>
      {approval?.effect && (
        <EffectCard data={approval} decided={part.state !== 'approval-requested' && part.state !== 'approval-responded'} />
      )}
      {waiting && canDecide() && (
        <div className="approval">
          <span>{approval?.effect ? 'Nothing has run. Decide:' : 'This write is staged and waits for your decision.'}</span>
          <button className="primary" onClick={() => onApproval(part.approval?.id, true)}>Approve</button>
          <button onClick={() => onApproval(part.approval?.id, false)}>Deny</button>
        </div>
      )}
      {waiting && !canDecide() && (
        <div className="approval" role="status">
          <span>
            This write is staged and waits for the person's decision. This browser may ask and read but not decide:
            run <code>affordance login-link</code> on the server's machine and open the link it prints.
          </span>
        </div>
      )}
      {part.state === 'approval-responded' && (!approval?.state || ['pending', 'approved', 'denied'].includes(approval.state)) && (
        <div className="approval decided" role="status">
          {part.approval?.approved ? 'Approved. It runs once, then is checked by a fresh read.' : 'Denied. Nothing will run.'}
        </div>
      )}
      {expired && (
        <div className="tool-error" role="status" data-expired="">
          Expired before anyone decided{approval?.reason ? `: ${approval.reason}` : ''}. Nothing ran; it runs only if staged again.
        </div>
      )}
      {part.state === 'output-denied' && !expired && <div className="tool-error">Denied: nothing was run.</div>}
      {approval?.state === 'refused' && (
        <div className="tool-error" role="status">Refused before it ran: {approval.reason ?? 'no reason recorded'}. Nothing was dispatched.</div>
      )}
      {approval && (approval.state === 'outcome_unknown' || approval.state === 'executing') && part.state !== 'approval-requested' && (
        <div className="tool-error" role="status">
          It was sent, and whether it took effect is not known. Nothing retries it: check with <code>affordance reconcile {approval.approvalId}</code>.
        </div>
      )}
      {unrun && (
        <div className="tool-unrun" role="status">
          {unrun === 'cancelled' ? 'Cancelled' : 'Not run'}: {(part.errorText ?? '').replace(/^harness\.\w+: /, '')}
        </div>
      )}
      {failed && part.errorText && <div className="tool-error">{part.errorText}</div>}
      {open && (
        <pre className="tool-detail">
          {JSON.stringify(part.state === 'output-available' ? { input: part.input, output: part.output } : { input: part.input }, null, 2)}
        </pre>
      )}
    </div>
  );
}

const TURN_TONE: Record<string, string> = {
  answered: 'good', surface_composed: 'good', asked_user: 'info', awaiting_approval: 'warn', cancelled: 'muted',
  interrupted: 'bad', provider_error: 'bad', harness_error: 'bad', step_limit: 'warn', tool_error_limit: 'warn',
  length_limit: 'warn', stopped: 'warn',
};

function TurnFooter({ data, stored }: { data: TurnData; stored?: string }) {
  const weakest = data?.truth?.weakestEvidence;
  const steps = Array.isArray(data?.steps) ? data.steps.length : data?.steps;
  const status = data?.status ?? stored ?? 'unknown';
  const reason = data?.error?.message ? `${data.error.code ? `${data.error.code}: ` : ''}${data.error.message}` : '';
  return (
    <div className="turn-footer">
      <Badge label={status} tone={TURN_TONE[status] ?? 'warn'} title={reason || 'how this response ended'} />
      {reason && <span className="turn-reason" role="status">{reason}</span>}
      {steps !== undefined && <span>{steps} step{steps === 1 ? '' : 's'}</span>}
      {weakest && (
        <span>
          weakest evidence <Badge label={String(weakest)} tone={DATA_TONE[String(weakest)]} />
        </span>
      )}
      <Claims truth={data?.truth} />
    </div>
  );
}

const CLAIM_TITLE: Record<ClaimClass, string> = {
  source: 'cite a call that served data',
  effect: 'cite a write that ran',
  unresolved: 'cite a call that failed, read only part of its items, was refused, denied or expired, did not run, or whose outcome is unknown',
  inference: 'cite nothing: the model\'s own reasoning',
};

// How the response's claims are backed, as the server counted them: zero classes are left out,
// and claims that cite a call that does not back them stand out.
function Claims({ truth }: { truth: TurnData['truth'] }) {
  const counts = truth?.claims;
  const shown = (['source', 'effect', 'unresolved', 'inference'] as const)
    .map((c) => [c, counts?.[c]] as const)
    .filter((e): e is readonly [ClaimClass, number] => typeof e[1] === 'number' && e[1] > 0);
  const invalid = typeof truth?.invalidCitations === 'number' && truth.invalidCitations > 0 ? truth.invalidCitations : 0;
  if (shown.length === 0 && !invalid) return null;
  return (
    <>
      {shown.length > 0 && (
        <span className="turn-claims">
          claims:{' '}
          {shown.map(([c, n], i) => (
            <Fragment key={c}>
              {i > 0 && ' · '}
              {c === 'unresolved' ? (
                <Badge label={`${n} ${c}`} tone="warn" title={`claims that ${CLAIM_TITLE[c]}`} />
              ) : (
                <span title={`claims that ${CLAIM_TITLE[c]}`}>{n} {c}</span>
              )}
            </Fragment>
          ))}
        </span>
      )}
      {invalid > 0 && (
        <Badge label={`${invalid} invalid citation${invalid === 1 ? '' : 's'}`} tone="bad" title="citations that name no tool result of this thread" />
      )}
    </>
  );
}

function statusOf(message: ChatMessage): string | undefined {
  const meta = message.metadata;
  return isObject(meta) && typeof meta.status === 'string' ? meta.status : undefined;
}

export function Message({
  message, threadId, streaming, onApproval,
}: { message: ChatMessage; threadId: string; streaming: boolean; onApproval: (id: string, ok: boolean) => void }) {
  const parts: Part[] = message.parts ?? [];
  const truth = new Map<string | undefined, TruthData>();
  const approvals = new Map<string, ApprovalData>();
  for (const p of parts) {
    if (p.type === 'data-truth') truth.set(p.id ?? p.data?.toolCallId, p.data);
    // A staged write's effect, then its outcome (staged -> approved -> executed -> verified, or
    // denied): the latest state wins, the effect the person saw stays.
    if (p.type === 'data-approval' && p.data?.toolCallId) {
      const call = p.data.toolCallId;
      const seen = approvals.get(call);
      approvals.set(call, { ...seen, ...p.data, truth: p.data.truth, effect: p.data.effect ?? seen?.effect });
    }
  }
  // A write's outcome is later evidence than the call's own truth part, wherever it sits.
  for (const [call, a] of approvals) truth.set(call, { ...truth.get(call), state: a.truth || a.state });
  const lastTurn = parts.findLastIndex((p) => p.type === 'data-turn');
  if (message.role === 'user') {
    const text = parts.filter((p) => p.type === 'text').map((p) => p.text).join('\n');
    return (
      <div className="message user">
        <div className="bubble">{text}</div>
      </div>
    );
  }
  return (
    <div className={`message assistant ${streaming ? 'streaming' : ''}`}>
      {parts.map((p, i) => {
        if (p.type === 'text') return <Text key={i} text={p.text} citations={p.citations} />;
        if (p.type === 'reasoning')
          return (
            <details key={i} className="reasoning">
              <summary>Reasoning</summary>
              <Text text={p.text} />
            </details>
          );
        if (isToolPart(p))
          return <Tool key={i} part={p} truth={truth.get(p.toolCallId)} approval={approvals.get(p.toolCallId)} onApproval={onApproval} />;
        if (p.type === 'data-surface') return <Surface key={i} threadId={threadId} data={p.data} parts={parts} />;
        // One footer per response: a turn continued after an approval decision shows its last.
        if (p.type === 'data-turn')
          return i === lastTurn ? <TurnFooter key={i} data={p.data} stored={statusOf(message)} /> : <Fragment key={i} />;
        return <Fragment key={i} />;
      })}
      {streaming && <span className="caret" aria-hidden />}
    </div>
  );
}
