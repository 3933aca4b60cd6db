// Our OpenUI Lang component library (src/surface/default_library.json) as React components for
// @openuidev/react-lang. Prop order matches the library's property order: positional arguments
// in a program bind in that order.
import { createLibrary, defineComponent } from '@openuidev/react-lang';
import { z } from 'zod/v4';

const any = z.any();
const kids = z.array(any);

const Stack = defineComponent({
  name: 'Stack',
  description: 'Vertical or horizontal layout of children',
  props: z.object({ children: kids, direction: z.enum(['column', 'row']).optional(), gap: z.enum(['s', 'm', 'l']).optional() }),
  component: ({ props, renderNode }) => (
    <div className={`ou-stack ${props.direction ?? 'column'} gap-${props.gap ?? 'm'}`}>{renderNode(props.children)}</div>
  ),
});

const Card = defineComponent({
  name: 'Card',
  description: 'A card with an optional title',
  props: z.object({ children: kids, title: z.string().optional() }),
  component: ({ props, renderNode }) => (
    <section className="ou-card">
      {props.title && <h3>{props.title}</h3>}
      {renderNode(props.children)}
    </section>
  ),
});

const CardHeader = defineComponent({
  name: 'CardHeader',
  description: 'A heading with an optional subtitle',
  props: z.object({ title: z.string(), subtitle: z.string().optional() }),
  component: ({ props }) => (
    <header className="ou-header">
      <h3>{props.title}</h3>
      {props.subtitle && <p>{props.subtitle}</p>}
    </header>
  ),
});

const TextContent = defineComponent({
  name: 'TextContent',
  description: 'A paragraph of text',
  props: z.object({ text: z.string(), size: z.enum(['small', 'default', 'large']).optional() }),
  component: ({ props }) => <p className={`ou-text ${props.size ?? 'default'}`}>{props.text}</p>,
});

const Callout = defineComponent({
  name: 'Callout',
  description: 'A highlighted note',
  props: z.object({ variant: z.enum(['info', 'success', 'warning', 'error']), title: z.string(), description: z.string().optional() }),
  component: ({ props }) => (
    <div className={`ou-callout ${props.variant}`} role="note">
      <strong>{props.title}</strong>
      {props.description && <span>{props.description}</span>}
    </div>
  ),
});

const Button = defineComponent({
  name: 'Button',
  description: 'A button',
  props: z.object({ label: z.string(), action: any.optional(), variant: z.enum(['primary', 'secondary', 'danger']).optional() }),
  component: ({ props }) => <button className={`ou-button ${props.variant ?? 'secondary'}`} type="button">{props.label}</button>,
});

const Col = defineComponent({
  name: 'Col',
  description: 'A table column',
  props: z.object({ header: z.string(), values: z.array(any), format: z.enum(['text', 'number', 'date', 'currency']).optional() }),
  component: () => null,
});

function cell(v: unknown, format?: string): string {
  if (v === null || v === undefined) return '';
  if (format === 'date' && typeof v === 'string' && !Number.isNaN(Date.parse(v))) {
    return new Date(v).toLocaleString([], { weekday: 'short', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
  }
  if (format === 'currency' && typeof v === 'number') return v.toLocaleString([], { style: 'currency', currency: 'USD' });
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

const Table = defineComponent({
  name: 'Table',
  description: 'Columns of values',
  props: z.object({ columns: z.array(any) }),
  component: ({ props }) => {
    const cols = (props.columns ?? []).map((c: any) => c?.props ?? c ?? {});
    const rows = Math.max(0, ...cols.map((c: any) => (Array.isArray(c.values) ? c.values.length : 0)));
    return (
      <div className="ou-table-wrap">
        <table className="ou-table">
          <thead>
            <tr>{cols.map((c: any, i: number) => <th key={i}>{c.header}</th>)}</tr>
          </thead>
          <tbody>
            {Array.from({ length: rows }, (_, r) => (
              <tr key={r}>{cols.map((c: any, i: number) => <td key={i}>{cell(c.values?.[r], c.format)}</td>)}</tr>
            ))}
            {rows === 0 && (
              <tr><td className="ou-empty" colSpan={Math.max(1, cols.length)}>No rows</td></tr>
            )}
          </tbody>
        </table>
      </div>
    );
  },
});

const Input = defineComponent({
  name: 'Input',
  description: 'A text field',
  props: z.object({ name: z.string(), placeholder: z.string().optional(), kind: z.enum(['text', 'email', 'number', 'date']).optional(), rules: any.optional(), value: any.optional() }),
  component: ({ props }) => <input className="ou-input" name={props.name} type={props.kind ?? 'text'} placeholder={props.placeholder} defaultValue={props.value as any} />,
});

const SelectItem = defineComponent({
  name: 'SelectItem',
  description: 'An option',
  props: z.object({ value: z.string(), label: z.string() }),
  component: () => null,
});

const Select = defineComponent({
  name: 'Select',
  description: 'A choice',
  props: z.object({ name: z.string(), items: z.array(any), placeholder: z.string().optional(), rules: any.optional(), value: any.optional() }),
  component: ({ props }) => (
    <select className="ou-input" name={props.name} defaultValue={props.value as any}>
      {(props.items ?? []).map((it: any, i: number) => {
        const p = it?.props ?? it;
        return <option key={i} value={p.value}>{p.label}</option>;
      })}
    </select>
  ),
});

const FormControl = defineComponent({
  name: 'FormControl',
  description: 'A labelled field',
  props: z.object({ label: z.string(), field: any }),
  component: ({ props, renderNode }) => (
    <label className="ou-field">
      <span>{props.label}</span>
      {renderNode(props.field)}
    </label>
  ),
});

const Form = defineComponent({
  name: 'Form',
  description: 'A form',
  props: z.object({ name: z.string(), submit: any, fields: z.array(any) }),
  component: ({ props, renderNode }) => (
    <form className="ou-form" onSubmit={(e) => e.preventDefault()}>
      {renderNode(props.fields)}
      {renderNode(props.submit)}
    </form>
  ),
});

const HtmlMount = defineComponent({
  name: 'HtmlMount',
  description: 'A native child mounted into Html',
  props: z.object({ name: z.string(), child: any }),
  component: ({ props, renderNode }) => <div className="ou-mount">{renderNode(props.child)}</div>,
});

// Html runs no script: it is shown in a sandboxed frame with scripts disabled.
const Html = defineComponent({
  name: 'Html',
  description: 'A free-form composition (sandboxed)',
  props: z.object({ html: z.string(), data: any.optional(), mounts: z.array(any).optional() }),
  component: ({ props, renderNode }) => (
    <div className="ou-html">
      <iframe sandbox="" srcDoc={props.html} title="composition" />
      {props.mounts && renderNode(props.mounts)}
    </div>
  ),
});

export const library = createLibrary({
  root: 'Stack',
  components: [Stack, Card, CardHeader, TextContent, Callout, Button, Table, Col, Input, Select, SelectItem, FormControl, Form, Html, HtmlMount],
});
