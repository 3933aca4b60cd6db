import { fromB } from "./tdz_b";

export const early = "a";

export function Tdz() {
  return <box>{fromB}</box>;
}
