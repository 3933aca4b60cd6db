export const add = (a, b) => a + b;
export function scale(x) { return x * 10; }
