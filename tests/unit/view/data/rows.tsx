// A component that re-runs on every action and rebuilds a long list of rows (as the notebook
// demo does): the re-rendered scroll's unchanged rows keep their conversion.
import { useEffect, useRef, useState } from "affordance";

export function Rows({ rows }: { rows: string[] }) {
  const [offset, setOffset] = useState(0);
  const [extra, setExtra] = useState("");
  return (
    <box>
      <scroll label="rows" offset={offset} onScroll={({ offset }: { offset: number }) => setOffset(offset)}>
        {rows.map((r) => `${r}\n`)}
        {extra}
      </scroll>
      <input label="extra" value={extra} onChange={({ value }: { value: string }) => setExtra(value)} />
    </box>
  );
}

// Children that are one array of strings: kept and compared by C++ (host.textRows).
export function TextRows({ rows }: { rows: unknown[] }) {
  const [offset, setOffset] = useState(0);
  return (
    <scroll label="rows" offset={offset} onScroll={({ offset }: { offset: number }) => setOffset(offset)}>
      {rows.map((r) => (typeof r === "string" ? r + "\n" : r))}
    </scroll>
  );
}

// An effect that changes the rows array in place after the render (not through state).
export function MutatedRows({ n }: { n: number }) {
  const rows = useRef<string[]>([]);
  if (rows.current.length === 0) for (let i = 0; i < n; i++) rows.current.push("r" + i + "\n");
  const [, setTick] = useState(0);
  useEffect(() => {
    rows.current.push("added\n");
    rows.current[0] = "changed\n";
  });
  return <scroll label="rows" onScroll={() => setTick((t) => t + 1)}>{rows.current}</scroll>;
}

// Rows that are not a plain array: the frozen prop array itself, or a proxy over a copy whose reads of
// elements are numbered (each element must be read once per render).
export function PropRows({ rows, proxy }: { rows: string[]; proxy: boolean }) {
  const [offset, setOffset] = useState(0);
  let reads = 0;
  const shown = proxy
    ? new Proxy([...rows], {
        get(target, key, receiver) {
          const v = Reflect.get(target, key, receiver);
          return typeof key === "string" && /^[0-9]+$/.test(key) ? v + ":" + ++reads : v;
        },
      })
    : rows;
  return (
    <scroll label="rows" offset={offset} onScroll={({ offset }: { offset: number }) => setOffset(offset)}>
      {shown}
    </scroll>
  );
}
