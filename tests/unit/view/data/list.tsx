// Many handlers that mount and unmount with the list.
import { useState } from "affordance";

export function Rows({ n }: { n: number }) {
  const [picked, setPicked] = useState(-1);
  const rows = [];
  for (let i = 0; i < n; i++) {
    rows.push(<button key={"r" + i} label={"row " + i} onClick={() => setPicked(i)} />);
  }
  return <scroll offset={0}>picked={picked}{rows}</scroll>;
}
