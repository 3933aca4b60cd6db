export function Badge({ text }: { text: string }) {
  return <box>[{text}]</box>;
}
