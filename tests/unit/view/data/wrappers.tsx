// The same app under two different wrappers that call asChatTools.
import { useState, asChatTools, createContext, useContext } from "affordance";

const Theme = createContext("plain");

function Notebook({ title }: { title: string }) {
  const [notes, setNotes] = useState<string[]>([]);
  const theme = useContext(Theme);
  return (
    <box>
      {title}[{theme}]: {notes.join(";")}
      <input label="notes" onChange={({ value }: { value: string }) => setNotes([...notes, value])} />
    </box>
  );
}

function Qwen3App({ children }: { children?: any }) {
  const { tree, tools } = asChatTools(children);
  return <box><token name="<|im_start|>" />qwen tools={tools.length}{tree}</box>;
}

function Llama31App({ children }: { children?: any }) {
  const { tree, tools } = asChatTools(<box>{children}</box>, { callable: false });
  return <list>llama tools={tools.length}{tree}</list>;
}

export function Chat({ format }: { format: string }) {
  const app = <Notebook key="notebook" title="nb" />;
  return (
    <Theme.Provider value="dark">
      {format === "qwen" ? <Qwen3App>{app}</Qwen3App> : <Llama31App>{app}</Llama31App>}
    </Theme.Provider>
  );
}

// Built by each wrapper instead: state is NOT shared (the element's creator differs).
function QwenOwn() {
  return <Qwen3App><Notebook key="notebook" title="in" /></Qwen3App>;
}
function LlamaOwn() {
  return <Llama31App><Notebook key="notebook" title="in" /></Llama31App>;
}
export function Inside({ format }: { format: string }) {
  return format === "qwen" ? <QwenOwn /> : <LlamaOwn />;
}
