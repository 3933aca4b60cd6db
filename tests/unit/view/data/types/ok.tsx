// Type-checks cleanly against views/lib/runtime.d.ts (typecheck_test.cpp).
import { useState, asChatTools, useEffect, createContext, useContext } from "affordance";
const Ctx = createContext("x");
export function App({ n }: { n: number }) {
  const [items, setItems] = useState<string[]>([]);
  useEffect(() => () => {}, [n]);
  const v: string = useContext(Ctx);
  const { tree, tools } = asChatTools(<box budget={10}><button label="add" onClick={({ value }: { value: string }) => setItems([...items, value])} /></box>);
  return <list>{v}{tools.length}{tree}<token name="<|im_start|>" /><ids value={[1, 2]} /><scroll offset={2}>{items}</scroll><input label="a" onChange={() => {}} /><Ctx.Provider value="y"><>frag</></Ctx.Provider></list>;
}
