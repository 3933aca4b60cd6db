// The UI messages this client renders (docs/SERVER.md): the AI SDK's UIMessage with the data parts
// our server streams and persists. Tool inputs and outputs stay unknown: every tool has its own.
import type { DynamicToolUIPart, ToolUIPart, UIMessage } from 'ai';

// data-truth: the truth state of one tool call and where its data came from.
// `ref`: the reference of the call's result, which citations in the prose name ("r3").
export type TruthData = { toolCallId?: string; state?: string; dataState?: string; ref?: string };

// One field of a staged write's effect: what it is now (`before`, from a fresh read) and what it
// becomes (`after`); times are ISO 8601 UTC, shown in the person's zone.
export type EffectField = {
  name: string; label: string; kind: 'text' | 'datetime' | 'date' | 'number' | 'boolean' | 'json';
  before?: unknown; after?: unknown; changed?: boolean;
};

// What a staged write will do, computed from the connector's mutation contract and the exact
// arguments (connect/effect.h), never from the model's prose.
export type Effect = {
  verb?: string; summary?: string; target?: string; fields?: EffectField[];
  before?: { read?: string; found?: boolean; error?: string; atMs?: number };
  argv?: string[];  // a printed CLI's exact argv (connect::MutationArgv)
};

// data-approval: a staged write (its effect, digest and expiry) and later its outcome
// (staged -> approved -> executed -> verified, or denied, refused, outcome unknown).
export type ApprovalData = {
  toolCallId?: string; approvalId?: string; state?: string; truth?: string; risk?: string;
  effect?: Effect; digest?: string; expiresMs?: number; args?: unknown; reason?: string;
};

// data-surface: a composed surface and the truth state the server stored for it.
export type SurfaceData = {
  surfaceId: string;
  state: string;
  program: string;
  kind?: string;
  appSlug?: string;
  live?: boolean;
  artifactId?: string;
  version?: number;
};

// What a cited reference ([r3]) points to, as the server resolved it: sent on a text part's
// citation as source.providerMetadata.affordance, and as the transient data-citation chunk.
// source: the call served data; effect: its write executed or verified; unresolved: it failed,
// was refused or denied, did not run, or its outcome is unknown; invalid: it names no tool result.
export type CitationClass = 'source' | 'effect' | 'unresolved' | 'invalid';
export type CitationFacts = {
  ref: string; class: CitationClass; toolCallId?: string; toolName?: string;
  truth?: string; status?: string; dataState?: string; connector?: string;
  syncedAt?: number; rows?: number; reason?: string;
};

// A claim of the response: a sentence the server classed by what it cites (inference: not cited).
export type ClaimClass = 'source' | 'effect' | 'unresolved' | 'inference';
export type ClaimCounts = Record<ClaimClass, number>;
export type Claim = { class: ClaimClass; text: string; refs: string[]; invalid?: string[] };

// data-turn: the outcome of a response.
export type TurnData = {
  status?: string; steps?: unknown[] | number;
  truth?: { weakestEvidence?: string; claims?: Partial<ClaimCounts>; invalidCitations?: number };
  claims?: Claim[];
  error?: { code?: string; message?: string };
};

export type ChatMessage = UIMessage<unknown, {
  truth: TruthData; approval: ApprovalData; surface: SurfaceData; turn: TurnData; citation: CitationFacts;
}>;
export type Part = ChatMessage['parts'][number];
export type ToolPart = ToolUIPart | DynamicToolUIPart;

// A tool call of a tool the client knows by name (`tool-<name>`).
export function isStaticToolPart(p: Part): p is ToolUIPart {
  return typeof p.type === 'string' && p.type.startsWith('tool-');
}

// Any tool call: a named one or a dynamic one.
export function isToolPart(p: Part): p is ToolPart {
  return p.type.startsWith('tool-') || p.type === 'dynamic-tool';
}
