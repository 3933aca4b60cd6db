// ModelContext: runtime apps that pick their chat format from the view's encoder binding.
//
//   <ModelChat question={q}>{app}</ModelChat>      // Qwen3App or Llama31App, by the bound model
//
// The stock templates are imported together; none of them resolves a control token at import
// time (their <token> elements resolve during layout), so a template whose tokens the loaded
// encoder lacks errors only if it is rendered ("render.unknown_token").
import { createContext, useContext, modelName, type Component } from "affordance";
import { Qwen3App } from "../adapters/qwen3.tsx";
import { Llama31App, type Llama31AppProps } from "../adapters/llama31.tsx";

export interface ModelBinding {
  /** The registered model name the view is bound to. */
  model: string;
  /** The chat-format wrapper of that model. */
  ChatApp: Component<Llama31AppProps>;
}

/** The stock templates by registered model name. */
export const templates: Record<string, Component<Llama31AppProps>> = {
  "Qwen__Qwen3-4B-Instruct-2507": Qwen3App,
  "meta-llama__Llama-3.1-8B-Instruct": Llama31App,
};

/** The binding for `model` (default: the view's). Throws for a model without a stock template. */
export function bindingFor(model: string = modelName()): ModelBinding {
  const ChatApp = templates[model];
  if (ChatApp === undefined) {
    throw new Error(`no chat template for model "${model}"; known: ${Object.keys(templates).join(", ")}`);
  }
  return { model, ChatApp };
}

/** null: use the view's own binding. A Provider may pin another (e.g. a preview in another format). */
export const ModelContext = createContext<ModelBinding | null>(null);

/** Wraps its children in the chat format of the context's binding, else the view's. */
export function ModelChat(props: Llama31AppProps) {
  const binding = useContext(ModelContext) ?? bindingFor();
  const ChatApp = binding.ChatApp;
  return <ChatApp {...props} />;
}
