// Throws while the module evaluates.
const table: Record<string, number> = { a: 1 };

function check(name: string): number {
  if (!(name in table)) throw new Error("no entry " + name);
  return table[name];
}
export const value: number = check("b");

export function Never() {
  return <box>{value}</box>;
}
