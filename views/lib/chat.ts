// Props shared by the chat-format wrappers (views/adapters/*.tsx).
import type { Node } from "affordance";

/** One turn of history, oldest first. */
export type HistoryTurn =
  /** What the model sampled, re-emitted from its original token IDs (never re-serialized). */
  | { role: "assistant"; tokens: number[] }
  /** Assistant text written by the app (encoded as one run). */
  | { role: "assistant"; content: string }
  /** A tool result (a string, or JSON for structured results). */
  | { role: "tool"; content: unknown }
  | { role: "user"; content: string };

export interface ChatAppProps {
  /** The system prompt text (optional). */
  system?: string;
  /** The user's question: a user turn before the history. */
  question?: string;
  history?: HistoryTurn[];
  /** false: a preview; tools are declared but the model cannot call them. */
  callable?: boolean;
  /**
   * Tools that are not the app's (a harness's resident tools): OpenAI-style tool objects
   * ({type: "function", function: {name, description?, parameters}}), declared before the app's
   * projected tools, in this order. Not dispatched through the app: the caller executes them.
   */
  tools?: readonly object[];
  /**
   * true: the app's projected tools are disclosed in the app turn, after its tree, instead of in
   * the tool section, so the tokens before the app turn stay the same when the app's visible
   * actions change (a harness frame whose engine keeps a prefix cache). Only with `tools`: without
   * them there is no tool section (nor call format) to keep, and the template's layout is used.
   * false or absent: the official template's layout, every tool in the tool section.
   */
  appToolsInTurn?: boolean;
  /**
   * The app: laid out by asChatTools and emitted as the last user turn. Without children there is
   * no app turn: the history's last turn is followed by the generation prompt (a harness frame).
   */
  children?: Node;
}

export function checkHistory(history: unknown): HistoryTurn[] {
  if (history === undefined || history === null) return [];
  if (!Array.isArray(history)) throw new TypeError("history must be an array of turns");
  history.forEach((t, i) => {
    const ok =
      t !== null && typeof t === "object" &&
      ((t.role === "assistant" && (Array.isArray(t.tokens) || typeof t.content === "string")) ||
        (t.role === "user" && typeof t.content === "string") ||
        (t.role === "tool" && t.content !== undefined));
    if (!ok) {
      throw new TypeError(
        `history[${i}] must be {role:"assistant", tokens:number[]}, {role:"assistant"|"user", ` +
          `content:string} or {role:"tool", content}`,
      );
    }
  });
  return history as HistoryTurn[];
}

const NO_TOOLS: readonly object[] = Object.freeze([]);

/** Checks the `tools` prop: an array of OpenAI-style tool objects (or undefined: the same frozen
 * empty array every time, so memos keyed on it hold). */
export function checkTools(tools: unknown): readonly object[] {
  if (tools === undefined || tools === null) return NO_TOOLS;
  if (!Array.isArray(tools)) throw new TypeError("tools must be an array of tool objects");
  tools.forEach((t, i) => {
    const f = t !== null && typeof t === "object" ? (t as { function?: { name?: unknown } }).function : undefined;
    if (!(f && typeof f === "object" && typeof f.name === "string" && f.name.length > 0)) {
      throw new TypeError(`tools[${i}] must be {type: "function", function: {name, parameters}}`);
    }
  });
  return tools;
}

// Python's str.isspace() characters: what Jinja2's `trim` filter (str.strip()) removes.
const PY_WHITESPACE =
  "\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006" +
  "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000";

/** The `trim` filter of the official chat templates as HF renders them (Jinja2: Python's
 * str.strip(), leading and trailing Unicode whitespace as str.isspace() defines it). For message
 * text only: app trees keep their native whitespace. */
export function templateTrim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && PY_WHITESPACE.includes(text[start])) start++;
  while (end > start && PY_WHITESPACE.includes(text[end - 1])) end--;
  return text.slice(start, end);
}
