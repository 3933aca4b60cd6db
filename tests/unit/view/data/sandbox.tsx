// Each sandbox case in one component, selected by a prop.
import { useState } from "affordance";

let renders = 0;

export function Sandbox({ mode }: { mode: string }) {
  const [n, setN] = useState(0);
  renders++;
  if (mode === "loop") {
    while (true) {}
  }
  if (mode === "memory") {
    const hoard: number[][] = [];
    while (true) hoard.push(new Array(100000).fill(1));
  }
  if (mode === "recursion") {
    const f = (k: number): number => f(k + 1) + 1;
    f(0);
  }
  if (mode === "globals") {
    const g = globalThis as any;
    return <box>{["require", "process", "setTimeout", "setInterval", "fetch", "std", "os",
                  "XMLHttpRequest", "scriptArgs", "print"].map((k) => k + ":" + typeof g[k]).join(",")}</box>;
  }
  if (mode === "leak") {
    (globalThis as any).shared = "from one view";
  }
  return (
    <box>
      n={n} renders={renders} shared={String((globalThis as any).shared)}
      <button label="inc" onClick={() => setN(n + 1)} />
      <button label="spin" onClick={() => { while (true) {} }} />
      <button label="bomb" onClick={() => { const hoard: string[] = []; while (true) hoard.push("x".repeat(65536) + hoard.length); }} />
      <button label="import" onClick={async () => { await import("os"); }} />
    </box>
  );
}
