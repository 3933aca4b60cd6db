// Types for view authors: the built-in "affordance" runtime module (JSX runtime, hooks,
// asChatTools, encoder binding) and the intrinsic elements. Editor support only: the runtime
// itself is src/view/runtime.js, and layout semantics of the intrinsics belong to src/render
// (docs/RUNTIME.md). The layout engineer may extend the intrinsic vocabulary here.
// This file is a script (no top-level import/export) so its declarations are global.

/** What a component may return or take as children. */
type AffordanceNode =
  | AffordanceElement
  | string
  | number
  | bigint
  | boolean
  | null
  | undefined
  | AffordanceNode[];

/** An element made by JSX (or h()). Opaque to authors. */
interface AffordanceElement {
  readonly type: unknown;
  readonly key: string | null;
  readonly props: unknown;
}

type AffordanceComponent<P = {}> = (props: P) => AffordanceNode;

/** Props every intrinsic element accepts. */
interface IntrinsicCommon {
  key?: string | number;
  /** What the action does, for the model: becomes the projected tool's description. */
  description?: string;
  /** Copied verbatim into the projected tool's parameters (JSON Schema). */
  args_schema?: object;
  /** Run by the host after `timeout` ms, never by the model. */
  onTimeout?: (...args: any[]) => unknown;
  timeout?: number;
  /** Run by the host every `interval` ms, never by the model. */
  onInterval?: (...args: any[]) => unknown;
  interval?: number;
  /** Run by the host when it has a callback for this element, never by the model. */
  onCallback?: (...args: any[]) => unknown;
  children?: AffordanceNode;
}

/**
 * Props of the containers (layout rules: docs/RUNTIME.md "## render"). `budget` caps the
 * container's tokens (clipped in document order at a token boundary); `marker` is text shown,
 * inside the budget, when something was cut; `label` names its actions' tools (onX on
 * label="rows" becomes x__rows); any on* handler there becomes a tool when the container is
 * wholly visible.
 */
interface ContainerProps extends IntrinsicCommon {
  budget?: number;
  marker?: string;
  label?: string | number;
  onClick?: (...args: any[]) => unknown;
  onScroll?: (...args: any[]) => unknown;
  onSelect?: (...args: any[]) => unknown;
  onSubmit?: (...args: any[]) => unknown;
}

interface AffordanceIntrinsics {
  /** Block container; `budget` caps its tokens. */
  box: ContainerProps;
  /** A list: its children are the items. */
  list: ContainerProps;
  /** A window of items starting at `offset` (items before it are hidden). */
  scroll: ContainerProps & { offset?: number };
  /** A text input; onChange becomes the tool change__<label>. */
  input: IntrinsicCommon & {
    label: string;
    value?: string;
    onChange?: (...args: any[]) => unknown;
    onSubmit?: (...args: any[]) => unknown;
  };
  /** A button; onClick becomes the tool click__<label>. */
  button: IntrinsicCommon & { label: string; onClick?: (...args: any[]) => unknown };
  /** One control token by its spelling, e.g. "<|im_start|>". */
  token: IntrinsicCommon & { name: string };
  /** Raw token IDs, e.g. model-sampled history kept verbatim. */
  ids: IntrinsicCommon & { value: number[] };
}

/** The classic JSX factory; every view module has it in scope (a global). */
declare function h(type: unknown, props: object | null, ...children: AffordanceNode[]): AffordanceElement;
/** The JSX fragment; a global like h. */
declare function Fragment(props: { children?: AffordanceNode }): AffordanceNode;

declare namespace JSX {
  type Element = AffordanceElement;
  /** Components may return any node (strings, arrays, null), not only elements. */
  type ElementType = keyof AffordanceIntrinsics | ((props: any) => AffordanceNode);
  interface ElementChildrenAttribute {
    children: {};
  }
  interface IntrinsicAttributes {
    key?: string | number;
  }
  interface IntrinsicElements extends AffordanceIntrinsics {}
}

declare module "affordance" {
  export type Node = AffordanceNode;
  export type Element = AffordanceElement;
  export type Component<P = {}> = AffordanceComponent<P>;
  export type SetState<S> = (next: S | ((previous: S) => S)) => void;

  export const h: typeof globalThis.h;
  export const Fragment: typeof globalThis.Fragment;

  export function useState<S>(initial: S | (() => S)): [S, SetState<S>];
  export function useState<S = undefined>(): [S | undefined, SetState<S | undefined>];
  export function useReducer<S, A>(reducer: (state: S, action: A) => S, initial: S): [S, (action: A) => void];
  export function useReducer<S, A, I>(reducer: (state: S, action: A) => S, initial: I,
                                      init: (initial: I) => S): [S, (action: A) => void];
  export function useRef<T>(initial: T): { current: T };
  export function useMemo<T>(compute: () => T, deps?: readonly unknown[]): T;
  export function useCallback<F extends (...args: any[]) => any>(fn: F, deps?: readonly unknown[]): F;
  /** Runs after commit; a returned function is the cleanup (before the next run, on unmount). */
  export function useEffect(effect: () => void | (() => void), deps?: readonly unknown[]): void;

  export interface Context<T> {
    Provider: AffordanceComponent<{ value: T; children?: AffordanceNode }>;
    displayName?: string;
  }
  export function createContext<T>(defaultValue: T): Context<T>;
  export function useContext<T>(context: Context<T>): T;

  /** A JSON Schema tool object as projected by layout. */
  export interface ChatTool {
    type?: string;
    function?: { name: string; description?: string; parameters?: object };
    [field: string]: unknown;
  }
  export interface ChatToolsOptions {
    /** false: keep schemas and tokens but drop handler references (summary/preview views). */
    callable?: boolean;
    [option: string]: unknown;
  }
  /**
   * Lays out `children` (with their budgets) and projects their visible actions into tools.
   * Emit `tree` as a child. Throws when the View has no layout hook installed.
   */
  export function asChatTools(children: AffordanceNode,
                              options?: ChatToolsOptions): { tree: AffordanceElement; tools: ChatTool[] };

  /** The model name the View is bound to ("" when unbound). */
  export function modelName(): string;
  /** True when the bound encoder has a token with this exact spelling. */
  export function hasToken(spelling: string): boolean;
  /** The ID of a token spelling; throws "view.unknown_token" when the encoder has none. */
  export function tokenId(spelling: string): number;
}

