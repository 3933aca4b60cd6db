// The notebook in the Qwen3-Instruct-2507 chat format.
import { Notebook } from "./notebook_app.tsx";
import { Qwen3App } from "../adapters/qwen3.tsx";

export default function NotebookChat({ numbers, question }: { numbers: number[]; question: string }) {
  const app = <Notebook key="notebook" numbers={numbers} budget={48}/>;
  return <Qwen3App question={question}>{app}</Qwen3App>;
}
