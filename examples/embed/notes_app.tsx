// An app in its own folder: a tiny to-do list with a notes field. It imports nothing from the
// affordance source tree; the chat-format wrappers come from wherever affordance is installed
// ("@adapters/..." resolves beside the views/lib folder the running program finds, see
// docs/INSTALL.md).
import { useState } from "affordance";
import { Qwen3App } from "@adapters/qwen3.tsx";
import { Llama31App } from "@adapters/llama31.tsx";

function Todo({ items }: { items: string[] }) {
  const [done, setDone] = useState<string[]>([]);
  const [notes, setNotes] = useState("");
  return (
    <box>
      {"To do:\n"}
      <list budget={64} marker={"…\n"}>
        {items.map((item) => (
          <button key={item} label={item} onClick={() => setDone([...done, item])}>
            {done.includes(item) ? " done\n" : "\n"}
          </button>
        ))}
      </list>
      <input label="notes" value={notes} onChange={({ value }: { value: string }) => setNotes(String(value))} />
    </box>
  );
}

type Props = { items: string[]; question: string; format?: "qwen3" | "llama31" };

export default function TodoChat({ items, question, format = "qwen3" }: Props) {
  const app = <Todo key="todo" items={items} />;
  return format === "llama31"
    ? <Llama31App question={question} date="29 Nov 2026">{app}</Llama31App>
    : <Qwen3App question={question}>{app}</Qwen3App>;
}
