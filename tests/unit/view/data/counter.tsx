// Hooks: state, functional updates, refs, memo, callbacks and handler closures.
import { useState, useRef, useMemo, useCallback } from "affordance";

type Props = { start?: number };

export function Counter({ start = 0 }: Props) {
  const [count, setCount] = useState<number>(start);
  const [log, setLog] = useState<string[]>([]);
  const renders = useRef(0);
  renders.current++;
  const doubled = useMemo(() => count * 2, [count]);
  const add = useCallback(({ by = 1 }: { by?: number }) => {
    setCount((c) => c + by);
    setCount((c) => c + by);
  }, []);
  return (
    <box>
      count={count} doubled={doubled} renders={renders.current} log={log.join(",")}
      <button label="add" onClick={add} />
      <button label="set" onClick={(e: { value: number }) => { setCount(e.value); setLog([...log, "set" + e.value]); }} />
      <input label="note" value={log.join(",")} onChange={({ value, mode = "append" }: { value: string; mode?: string }) => setLog([...log, mode + ":" + value])} />
      <button label="noop" onClick={() => {}} />
      <button label="many" onClick={function (a: number, b: number) { setCount(a + b); }} />
    </box>
  );
}

export default function Conditional({ extra }: { extra: boolean }) {
  const [a] = useState(1);
  if (extra) {
    const [b] = useState(2);
    return <box>{a + b}</box>;
  }
  return <box>{a}</box>;
}
