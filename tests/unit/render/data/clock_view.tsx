// Timers inside the real Qwen3 wrapper: a one-shot reminder and a ticking clock (test data for
// timers_test.cpp). `ticking` false unmounts the clock; `bad` renders an interval without a delay.
import { useState } from "affordance";
import { Qwen3App } from "@adapters/qwen3.tsx";

function Clock({ ticking, bad }: { ticking: boolean; bad: boolean }) {
  const [ticks, setTicks] = useState(0);
  const [reminded, setReminded] = useState(false);
  return (
    <box>
      {`ticks: ${ticks}\n`}
      {`reminded: ${reminded}\n`}
      <box label="reminder" timeout={1000} onTimeout={() => setReminded(true)} />
      {ticking ? <box label="clock" interval={500} onInterval={() => setTicks((t) => t + 1)} /> : null}
      {bad ? <box label="broken" onInterval={() => setTicks(0)} /> : null}
      <button label="reset" onClick={() => setTicks(0)} />
    </box>
  );
}

export function ClockChat({ ticking = true, bad = false }: { ticking?: boolean; bad?: boolean }) {
  const app = <Clock key="clock" ticking={ticking} bad={bad} />;
  return <Qwen3App question="What time is it?">{app}</Qwen3App>;
}
