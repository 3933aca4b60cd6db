import { add, scale } from "./lib/math.js";
export function compute(a, b) { return scale(add(a, b)); }
export const greeting = "hello from a module";
