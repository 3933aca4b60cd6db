// Accepted by the transformer, rejected by QuickJS.
export function Redeclare(): any {
  const typed: number = 1; const typed: string = "x";
  return typed;
}
