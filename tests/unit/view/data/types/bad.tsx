// Type errors an author must see: setN("x"), a button without label, a token without name, an
// unknown intrinsic (typecheck_test.cpp).
import { useState } from "affordance";
export function Bad() {
  const [n, setN] = useState(0);
  setN("x");
  return <box><button onClick={() => {}} /><token /><widget /></box>;
}
