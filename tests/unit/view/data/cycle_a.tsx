import { Exists } from "./cycle_b";

export const label = "from a";

export function CycleA() {
  return <box><Exists /></box>;
}
