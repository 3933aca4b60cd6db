export function Broken() {
  const a = 1;
  return <box>{a}</box;
}
