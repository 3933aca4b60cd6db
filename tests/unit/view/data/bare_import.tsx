import { useState } from "react";

export function Bare() {
  const [x] = useState(1);
  return <box>{x}</box>;
}
