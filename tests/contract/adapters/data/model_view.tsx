// Runtime apps picking their chat format from the binding; both stock templates are imported.
import { ModelChat } from "@lib/model";
import { Qwen3App } from "../../../../views/adapters/qwen3.tsx";
import { Notebook } from "../../../../views/demo/notebook_app.tsx";

export function ByBinding({ numbers, question }: { numbers: number[]; question: string }) {
  return <ModelChat question={question} date="29 Nov 2026"><Notebook key="nb" numbers={numbers} /></ModelChat>;
}

export function AlwaysQwen({ numbers, question }: { numbers: number[]; question: string }) {
  return <Qwen3App question={question}><Notebook key="nb" numbers={numbers} /></Qwen3App>;
}
