// The harness's prompt frame: what the model reads at every step of a turn.
//
// The harness (src/harness/frame.cpp) renders this view with the app renderer, so token-native
// providers receive exact IDs in the bound model's chat format (ModelChat picks Qwen3App or
// Llama31App from the view's encoder):
//
//   stable head   the system text (identity, tool law, OpenUI Lang digest) and the resident tool
//                 schemas: identical tokens at every step and turn of a thread
//   transcript    earlier turns as persisted: each turn's reality block and user words, the model's
//                 sampled token IDs (never re-serialized), tool results as untrusted evidence
//   mounted apps  (children) native TSX apps laid out by asChatTools as the last user turn; their
//                 visible actions are projected as tools and dispatched back through `act`, and
//                 their schemas are disclosed in that turn (appToolsInTurn), not in the head: an
//                 app whose actions change as it is used changes only the tail of the prompt
//
// The reality block travels with the newest user turn (the harness writes it into `history`), so
// the tokens of earlier turns never change and the prefix cache survives across turns.
import { type Node } from "affordance";
import { ModelChat } from "@lib/model";
import { type HistoryTurn } from "@lib/chat";

export interface FrameProps {
  /** The stable head's system text. */
  system: string;
  /** The resident tools, OpenAI-style objects, in declaration order. */
  tools: object[];
  history: HistoryTurn[];
  children?: Node;
}

export function Frame({ system, tools, history, children }: FrameProps) {
  return (
    <ModelChat system={system} tools={tools} history={history} appToolsInTurn={true}>
      {children}
    </ModelChat>
  );
}

/** One mounted app under a heading line that names it. */
export function MountedApp({ name, children }: { name: string; children?: Node }) {
  return (
    <box>
      {"App \"" + name + "\":\n"}
      {children}
    </box>
  );
}

export default Frame;
