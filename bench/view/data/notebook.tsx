// A notebook-like view for the view benchmarks (~100 lines): a scrollable list of numbered
// entries, a notes input, a few buttons, a context, memoized derived data and an effect.
import { useState, useMemo, useCallback, useEffect, useRef, createContext, useContext } from "affordance";

type Entry = { id: number; value: number; note: string };
type Props = { numbers: number[]; budget?: number; rows?: number };

const Units = createContext<string>("");

function formatValue(value: number, unit: string): string {
  const fixed = Math.abs(value) >= 1000 ? value.toExponential(2) : value.toFixed(2);
  return unit ? fixed + " " + unit : fixed;
}

function Row({ entry, selected, onPick }: { entry: Entry; selected: boolean; onPick: (id: number) => void }) {
  const unit = useContext(Units);
  return (
    <box>
      {selected ? "> " : "  "}
      #{entry.id}: {formatValue(entry.value, unit)}
      {entry.note ? " (" + entry.note + ")" : null}
      <button label={"pick " + entry.id} onClick={() => onPick(entry.id)} />
    </box>
  );
}

function Summary({ entries }: { entries: Entry[] }) {
  const stats = useMemo(() => {
    let sum = 0;
    let max = -Infinity;
    for (const e of entries) {
      sum += e.value;
      if (e.value > max) max = e.value;
    }
    return { sum, max, mean: entries.length ? sum / entries.length : 0 };
  }, [entries]);
  return (
    <box>
      entries={entries.length} sum={stats.sum.toFixed(2)} max={stats.max.toFixed(2)} mean=
      {stats.mean.toFixed(2)}
    </box>
  );
}

function Notes({ notes, onAdd }: { notes: string[]; onAdd: (text: string) => void }) {
  return (
    <box budget={64}>
      notes:
      <list>
        {notes.map((n, i) => (
          <box key={"n" + i}>- {n}</box>
        ))}
      </list>
      <input label="notes" value="" onChange={({ value }: { value: string }) => onAdd(value)} />
    </box>
  );
}

export function Notebook({ numbers, budget = 48, rows = 8 }: Props) {
  const [selected, setSelected] = useState(-1);
  const [notes, setNotes] = useState<string[]>([]);
  const [offset, setOffset] = useState(0);
  const renders = useRef(0);
  renders.current++;

  const entries = useMemo<Entry[]>(
    () => numbers.map((value, i) => ({ id: i + 1, value, note: i % 5 === 0 ? "checkpoint" : "" })),
    [numbers],
  );
  const pick = useCallback((id: number) => setSelected(id), []);
  const addNote = useCallback((text: string) => setNotes((old) => [...old, text]), []);

  useEffect(() => {
    if (offset > entries.length) setOffset(0);
  }, [offset, entries.length]);

  const visible = entries.slice(offset, offset + rows);
  return (
    <Units.Provider value="ms">
      <box budget={budget}>
        Notebook (render {renders.current})
        <Summary entries={entries} />
        <scroll offset={offset} budget={budget}>
          {visible.map((e) => (
            <Row key={e.id} entry={e} selected={e.id === selected} onPick={pick} />
          ))}
        </scroll>
        <button label="scroll down" onClick={({ by = rows }: { by?: number }) => setOffset((o) => o + by)} />
        <button label="scroll up" onClick={() => setOffset((o) => Math.max(0, o - rows))} />
        <Notes notes={notes} onAdd={addNote} />
      </box>
    </Units.Provider>
  );
}

// 200 intrinsic nodes: 100 rows of a box holding one button, for the tree benchmark.
export function Wide({ n = 100 }: { n?: number }) {
  const [hit, setHit] = useState(0);
  const items = [];
  for (let i = 0; i < n; i++) {
    items.push(
      <box key={i}>
        item {i} of {n}
        <button label={"hit " + i} onClick={() => setHit(i)} />
      </box>,
    );
  }
  return <list>hit={hit}{items}</list>;
}
