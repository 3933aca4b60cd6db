// Llama31App: the Llama 3.1 Instruct chat format around a native app.
//
// It lays out its children with asChatTools, then writes what the official 3.1 template writes
// (tools in the first user turn, tools_in_user_message's default):
//   <|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n[Environment: ipython\n]
//   Cutting Knowledge Date: December 2023\nToday Date: {date}\n\n{system}<|eot_id|>
//   <|start_header_id|>user<|end_header_id|>\n\n[tool instructions + tojson(indent=4) per tool]
//   {question}<|eot_id|>
//   history: user turns; assistant turns from their sampled IDs; tool results as ipython turns
//            (JSON-quoted, as the template's tojson does)
//   <|start_header_id|>user<|end_header_id|>\n\n{app tree IDs}<|eot_id|>     (when there are children)
//   <|start_header_id|>assistant<|end_header_id|>\n\n
// `tools` (tool objects that are not the app's, e.g. a harness's resident tools) come before the
// app's projected tools. With `appToolsInTurn` (and `tools`), the first user turn's tool section
// holds only `tools` and the app's tools follow its tree in the app turn (APP_TOOLS_HEAD, then
// tojson(indent=4) per tool), so an app whose actions change changes only the app turn.
// `date` is the "Today Date" (default "26 Jul 2024", the template's). As the template does, the
// system text and every user and assistant message (the question too) are trimmed (Jinja's
// `trim`, Python's str.strip(): templateTrim); tool results are JSON-quoted, whitespace kept. Only
// the app tree keeps its native whitespace (docs/ADAPTERS.md).
import { asChatTools, useMemo } from "affordance";
import { pyJson } from "@lib/json";
import { checkHistory, checkTools, templateTrim, type ChatAppProps } from "@lib/chat";

const TOOLS_INTRO =
  "Given the following functions, please respond with a JSON for a function call " +
  "with its proper arguments that best answers the given prompt.\n\n" +
  'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.' +
  "Do not use variables.\n\n";

// The app's tools in the app turn (appToolsInTurn): one run after the tree.
const APP_TOOLS_HEAD =
  "\n\nThe app above is operated with these functions, called like the functions above and in " +
  "the same format; only the ones listed here can be called now.\n\n";

const tok = (name: string) => <token name={name} />;
const header = (role: string) => [tok("<|start_header_id|>"), role, tok("<|end_header_id|>")];

export interface Llama31AppProps extends ChatAppProps {
  date?: string;
}

export function Llama31App(
  { system, question, history, callable, date, tools: own, appToolsInTurn, children }: Llama31AppProps,
) {
  const turns = checkHistory(history);
  const ownTools = checkTools(own);
  const { tree, tools: appTools } = asChatTools(children, { callable: callable !== false });
  const inTurn = appToolsInTurn === true && ownTools.length > 0;
  const tools = inTurn ? ownTools : ownTools.length > 0 ? [...ownTools, ...appTools] : appTools;
  // Unchanged tools are the same (frozen) objects as last render: their JSON is written once.
  const toolText = useMemo(
    () => (tools.length > 0 ? TOOLS_INTRO + tools.map((t) => pyJson(t, 4) + "\n\n").join("") : ""),
    [ownTools, appTools, inTurn],
  );
  const appToolText = useMemo(
    () => (inTurn && appTools.length > 0
      ? APP_TOOLS_HEAD + appTools.map((t) => pyJson(t, 4)).join("\n\n") : ""),
    [appTools, inTurn],
  );
  let toolsPending = tools.length > 0;
  // The first user turn carries the tool section.
  const userHead = () => {
    const head = "\n\n" + (toolsPending ? toolText : "");
    toolsPending = false;
    return head;
  };
  const out: unknown[] = [
    tok("<|begin_of_text|>"), ...header("system"),
    "\n\n" + (tools.length > 0 ? "Environment: ipython\n" : "") +
      "Cutting Knowledge Date: December 2023\nToday Date: " + (date ?? "26 Jul 2024") + "\n\n" +
      templateTrim(system ?? ""),
    tok("<|eot_id|>"),
  ];
  if (question !== undefined) {
    out.push(...header("user"), userHead() + templateTrim(question), tok("<|eot_id|>"));
  }
  for (const turn of turns) {
    if (turn.role === "tool") {
      const content = typeof turn.content === "number" || typeof turn.content === "boolean"
        ? String(turn.content) : pyJson(turn.content);
      out.push(...header("ipython"), "\n\n" + content, tok("<|eot_id|>"));
    } else if (turn.role === "assistant" && "tokens" in turn) {
      out.push(...header("assistant"), "\n\n", <ids value={turn.tokens} />, tok("<|eot_id|>"));
    } else if (turn.role === "user") {
      out.push(...header("user"), userHead() + templateTrim(turn.content), tok("<|eot_id|>"));
    } else {
      out.push(...header("assistant"), "\n\n" + templateTrim(turn.content), tok("<|eot_id|>"));
    }
  }
  if (children !== undefined && children !== null) {
    out.push(...header("user"), userHead(), tree, ...(appToolText ? [appToolText] : []), tok("<|eot_id|>"));
  }
  out.push(...header("assistant"), "\n\n");
  return <>{out}</>;
}
