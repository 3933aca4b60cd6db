type Props = { name: string; count: number };
interface Node { type: unknown; props: Record<string, unknown>; children: unknown[] }

function h(type: unknown, props: Record<string, unknown> | null, ...children: unknown[]): Node {
  return { type, props: props ?? {}, children };
}
const Fragment = "fragment";

function Greeting({ name, count }: Props) {
  return <><text>Hello, {name}!</text><text>{count as number}</text></>;
}

const tree = <Greeting name="QuickJS" count={42} />;
const node = (tree.type as (p: Props) => Node)(tree.props as Props);
result = JSON.stringify(node);
