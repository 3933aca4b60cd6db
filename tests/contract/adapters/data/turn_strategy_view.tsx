// The notebook under <TurnStrategy> (views/lib/turn_strategy.tsx) inside the real Qwen3 wrapper.
import { TurnStrategy } from "@lib/turn_strategy";
import { Qwen3App } from "@adapters/qwen3.tsx";
import { Notebook } from "../../../../views/demo/notebook_app.tsx";

type Props = { numbers: number[]; question: string; callable?: unknown };

export function Callable({ numbers, question }: Props) {
  return <Qwen3App question={question}><Notebook key="nb" numbers={numbers} /></Qwen3App>;
}

export function Strategy({ numbers, question, callable }: Props) {
  const app = <Notebook key="nb" numbers={numbers} />;
  // `callable` as given (undefined: the prop is left out).
  return (
    <Qwen3App question={question}>
      {callable === undefined ? <TurnStrategy>{app}</TurnStrategy>
                              : <TurnStrategy callable={callable as boolean}>{app}</TurnStrategy>}
    </Qwen3App>
  );
}
