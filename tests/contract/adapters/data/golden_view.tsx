// Renders one golden case of tests/golden/adapters/*.json through the real wrappers: the case's
// app body (a small tree of text runs and intrinsic elements) becomes JSX with fixed handler
// shapes, wrapped by Qwen3App or Llama31App with the case's system, question, history and date.
import { Qwen3App } from "../../../../views/adapters/qwen3.tsx";
import { Llama31App } from "../../../../views/adapters/llama31.tsx";
import { asChatTools } from "affordance";

const handlers: Record<string, Function> = {
  onChange: ({ value }: { value: string }) => value,
  onClick: () => undefined,
  onSubmit: ({ text, mode = "append" }: { text: string; mode?: string }) => [text, mode],
  onReset: () => {
    throw new Error("reset is broken");
  },
};

function build(node: any): any {
  if (typeof node === "string") return node;
  if (Array.isArray(node)) return node.map(build);
  const props: Record<string, unknown> = { ...(node.props ?? {}) };
  for (const event of node.handlers ?? []) props[event] = handlers[event];
  return h(node.type, props, ...(node.children ?? []).map(build));
}

// Assistant turns from the IDs the model sampled; with `c.app_written`, assistant text turns are
// given as text the app wrote instead (encoded by the wrapper, trimmed as the template does).
function history(c: any) {
  return (c.history ?? []).map((t: any) =>
    t.role !== "assistant" ? { role: t.role, content: t.content }
    : c.app_written && typeof t.content === "string" ? { role: "assistant", content: t.content }
    : { role: "assistant", tokens: t.tokens });
}

export function GoldenQwen({ c }: { c: any }) {
  return (
    <Qwen3App system={c.system} question={c.question} history={history(c)} callable={c.callable}
              tools={c.own_tools} appToolsInTurn={c.app_tools_in_turn}>
      {build(c.body)}
    </Qwen3App>
  );
}

export function GoldenLlama({ c }: { c: any }) {
  return (
    <Llama31App system={c.system} question={c.question} history={history(c)} date={c.date}
                tools={c.own_tools} appToolsInTurn={c.app_tools_in_turn}>
      {build(c.body)}
    </Llama31App>
  );
}

// A wrapper that wrongly crops the projected tree from outside asChatTools.
export function CroppingWrapper({ c }: { c: any }) {
  const { tree } = asChatTools(build(c.body));
  return <box budget={c.crop}>{"header\n"}{tree}</box>;
}
