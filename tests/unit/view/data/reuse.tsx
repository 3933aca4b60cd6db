// Re-rendering from caches: which components are called again, and that what is replayed is
// still right (handlers, contexts, keyed paths, failures, frozen props).
import { useState, useContext, createContext, asChatTools } from "affordance";

function List({ items }: { items: string[] }) {
  return <list>{items.map((s) => <box key={s}>{s}</box>)}</list>;
}

function Counter() {
  const [n, setN] = useState(0);
  return <button label="inc" onClick={() => setN(n + 1)}>count={n}</button>;
}

export function App({ title, items }: { title: string; items: string[] }) {
  return (
    <box>
      {title}
      <List items={items} />
      <Counter />
    </box>
  );
}

const Theme = createContext("plain");

function Leaf() {
  return <box>theme={useContext(Theme)}</box>;
}
function Middle() {
  return <box><Leaf /></box>;
}
export function Themed({ theme, title }: { theme: string; title: string }) {
  return <Theme.Provider value={theme}>{title}<Middle /></Theme.Provider>;
}

function Sorter({ items }: { items: number[] }) {
  items.sort();  // mutates its props: frozen, so this throws
  return <box>{items.join(",")}</box>;
}
export function Mutates({ items }: { items: number[] }) {
  return <Sorter items={items} />;
}

function Fragile({ fail }: { fail: boolean }) {
  if (fail) throw new Error("fragile failed");
  return <box>fine</box>;
}
function Spinner({ spin }: { spin: boolean }) {
  while (spin) {}
  return <box>still</box>;
}
export function Failing({ fail, spin, title }: { fail: boolean; spin: boolean; title: string }) {
  return <box>{title}<Counter /><Fragile fail={fail} /><Spinner spin={spin} /></box>;
}

// Two children with the same key: the second gets a "~1" path, which depends on render order.
function Named({ name }: { name: string }) {
  const [clicks, setClicks] = useState(0);
  return <button label={name} onClick={() => setClicks(clicks + 1)}>{name}:{clicks}</button>;
}
export function Duplicates({ names }: { names: string[] }) {
  return <box>{names.map((n) => <Named key="same" name={n} />)}</box>;
}

function Wrapper({ question, children }: { question: string; children?: any }) {
  const { tree, tools } = asChatTools(children);
  return <box>{question} tools={tools.length}{tree}</box>;
}
export function Wrapped({ question }: { question: string }) {
  return <Wrapper question={question}><Counter key="c" /></Wrapper>;
}

// An app whose actions change: a second button shows after the first click.
function Growing() {
  const [n, setN] = useState(0);
  return (
    <box>
      <button label="inc" onClick={() => setN(n + 1)}>n={n}</button>
      {n > 0 ? <button label="reset" onClick={() => setN(0)}>reset</button> : null}
    </box>
  );
}
export function WrappedGrowing({ question }: { question: string }) {
  return <Wrapper question={question}><Growing key="g" /></Wrapper>;
}

// A long output replayed as it is (more items than one native call takes as arguments).
function Runs({ n }: { n: number }) {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(i % 10 === 9 ? "9\n" : String(i % 10));
  return <>{out}</>;
}
export function ManyRuns({ n, title }: { n: number; title: string }) {
  return <>{title}<Runs n={n} /></>;
}
