// Effects after commit, cleanups on change and unmount, effects that set state.
import { useState, useEffect } from "affordance";

const events: string[] = [];

function Child({ id }: { id: number }) {
  useEffect(() => {
    events.push("mount " + id);
    return () => events.push("cleanup " + id);
  }, [id]);
  return <box>child {id}</box>;
}

export function Effects({ show, id }: { show: boolean; id: number }) {
  const [n, setN] = useState(0);
  const [loaded, setLoaded] = useState(false);
  useEffect(() => {
    events.push("effect n=" + n);
  }, [n]);
  useEffect(() => {
    setLoaded(true);
  }, []);
  return (
    <box>
      {show ? <Child id={id} /> : null}
      <box>loaded={String(loaded)} events={events.join("|")}</box>
      <button label="inc" onClick={() => setN(n + 1)} />
    </box>
  );
}

export function Forever() {
  const [n, setN] = useState(0);
  useEffect(() => setN(n + 1));
  return <box>{n}</box>;
}

export function BadEffect() {
  useEffect(() => {
    throw new Error("effect failed");
  }, []);
  return <box>x</box>;
}
