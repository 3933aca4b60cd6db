// Prop conversion, host-run handlers, and values that are not nodes.
import { useState, tokenId } from "affordance";

export function Props({ mode }: { mode: string }) {
  const [ticks, setTicks] = useState(0);
  if (mode === "object") return <box>{{ not: "a node" } as any}</box>;
  if (mode === "token") return <box>{tokenId("<|nope|>")}</box>;
  return (
    <box data={{ list: [1, 2.5, true, null, NaN, "s"], nested: { deep: [{ x: 1 }] }, skip: undefined }}
         big={2 ** 60} neg={-3} flag={false} onRender={undefined} helper={() => 1}>
      ticks={ticks}
      <box label="clock" onTimeout={() => setTicks((t) => t + 1)} timeout={1000} />
      <ids value={[151644, 872]} />
    </box>
  );
}
