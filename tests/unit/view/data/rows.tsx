// A component that re-runs on every action and rebuilds a long list of rows (as the notebook
// demo does): the re-rendered scroll's unchanged rows keep their conversion.
import { useState } from "affordance";

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
