// Hook state for the snapshot tests (snapshot_test.cpp). `shape` picks a component tree:
// "v1" the original; "renamed" another component at the app's path; "more_hooks" the same
// component calling an extra hook; "dropped" without the Row; "bad" state JSON cannot hold.
import { useState, useReducer, useRef, useMemo } from "affordance";

function Row({ label }: { label: string }) {
  const [checked, setChecked] = useState(false);
  return <button label={label} onClick={() => setChecked(!checked)}>{checked ? "x" : "o"}</button>;
}

function Notes() {
  const [text, setText] = useState("");
  const [count, dispatch] = useReducer((n: number, by: number) => n + by, 0);
  const [missing, setMissing] = useState<string | undefined>(undefined);
  const last = useRef(0);
  const upper = useMemo(() => text.toUpperCase(), [text]);
  last.current = count;
  return (
    <box>
      <input label="notes" value={text} onChange={({ value }: { value: string }) => { setText(value); dispatch(1); }} />
      {`count=${count} upper=${upper} missing=${String(missing)}`}
      <button label="define" onClick={() => setMissing("now")} />
      <Row key="row" label="row" />
    </box>
  );
}

function NotesMoreHooks() {
  const [text, setText] = useState("");
  const [extra] = useState(1);
  return <input label="notes" value={text + extra} onChange={({ value }: { value: string }) => setText(value)} />;
}
Object.defineProperty(NotesMoreHooks, "name", { value: "Notes" });

function Other() {
  const [n] = useState(0);
  return `other ${n}`;
}

function Bad() {
  const [fn, setFn] = useState<unknown>(0);
  return <button label="break" onClick={() => setFn({ when: new Date(0) })}>{String(fn)}</button>;
}

export function Host({ shape = "v1" }: { shape?: string }) {
  const app =
    shape === "renamed" ? <Other key="app" /> :
    shape === "more_hooks" ? <NotesMoreHooks key="app" /> :
    shape === "bad" ? <Bad key="app" /> : <Notes key="app" />;
  return <box>{app}</box>;
}

export function OtherHost({ shape = "v1" }: { shape?: string }) {
  return <list><Notes key="app" /></list>;
}
