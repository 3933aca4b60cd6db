// One UI message: prose, reasoning, tool activity with truth-state badges, surfaces inline, and
// the turn's outcome. Truth comes only from data-truth / data-surface / data-turn parts: the UI
// never infers a state the server did not report.
import { Fragment, useState } from 'react';
import { Surface } from './surface';
import { canDecide } from './api';
import { isObject } from './json';
import { isToolPart, type ChatMessage, type Part, type ToolPart, type TruthData, type TurnData } from './parts';

const TRUTH_TONE: Record<string, string> = {
  emitted: 'muted', parsed: 'muted', executed: 'info', persisted: 'info',
  painted: 'good', hydrated: 'good', approved: 'good', verified: 'good',
  staged: 'warn', denied: 'bad', execution_outcome_unknown: 'bad', interrupted: 'bad', cancelled: 'warn',
};
const DATA_TONE: Record<string, string> = {
  live: 'good', mirrored: 'info', syncing: 'info', stale: 'warn', empty: 'muted', disconnected: 'bad',
};

export function Badge({ label, tone, title }: { label: string; tone?: string; title?: string }) {
  return (
    <span className={`badge ${tone ?? 'muted'}`} title={title}>
      {label.replaceAll('_', ' ')}
    </span>
  );
}

function Text({ text }: { text: string }) {
  return (
    <div className="prose">
      {text.split(/\n{2,}/).map((p, i) => (
        <p key={i}>{p}</p>
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

function Tool({ part, truth, onApproval }: { part: ToolPart; truth?: TruthData; onApproval: (id: string, ok: boolean) => void }) {
  const [open, setOpen] = useState(false);
  const name = part.type === 'dynamic-tool' ? part.toolName : part.type.slice(5);
  const running = part.state === 'input-streaming' || part.state === 'input-available';
  const failed = part.state === 'output-error' || part.state === 'output-denied';
  return (
    <div className={`tool ${failed ? 'failed' : ''}`} data-tool={name} data-state={part.state}>
      <button className="tool-head" onClick={() => setOpen(!open)} aria-expanded={open}>
        <span className={`tool-icon ${running ? 'spin' : ''}`} aria-hidden>
          {running ? '◌' : failed ? '!' : '✓'}
        </span>
        <span className="tool-name">{name}</span>
        <span className="tool-summary">{summary(part.input)}</span>
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
      {part.state === 'approval-requested' && canDecide() && (
        <div className="approval">
          <span>This write is staged and waits for your decision.</span>
          <button className="primary" onClick={() => onApproval(part.approval?.id, true)}>Approve</button>
          <button onClick={() => onApproval(part.approval?.id, false)}>Deny</button>
        </div>
      )}
      {part.state === 'approval-requested' && !canDecide() && (
        <div className="approval" role="status">
          <span>
            This write is staged and waits for the person's decision. This browser may ask and read but not decide:
            run <code>affordance login-link</code> on the server's machine and open the link it prints.
          </span>
        </div>
      )}
      {part.state === 'approval-responded' && (
        <div className="approval decided" role="status">
          {part.approval?.approved ? 'Approved. It runs once, then is checked by a fresh read.' : 'Denied. Nothing will run.'}
        </div>
      )}
      {part.state === 'output-denied' && <div className="tool-error">Denied: nothing was run.</div>}
      {failed && part.errorText && <div className="tool-error">{part.errorText}</div>}
      {open && (
        <pre className="tool-detail">
          {JSON.stringify(part.state === 'output-available' ? { input: part.input, output: part.output } : { input: part.input }, null, 2)}
        </pre>
      )}
    </div>
  );
}

function TurnFooter({ data }: { data: TurnData }) {
  const weakest = data?.truth?.weakestEvidence;
  const steps = Array.isArray(data?.steps) ? data.steps.length : data?.steps;
  return (
    <div className="turn-footer">
      <Badge label={data?.status ?? 'ended'} tone={data?.status === 'answered' || data?.status === 'surface_composed' ? 'good' : 'warn'} />
      {steps !== undefined && <span>{steps} step{steps === 1 ? '' : 's'}</span>}
      {weakest && (
        <span>
          weakest evidence <Badge label={String(weakest)} tone={DATA_TONE[String(weakest)]} />
        </span>
      )}
    </div>
  );
}

export function Message({
  message, threadId, streaming, onApproval,
}: { message: ChatMessage; threadId: string; streaming: boolean; onApproval: (id: string, ok: boolean) => void }) {
  const parts: Part[] = message.parts ?? [];
  const truth = new Map<string | undefined, TruthData>();
  for (const p of parts) {
    if (p.type === 'data-truth') truth.set(p.id ?? p.data?.toolCallId, p.data);
    // A decided write's outcome (staged -> approved -> executed -> verified, or denied).
    if (p.type === 'data-approval' && p.data?.toolCallId)
      truth.set(p.data.toolCallId, { ...truth.get(p.data.toolCallId), state: p.data.truth || p.data.state });
  }
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
        if (p.type === 'text') return <Text key={i} text={p.text} />;
        if (p.type === 'reasoning')
          return (
            <details key={i} className="reasoning">
              <summary>Reasoning</summary>
              <Text text={p.text} />
            </details>
          );
        if (isToolPart(p))
          return <Tool key={i} part={p} truth={truth.get(p.toolCallId)} onApproval={onApproval} />;
        if (p.type === 'data-surface') return <Surface key={i} threadId={threadId} data={p.data} parts={parts} />;
        // One footer per response: a turn continued after an approval decision shows its last.
        if (p.type === 'data-turn')
          return i === lastTurn ? <TurnFooter key={i} data={p.data} /> : <Fragment key={i} />;
        return <Fragment key={i} />;
      })}
      {streaming && <span className="caret" aria-hidden />}
    </div>
  );
}
