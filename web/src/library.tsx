// Our OpenUI Lang component library (src/surface/default_library.json) as React components for
// @openuidev/react-lang. Prop order matches the library's property order: positional arguments
// in a program bind in that order.
import { createLibrary, defineComponent } from '@openuidev/react-lang';
import { z } from 'zod/v4';
import { isObject, type JsonObject } from './json';
import { fillTemplate } from './template';

// A value of whatever shape (a child node, an action, a rule): the component narrows what it reads.
const unknown = z.unknown();
const kids = z.array(unknown);

// The props of a sub-component (a Col, a SelectItem), or the value itself when it is not one.
function propsOf(node: unknown): JsonObject {
  const p = isObject(node) ? node.props ?? node : node;
  return isObject(p) ? p : {};
}

// Text a program passed where it may have passed anything: strings and numbers, nothing else.
function text(v: unknown): string | number | undefined {
  return typeof v === 'string' || typeof v === 'number' ? v : undefined;
}

// A form value as React takes it: strings, numbers and string lists as given, anything else as
// text (which is what React makes of it).
function formValue(v: unknown): string | number | readonly string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string' || typeof v === 'number') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v;
  return String(v);
}

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
  props: z.object({ label: z.string(), action: unknown.optional(), variant: z.enum(['primary', 'secondary', 'danger']).optional() }),
  component: ({ props }) => <button className={`ou-button ${props.variant ?? 'secondary'}`} type="button">{props.label}</button>,
});

const Col = defineComponent({
  name: 'Col',
  description: 'A table column',
  props: z.object({ header: z.string(), values: z.array(unknown), format: z.enum(['text', 'number', 'date', 'currency']).optional() }),
  component: () => null,
});

function cell(v: unknown, format?: string): string {
  if (v === null || v === undefined) return '';
  // A date alone (an all-day event: "2026-12-04") is a day, not midnight UTC: no time, no zone shift.
  if (format === 'date' && typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)) {
    return new Date(v + 'T00:00:00Z').toLocaleDateString([], { weekday: 'short', month: 'short', day: 'numeric', timeZone: 'UTC' });
  }
  if (format === 'date' && typeof v === 'string' && !Number.isNaN(Date.parse(v))) {
    return new Date(v).toLocaleString([], { weekday: 'short', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
  }
  if (format === 'currency' && typeof v === 'number') return v.toLocaleString([], { style: 'currency', currency: 'USD' });
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

const Table = defineComponent({
  name: 'Table',
  description: 'Columns of values',
  props: z.object({ columns: z.array(unknown) }),
  component: ({ props }) => {
    const cols = (props.columns ?? []).map(propsOf);
    const rows = Math.max(0, ...cols.map((c) => (Array.isArray(c.values) ? c.values.length : 0)));
    return (
      <div className="ou-table-wrap">
        <table className="ou-table">
          <thead>
            <tr>{cols.map((c, i) => <th key={i}>{text(c.header)}</th>)}</tr>
          </thead>
          <tbody>
            {Array.from({ length: rows }, (_, r) => (
              <tr key={r}>{cols.map((c, i) => <td key={i}>{cell(Array.isArray(c.values) ? c.values[r] : undefined, typeof c.format === 'string' ? c.format : undefined)}</td>)}</tr>
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
  props: z.object({ name: z.string(), placeholder: z.string().optional(), kind: z.enum(['text', 'email', 'number', 'date']).optional(), rules: unknown.optional(), value: unknown.optional() }),
  component: ({ props }) => <input className="ou-input" name={props.name} type={props.kind ?? 'text'} placeholder={props.placeholder} defaultValue={formValue(props.value)} />,
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
  props: z.object({ name: z.string(), items: z.array(unknown), placeholder: z.string().optional(), rules: unknown.optional(), value: unknown.optional() }),
  component: ({ props }) => (
    <select className="ou-input" name={props.name} defaultValue={formValue(props.value)}>
      {(props.items ?? []).map((it, i) => {
        const p = propsOf(it);
        return <option key={i} value={formValue(p.value)}>{text(p.label)}</option>;
      })}
    </select>
  ),
});

const FormControl = defineComponent({
  name: 'FormControl',
  description: 'A labelled field',
  props: z.object({ label: z.string(), field: unknown }),
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
  props: z.object({ name: z.string(), submit: unknown, fields: z.array(unknown) }),
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
  props: z.object({ name: z.string(), child: unknown }),
  component: ({ props, renderNode }) => <div className="ou-mount">{renderNode(props.child)}</div>,
});

// A short, stable name for a document (FNV-1a), to key its frame.
function docKey(doc: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < doc.length; i++) h = Math.imul(h ^ doc.charCodeAt(i), 0x01000193) >>> 0;
  return `${doc.length}-${h.toString(36)}`;
}

// Html runs no script: it is shown in a sandboxed frame with scripts disabled, its {{placeholders}}
// filled from its data (escaped: data never becomes markup). The frame cannot host native
// components, so its mounts follow it. A new document gets a new frame (keyed by its content):
// Chromium can keep showing an earlier srcdoc when the attribute changes again while that one
// is still loading (the surface painted, then hydrated with its rows a moment later), and the
// person would see an empty canvas.
const Html = defineComponent({
  name: 'Html',
  description: 'A free-form composition (sandboxed)',
  props: z.object({ html: z.string(), data: unknown.optional(), mounts: z.array(unknown).optional() }),
  component: ({ props, renderNode }) => {
    const doc = fillTemplate(props.html, props.data);
    return (
      <div className="ou-html">
        <iframe key={docKey(doc)} sandbox="" srcDoc={doc} title="composition" />
        {props.mounts && renderNode(props.mounts)}
      </div>
    );
  },
});

export const library = createLibrary({
  root: 'Stack',
  components: [Stack, Card, CardHeader, TextContent, Callout, Button, Table, Col, Input, Select, SelectItem, FormControl, Form, Html, HtmlMount],
});
