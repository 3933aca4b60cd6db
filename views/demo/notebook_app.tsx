// The notebook: a scrollable list of numbers and a notes input. A native app: no control tokens,
// no tool table; wrappers (views/adapters) put it into a chat format.
//
// Actions: scroll__numbers ({ offset }) moves the window; change__notes ({ value }) replaces the
// notes. The list shows one number per line from the offset, within `budget` tokens; "…" marks
// that more rows follow.
import { useState } from "affordance";

export interface NotebookProps {
  numbers: number[];
  budget?: number;
}

export function Notebook({ numbers, budget = 48 }: NotebookProps) {
  const [offset, setOffset] = useState(0);
  const [notes, setNotes] = useState("");
  const last = Math.max(0, numbers.length - 1);
  return (
    <box>
      {"Numbers " + (numbers.length === 0 ? "(none)" : `(${Math.min(offset + 1, numbers.length)}-${numbers.length} of ${numbers.length}):`) + "\n"}
      <scroll label="numbers" offset={offset} budget={budget} marker={"…\n"}
              onScroll={({ offset }: { offset: number }) => setOffset(Math.max(0, Math.min(last, Math.floor(Number(offset) || 0))))}>
        {numbers.map((n) => `${n}\n`)}
      </scroll>
      <input label="notes" value={notes} onChange={({ value }: { value: string }) => setNotes(String(value))} />
    </box>
  );
}
