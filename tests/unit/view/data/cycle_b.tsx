import { label, CycleA } from "./cycle_a";

export function Exists() {
  return <box>b sees {label} and {typeof CycleA}</box>;
}
