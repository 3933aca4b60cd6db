// The UI messages this client renders (docs/SERVER.md): the AI SDK's UIMessage with the data parts
// our server streams and persists. Tool inputs and outputs stay unknown: every tool has its own.
import type { DynamicToolUIPart, ToolUIPart, UIMessage } from 'ai';

// data-truth: the truth state of one tool call and where its data came from.
export type TruthData = { toolCallId?: string; state?: string; dataState?: string };

// data-approval: the outcome of a decided write (staged -> approved -> executed -> verified).
export type ApprovalData = { toolCallId?: string; state?: string; truth?: string };

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

// data-turn: the outcome of a response.
export type TurnData = { status?: string; steps?: unknown[] | number; truth?: { weakestEvidence?: string } };

export type ChatMessage = UIMessage<unknown, { truth: TruthData; approval: ApprovalData; surface: SurfaceData; turn: TurnData }>;
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
