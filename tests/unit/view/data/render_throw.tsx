import { useState } from "affordance";

function Item({ text }: { text: string }) {
  if (text === "bad") throw new Error("cannot render " + text);
  return <box>{text}</box>;
}

export function Items({ items }: { items: string[] }) {
  const [clicks, setClicks] = useState(0);
  return (
    <list>
      clicks={clicks}
      {items.map((t) => <Item key={t} text={t} />)}
      <button label="click" onClick={() => setClicks(clicks + 1)} />
      <button label="throw" onClick={() => { throw new TypeError("handler failed"); }} />
    </list>
  );
}
