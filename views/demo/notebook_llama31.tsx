// The same notebook in the Llama 3.1 chat format ("Today Date" from the state, else the template's).
import { Notebook } from "./notebook_app.tsx";
import { Llama31App } from "../adapters/llama31.tsx";

export default function NotebookLlama31({ numbers, question, date }: { numbers: number[]; question: string; date?: string }) {
  const app = <Notebook key="notebook" numbers={numbers} budget={48}/>;
  return <Llama31App question={question} date={date}>{app}</Llama31App>;
}
