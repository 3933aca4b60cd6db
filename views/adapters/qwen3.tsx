// Qwen3App: the Qwen3-Instruct-2507 chat format around a native app.
//
// It lays out its children with asChatTools (budgets inside the app, visible actions projected),
// then writes, exactly as the official template does for turns without reasoning:
//   [<|im_start|>system\n{system}\n\n# Tools ...{tool JSON per line}...<|im_end|>\n]   (tools or system)
//   <|im_start|>user\n{question}<|im_end|>\n                                          (question)
//   history: user turns; assistant turns from their sampled IDs; consecutive tool results merged
//            into one user turn of <tool_response> blocks
//   <|im_start|>user\n{app tree IDs}<|im_end|>\n   (when there are children)
//   <|im_start|>assistant\n
// `tools` (tool objects that are not the app's, e.g. a harness's resident tools) come before the
// app's projected tools in the tool section. With `appToolsInTurn` (and `tools`), the tool section
// holds only `tools` and the app's tools follow its tree in the app turn, in the same <tools>
// form (APP_TOOLS_HEAD), so an app whose actions change changes only the app turn.
// Protocol tokens are <token> elements (resolved against the view's encoder only when emitted)
// and every stretch of text between two of them is one run, so the protocol text tokenizes as the
// template's flat string does. Tool objects are serialized like the template's `tojson`. The
// system/tool section and protocol tokens are outside every app budget. The app's own runs stay
// native (hard tokenization boundaries): see docs/ADAPTERS.md.
import { asChatTools, useMemo } from "affordance";
import { pyJson } from "@lib/json";
import { checkHistory, checkTools, type ChatAppProps } from "@lib/chat";

const TOOLS_HEAD =
  "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n" +
  "You are provided with function signatures within <tools></tools> XML tags:\n<tools>";
const TOOLS_TAIL =
  "\n</tools>\n\nFor each function call, return a json object with function name and arguments within ";

// The app's tools in the app turn (appToolsInTurn): one run after the tree.
const APP_TOOLS_HEAD =
  "\n\n# App tools\n\nThe app above is operated with these functions, called like the tools " +
  "above; only the ones listed here can be called now:\n<tools>";
const APP_TOOLS_TAIL = "\n</tools>";

const imStart = () => <token name="<|im_start|>" />;
const imEnd = () => <token name="<|im_end|>" />;
const tok = (name: string) => <token name={name} />;

export function Qwen3App(
  { system, question, history, callable, tools: own, appToolsInTurn, children }: ChatAppProps,
) {
  const turns = checkHistory(history);
  const ownTools = checkTools(own);
  const { tree, tools: appTools } = asChatTools(children, { callable: callable !== false });
  const inTurn = appToolsInTurn === true && ownTools.length > 0;
  const tools = inTurn ? ownTools : ownTools.length > 0 ? [...ownTools, ...appTools] : appTools;
  // Unchanged tools are the same (frozen) objects as last render: their JSON is written once.
  const toolText = useMemo(() => tools.map((t) => "\n" + pyJson(t)).join(""), [ownTools, appTools, inTurn]);
  const appToolText = useMemo(
    () => (inTurn && appTools.length > 0
      ? APP_TOOLS_HEAD + appTools.map((t) => "\n" + pyJson(t)).join("") + APP_TOOLS_TAIL : ""),
    [appTools, inTurn],
  );
  const out: unknown[] = [];
  if (tools.length > 0) {
    out.push(
      imStart(),
      "system\n" + (system !== undefined ? system + "\n\n" : "") + TOOLS_HEAD +
        toolText + TOOLS_TAIL,
      tok("<tool_call>"), tok("</tool_call>"), " XML tags:\n",
      tok("<tool_call>"), '\n{"name": <function-name>, "arguments": <args-json-object>}\n',
      tok("</tool_call>"), imEnd(), "\n",
    );
  } else if (system !== undefined) {
    out.push(imStart(), "system\n" + system, imEnd(), "\n");
  }
  if (question !== undefined) out.push(imStart(), "user\n" + question, imEnd(), "\n");
  turns.forEach((turn, i) => {
    if (turn.role === "tool") {
      const first = i === 0 || turns[i - 1].role !== "tool";
      const last = i === turns.length - 1 || turns[i + 1].role !== "tool";
      const content = typeof turn.content === "string" ? turn.content : pyJson(turn.content);
      out.push(...(first ? [imStart(), "user\n"] : ["\n"]));
      out.push(tok("<tool_response>"), "\n" + content + "\n", tok("</tool_response>"));
      if (last) out.push(imEnd(), "\n");
    } else if (turn.role === "assistant" && "tokens" in turn) {
      out.push(imStart(), "assistant\n", <ids value={turn.tokens} />, imEnd(), "\n");
    } else {
      out.push(imStart(), turn.role + "\n" + turn.content, imEnd(), "\n");
    }
  });
  if (children !== undefined && children !== null) {
    out.push(imStart(), "user\n", tree, ...(appToolText ? [appToolText] : []), imEnd(), "\n");
  }
  out.push(imStart(), "assistant\n");
  return <>{out}</>;
}
