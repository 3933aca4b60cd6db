// The view runtime inside each View's QuickJS context: JSX runtime (h, Fragment), hooks, and the
// reconciler that turns a component tree into host nodes for C++ (src/view/host.cpp reads them).
//
// Host nodes (what render() returns, converted by src/view/host.cpp): a string is a text run, a
// number an asChatTools block id, an array [type, path, props, handlers|null, children] an
// intrinsic element, handlers being flat [event, id, signature index, ...] and children an array
// of host nodes or the id of text rows kept by C++ (host.textRows).
//
// Evaluated once per View as a classic script (compiled to bytecode at build time). It reads the
// native bindings from globalThis.__affordance_host (then deletes it) and its completion value is
// the internal API object { exports, render, act, stats }.
//
// Paths (hook state and handler identity): a node's path is its parent's path + "/" + a segment:
// the type name, then "#key" when keyed, else "[i]" for the i-th child (i may be "2.1" for an
// element inside an array child); a single child (not in a list) has no index. An element that is
// rendered by a component other than the one that created it (children passed through a wrapper,
// asChatTools children) is rooted at its creator's path instead: creator + "/" + type + "#key".
// So an app element built before a wrapper keeps its path whichever wrapper renders it. Paths are
// unique within a render: a repeat gets "~n" appended.
//
// Reuse (docs/RUNTIME.md, "Re-rendering from caches"): components are pure functions of their
// props, state and context, as in React. A component whose props are shallow-equal to its last
// committed render, whose state did not change and whose contexts hold the same values is not
// called again: when nothing in its subtree changed either, its host nodes are replayed as they
// were (the very same arrays, which C++ converts from its cache); otherwise its last result is
// reconciled again so changed descendants re-render. A component that called asChatTools is
// called again whenever its subtree changed (its result embeds the laid-out children).
(function () {
  "use strict";
  const host = globalThis.__affordance_host;
  delete globalThis.__affordance_host;

  const ELEMENT = Symbol("affordance.element");
  const BLOCK = Symbol("affordance.block");
  const PASS_LIMIT = 25;
  const TEXT_ROWS_MIN = 8;  // shorter lists of strings are copied like any children
  const isArray = Array.isArray;
  const pushAll = Function.prototype.apply.bind(Array.prototype.push);
  // Appends the items of `items` to `out`: one native call for the usual lengths (QuickJS
  // refuses more than 65,535 arguments).
  function append(out, items) {
    const n = items.length;
    if (n > 0 && n <= 8192) {
      pushAll(out, items);
    } else {
      for (let i = 0; i < n; i++) out[out.length] = items[i];
    }
  }

  function Fragment(props) {
    return props.children;
  }

  let currentOwner = "";  // path of the component whose body is running (creator of elements)
  let currentInst = null;
  let hookIndex = 0;
  // The instance whose output is being reconciled: host nodes, handlers, paths and component
  // instances met while reconciling are recorded in its memo (`next`).
  let reconciling = null;
  // Memos of an older epoch are never reused (bumped when a render fails part-way).
  let memoEpoch = 0;
  let reuse = true;  // ViewOptions::reuse_components
  let called = 0, replayed = 0;  // in the last render (stats)
  // The projections reproject() made for the component about to be called (its asChatTools
  // calls take them), with .inst naming it; null otherwise.
  let projections = null;

  // h takes over its props object (JSX always passes a fresh object literal): `key` is moved out
  // of it and `children` set on it.
  function h(type, props, ...children) {
    let key = null;
    let p;
    if (props == null) {
      p = {};
    } else {
      p = props;
      if (p.key !== undefined) {
        key = p.key === null ? null : String(p.key);
        delete p.key;
      }
    }
    const n = children.length;
    if (n === 1) p.children = children[0];
    else if (n > 1) p.children = children;
    return { $$typeof: ELEMENT, type, key, props: p, owner: currentOwner };
  }

  // ---- state kept across renders
  const instances = new Map();  // path -> {type, path, name, hooks, seen, committed}
  let handlerIds = new Map();   // path + "\0" + event -> id (committed)
  let handlerFns = new Map();   // id -> function (committed)
  let nextHandlerId = 1;
  const signatures = new Map();  // function source -> signature index (C++ side table)
  let lastProps = undefined;
  let dirty = false;
  // A snapshot being restored (docs/RUNTIME.md, "Snapshots"): absolute path -> saved entry
  // {rel, component, hooks, state}, consumed as the next render mounts those paths.
  let restoring = null;
  let restored = [];

  // ---- per render pass
  let serial = 0;
  const usedPaths = new Set();  // cleared by each pass
  let stagedIds = new Map();
  let stagedFns = new Map();
  let effects = null;

  function typeName(type) {
    if (typeof type === "string") return type;
    if (type === Fragment) return "Fragment";
    if (typeof type === "function") {
      if (type.$$context) return (type.$$context.displayName || "Context") + ".Provider";
      return type.displayName || type.name || "Anonymous";
    }
    throw new TypeError("invalid element type: " + String(type) +
                        " (expected a component function or an intrinsic name)");
  }

  function uniquePath(path) {
    const rec = reconciling === null ? null : reconciling.next;
    if (!usedPaths.has(path)) {
      usedPaths.add(path);
      if (rec !== null) rec.paths.push(path);
      return path;
    }
    // A suffixed path depends on what rendered before it: such a subtree is never replayed.
    if (rec !== null) rec.unstable = true;
    for (let n = 1; ; n++) {
      const p = path + "~" + n;
      if (!usedPaths.has(p)) {
        usedPaths.add(p);
        return p;
      }
    }
  }

  // Renders `child` (anything a component may return) into host nodes appended to `out`.
  // `index` is -1 for a single child, else its index in the enclosing array, and `prefix` the
  // positions of enclosing arrays ("2." for an array that is child 2); `comp` is the path of the
  // component whose output is being reconciled (elements it did not create are rooted at their
  // creator). Position strings are only built for elements.
  function renderChild(child, parentPath, prefix, index, comp, out) {
    if (child == null || typeof child === "boolean") return;
    const t = typeof child;
    if (t === "string") {
      out[out.length] = child;
      return;
    }
    if (t === "number" || t === "bigint") {
      out[out.length] = String(child);
      return;
    }
    if (Array.isArray(child)) {
      const inner = index < 0 ? prefix : prefix + index + ".";
      const n = child.length;
      for (let i = 0; i < n; i++) {
        const c = child[i];
        // Text runs (long lists of rows) without a call each.
        if (typeof c === "string") out[out.length] = c;
        else renderChild(c, parentPath, inner, i, comp, out);
      }
      return;
    }
    if (t !== "object" || child.$$typeof !== ELEMENT) {
      throw new TypeError("cannot render " + (t === "object" ? "a plain object" : t) +
                          " as a child (use a string, a number, an element or an array)");
    }
    if (child.type === BLOCK) {
      out[out.length] = child.block;  // a number: the C++ block id
      return;
    }
    const name = typeName(child.type);
    let path;
    if (child.owner !== comp) {
      path = child.owner + "/" + name + (child.key !== null ? "#" + child.key : "");
    } else {
      const seg = name + (child.key !== null ? "#" + child.key
                                             : index < 0 ? "" : "[" + prefix + index + "]");
      path = parentPath === "" ? seg : parentPath + "/" + seg;
    }
    // Positional paths are unique by construction (unique parent, distinct index); keyed and
    // creator-rooted ones may repeat.
    if (child.key !== null || child.owner !== comp) path = uniquePath(path);
    const type = child.type;
    if (typeof type === "string") renderHost(child, path, out);
    else if (type === Fragment) renderChild(child.props.children, path, "", -1, child.owner, out);
    else if (type.$$context) renderProvider(child, path, out);
    else renderComponent(child, path, out);
  }

  // Providers set ctx._value for their subtree; the stack lets a new pass restore every context
  // even when the previous pass was stopped by an uncatchable interrupt (no finally blocks ran).
  const providerStack = [];
  function renderProvider(el, path, out) {
    const ctx = el.type.$$context;
    providerStack.push(ctx, ctx._value);
    ctx._value = el.props.value;
    try {
      renderChild(el.props.children, path, "", -1, el.owner, out);
    } finally {
      ctx._value = providerStack.pop();
      providerStack.pop();
    }
  }

  function shallowEqual(a, b) {
    if (a === b) return true;
    let n = 0;
    for (const k in a) {
      if (!Object.is(a[k], b[k]) || !(k in b)) return false;
      n++;
    }
    for (const k in b) n--;
    return n === 0;
  }

  function sameContexts(reads) {
    for (let i = 0; i < reads.length; i += 2) if (!Object.is(reads[i]._value, reads[i + 1])) return false;
    return true;
  }

  // True when `inst` has a committed memo of this epoch, its state did not change and the
  // contexts it read hold the same values.
  function unchanged(inst) {
    const m = inst.memo;
    return m !== null && m.epoch === memoEpoch && !inst.dirty && sameContexts(m.ctxReads);
  }

  // True when the last committed output of an unchanged `inst` can be replayed as it is: every
  // component under it is unchanged too, none depends on render order, and its paths are free.
  // The cheap checks come first, so a changed component below ends the walk before any path is
  // looked up (an act changes one component deep in the tree).
  function replayable(inst) {
    const m = inst.memo;
    return !m.unstable && kidsReplayable(m.kids, 0) && pathsFree(m.paths, 0);
  }

  // True when the components kids[from..] are the mounted ones, unchanged and replayable.
  function kidsReplayable(kids, from) {
    for (let i = from; i < kids.length; i++) {
      const kid = kids[i];
      if (instances.get(kid.path) !== kid || !unchanged(kid)) return false;
    }
    for (let i = from; i < kids.length; i++) if (!replayable(kids[i])) return false;
    return true;
  }

  function pathsFree(paths, from) {
    for (let i = from; i < paths.length; i++) if (usedPaths.has(paths[i])) return false;
    return true;
  }

  function replay(inst, out) {
    const m = inst.memo;
    replayed++;
    inst.seen = serial;
    inst.next = m;
    for (let i = 0; i < m.paths.length; i++) usedPaths.add(m.paths[i]);
    const hs = m.handlers;
    for (let i = 0; i < hs.length; i += 3) {
      stagedIds.set(hs[i], hs[i + 1]);
      stagedFns.set(hs[i + 1], hs[i + 2]);
    }
    for (let i = 0; i < m.kids.length; i++) replay(m.kids[i], null);
    if (out !== null) append(out, m.out);
  }

  // A component that called asChatTools, with the same props, state and contexts, whose subtree
  // changed: its asChatTools calls are made again with the children and options of its last
  // render (what a pure component would pass), each at its own call site. True when every call
  // gave the same block id and the same frozen tools: the component would return what it
  // returned last time (a block id stands for its call site's current layout), so it is not
  // called. Otherwise the projections are kept for the call that follows (asChatTools takes
  // them instead of reconciling the children twice).
  function reproject(inst, m, rec) {
    const saved = reconciling;
    reconciling = inst;
    let same = true;
    const projected = [];
    try {
      for (let i = 0; i < m.calls.length; i++) {
        const c = m.calls[i];
        const nodes = [];
        renderChild(c.children, inst.path, "", -1, "\u0001", nodes);
        projected.push(nodes);
        const r = host.chatTools(nodes, c.options, inst.path + "\u0000" + i);
        rec.calls.push({ children: c.children, options: c.options, block: r.block, tools: r.tools });
        if (r.block !== c.block || r.tools !== c.tools) same = false;
      }
    } finally {
      reconciling = saved;
    }
    if (same) return true;
    rec.calls.length = 0;
    projected.inst = inst;
    projections = projected;
    return false;
  }

  // True when the part of `m` (a memo) that is the component's own output, not what its
  // asChatTools calls reconciled, can be replayed as it is.
  function ownReplayable(m) {
    return !m.unstable && kidsReplayable(m.kids, m.ownKids) && pathsFree(m.paths, m.ownPaths);
  }

  // Replays the component's own output of `m` into `rec` (which holds the new projections).
  function replayOwn(m, rec, out) {
    replayed++;
    rec.ownKids = rec.kids.length;
    rec.ownHandlers = rec.handlers.length;
    rec.ownPaths = rec.paths.length;
    for (let i = m.ownPaths; i < m.paths.length; i++) {
      usedPaths.add(m.paths[i]);
      rec.paths.push(m.paths[i]);
    }
    const hs = m.handlers;
    for (let i = m.ownHandlers; i < hs.length; i += 3) {
      stagedIds.set(hs[i], hs[i + 1]);
      stagedFns.set(hs[i + 1], hs[i + 2]);
      rec.handlers.push(hs[i], hs[i + 1], hs[i + 2]);
    }
    for (let i = m.ownKids; i < m.kids.length; i++) {
      rec.kids.push(m.kids[i]);
      replay(m.kids[i], null);
    }
    rec.out = m.out;
    append(out, m.out);
  }

  function renderComponent(el, path, out) {
    let inst = instances.get(path);
    if (inst !== undefined && inst.type !== el.type) {
      unmountInstance(inst, null);
      instances.delete(path);
      inst = undefined;
    }
    if (inst === undefined) {
      inst = { type: el.type, path, name: typeName(el.type), hooks: [], pending: [], seen: 0,
               committed: false, dirty: false, memo: null, next: null, restore: null };
      if (restoring !== null && restoring.has(path)) {
        inst.restore = restoring.get(path);
        inst.restore.next = 0;
        restoring.delete(path);
        restored.push(inst);
      }
      instances.set(path, inst);
    }
    const parent = reconciling;
    if (parent !== null) parent.next.kids.push(inst);
    const m = inst.memo;
    const same = reuse && unchanged(inst) && shallowEqual(m.props, el.props);
    if (same && replayable(inst)) {
      replay(inst, out);
      return;
    }
    inst.seen = serial;
    inst.pending.length = 0;
    const rec = { epoch: memoEpoch, props: el.props, result: undefined, out: null, kids: [],
                  handlers: [], paths: [], ctxReads: [], calls: [], ownKids: 0, ownHandlers: 0,
                  ownPaths: 0, unstable: false };
    inst.next = rec;
    let result;
    if (same && m.calls.length > 0 && reproject(inst, m, rec)) {
      // Its asChatTools calls gave the same blocks and tools: its output is the last one.
      rec.result = m.result;
      rec.ctxReads = m.ctxReads;
      if (ownReplayable(m)) {
        replayOwn(m, rec, out);
        return;
      }
      result = m.result;
    } else if (same && m.calls.length === 0) {
      // Props, state and contexts as last time: the last result, reconciled again below.
      result = m.result;
      rec.ctxReads = m.ctxReads;
    } else {
      const savedInst = currentInst, savedIndex = hookIndex, savedOwner = currentOwner;
      currentInst = inst;
      hookIndex = 0;
      currentOwner = path;
      inst.dirty = false;  // state read from here on; a later setState marks it again
      called++;
      try {
        result = el.type(el.props);
        if (inst.committed && hookIndex !== inst.hooks.length) {
          throw hookOrderError(inst, "rendered " + hookIndex + " hooks, the previous render " +
                               inst.hooks.length);
        }
      } finally {
        currentInst = savedInst;
        hookIndex = savedIndex;
        currentOwner = savedOwner;
      }
      projections = null;
    }
    // What its asChatTools calls reconciled comes first in kids, handlers and paths; the rest is
    // its own output's.
    rec.ownKids = rec.kids.length;
    rec.ownHandlers = rec.handlers.length;
    rec.ownPaths = rec.paths.length;
    rec.result = result;
    const start = out.length;
    reconciling = inst;
    try {
      renderChild(result, path, "", -1, path, out);
    } finally {
      reconciling = parent;
    }
    rec.out = out.slice(start);
    // Effects run children first, then parents (as in React).
    for (let i = 0; i < inst.pending.length; i++) effects.push(inst.pending[i]);
    inst.pending.length = 0;
  }

  // The host node keeps the element's props object: C++ converts it to JSON and skips
  // `children`, functions and undefined values.
  function renderHost(el, path, out) {
    const props = el.props;
    let handlers = null;
    for (const name in props) {
      const v = props[name];
      if (typeof v === "function" && name.length > 2 && name.charCodeAt(0) === 111 &&
          name.charCodeAt(1) === 110) {  // "on..."
        const hk = path + "\u0000" + name;
        let id = handlerIds.get(hk);
        if (id === undefined) id = nextHandlerId++;
        stagedIds.set(hk, id);
        stagedFns.set(id, v);
        if (reconciling !== null) reconciling.next.handlers.push(hk, id, v);
        if (handlers === null) handlers = [];
        handlers.push(name, id, signatureOf(v));
      }
    }
    // Children that are one array of strings (rows a component rebuilt) go to C++ as they are:
    // it keeps them per path and converts them only when they changed (host.textRows).
    const kids = props.children;
    let children = null;
    if (isArray(kids) && kids.length >= TEXT_ROWS_MIN) children = host.textRows(path, kids);
    if (children === null) {
      children = [];
      renderChild(kids, path, "", -1, el.owner, children);
    }
    out[out.length] = [el.type, path, props, handlers, children];
  }

  function signatureOf(fn) {
    const src = Function.prototype.toString.call(fn);
    let s = signatures.get(src);
    if (s === undefined) {
      s = host.signature(src);
      signatures.set(src, s);
    }
    return s;
  }

  // ---- hooks
  function hookOrderError(inst, what) {
    const e = new Error("hooks of <" + inst.name + "> changed between renders (" + what +
                        "); call hooks unconditionally and in the same order");
    e.code = "view.hook_order";
    return e;
  }

  function nextHook(kind) {
    if (currentInst === null) {
      const e = new Error(kind + "() called outside a component render");
      e.code = "view.hook_order";
      throw e;
    }
    const i = hookIndex++;
    const hooks = currentInst.hooks;
    if (i < hooks.length) {
      if (hooks[i].kind !== kind) {
        throw hookOrderError(currentInst, "hook " + i + " was " + hooks[i].kind + ", now " + kind);
      }
      return hooks[i];
    }
    if (currentInst.committed) throw hookOrderError(currentInst, "hook " + i + " is new");
    const hk = { kind, fresh: true };
    hooks.push(hk);
    return hk;
  }

  function sameDeps(a, b) {
    if (a === undefined || b === undefined || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
    return true;
  }

  function useState(initial) {
    const hk = nextHook("useState");
    if (hk.fresh) {
      hk.fresh = false;
      const saved = currentInst.restore;
      if (saved !== null && saved.next < saved.state.length) {
        const s = saved.state[saved.next++];
        hk.value = "value" in s ? s.value : undefined;
      } else {
        hk.value = typeof initial === "function" ? initial() : initial;
      }
      hk.dead = false;
      const inst = currentInst;
      hk.set = function (next) {
        if (hk.dead) return;
        const v = typeof next === "function" ? next(hk.value) : next;
        if (!Object.is(v, hk.value)) {
          hk.value = v;
          inst.dirty = true;
          dirty = true;
        }
      };
    }
    return [hk.value, hk.set];
  }

  function useReducer(reducer, initial, init) {
    const [state, setState] = useState(() => (init === undefined ? initial : init(initial)));
    const hk = nextHook("useReducer");
    hk.reducer = reducer;
    if (hk.fresh) {
      hk.fresh = false;
      hk.dispatch = (action) => setState((s) => hk.reducer(s, action));
    }
    return [state, hk.dispatch];
  }

  function useRef(initial) {
    const hk = nextHook("useRef");
    if (hk.fresh) {
      hk.fresh = false;
      hk.ref = { current: initial };
    }
    return hk.ref;
  }

  function useMemo(compute, deps) {
    const hk = nextHook("useMemo");
    if (hk.fresh || !sameDeps(hk.deps, deps)) {
      hk.value = compute();
      hk.deps = deps;
      hk.fresh = false;
    }
    return hk.value;
  }

  function useCallback(fn, deps) {
    return useMemo(() => fn, deps);
  }

  function useEffect(fn, deps) {
    const hk = nextHook("useEffect");
    if (hk.fresh || !sameDeps(hk.deps, deps)) {
      currentInst.pending.push({ hk, fn, deps });
    }
  }

  function createContext(defaultValue) {
    const ctx = { _value: defaultValue, displayName: undefined };
    function Provider(props) {
      return props.children;
    }
    Provider.$$context = ctx;
    ctx.Provider = Provider;
    return ctx;
  }

  function useContext(ctx) {
    if (ctx == null || ctx.Provider === undefined || ctx.Provider.$$context !== ctx) {
      throw new TypeError("useContext expects a context made by createContext()");
    }
    if (currentInst !== null) currentInst.next.ctxReads.push(ctx, ctx._value);
    return ctx._value;
  }

  // ---- asChatTools: reconcile `children` now and hand the host nodes to layout (C++ hook).
  function asChatTools(children, options) {
    if (currentInst === null) {
      const e = new Error("asChatTools() must be called while a component renders");
      e.code = "view.render";
      throw e;
    }
    const rec = currentInst.next;
    const index = rec.calls.length;
    const site = currentInst.path + "\u0000" + index;
    const opts = options === undefined ? {} : options;
    let out;
    if (projections !== null && projections.inst === currentInst && index < projections.length) {
      out = projections[index];  // reconciled already (reproject)
    } else {
      out = [];
      // "\u0001" is never a component path, so every element here is rooted at its creator.
      const saved = reconciling;
      reconciling = currentInst;
      try {
        renderChild(children, currentOwner, "", -1, "\u0001", out);
      } finally {
        reconciling = saved;
      }
    }
    const r = host.chatTools(out, opts, site);
    rec.calls.push({ children, options: opts, block: r.block, tools: r.tools });
    const tree = { $$typeof: ELEMENT, type: BLOCK, key: null, props: {}, owner: currentOwner,
                   block: r.block };
    return { tree, tools: r.tools };
  }

  // ---- commit
  function unmountInstance(inst, errors) {
    for (const hk of inst.hooks) {
      hk.dead = true;
      if (hk.kind === "useEffect" && typeof hk.cleanup === "function") {
        const c = hk.cleanup;
        hk.cleanup = undefined;
        try {
          c();
        } catch (e) {
          if (errors === null) throw e;
          errors.push(e);
        }
      }
    }
  }

  function commit() {
    const errors = [];
    instances.forEach((inst, path) => {
      if (inst.seen !== serial) {
        instances.delete(path);
        unmountInstance(inst, errors);
      } else {
        inst.committed = true;
        inst.memo = inst.next;
      }
    });
    // The maps swap: the committed ones become the next pass's staging maps (cleared then).
    const ids = handlerIds, fns = handlerFns;
    handlerIds = stagedIds;
    handlerFns = stagedFns;
    stagedIds = ids;
    stagedFns = fns;
    const list = effects;
    effects = null;
    for (const e of list) {
      if (typeof e.hk.cleanup === "function") {
        const c = e.hk.cleanup;
        e.hk.cleanup = undefined;
        try {
          c();
        } catch (err) {
          errors.push(err);
        }
      }
    }
    for (const e of list) {
      e.hk.fresh = false;
      e.hk.deps = e.deps;
      try {
        const r = e.fn();
        e.hk.cleanup = typeof r === "function" ? r : undefined;
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length > 0) {
      const err = errors[0];
      if (err !== null && typeof err === "object" && err.code === undefined) {
        try {
          err.code = "view.effect";
        } catch (_) {
        }
      }
      throw err;
    }
  }

  function renderPass(entry, props) {
    while (providerStack.length > 0) {
      const value = providerStack.pop();
      providerStack.pop()._value = value;
    }
    currentInst = null;
    reconciling = null;
    projections = null;
    hookIndex = 0;
    serial++;
    usedPaths.clear();
    stagedIds.clear();
    stagedFns.clear();
    effects = [];
    const out = [];
    const saved = currentOwner;
    currentOwner = "";
    const root = { $$typeof: ELEMENT, type: entry, key: null, props, owner: "" };
    currentOwner = saved;
    renderChild(root, "", "", -1, "", out);
    return out;
  }

  // Called by the host after any failed render (an interrupt skips every finally block). A
  // restore that did not get through its render is dropped with what it seeded: the view is as
  // freshly loaded (restores happen before the first render, so nothing was committed).
  function invalidate() {
    memoEpoch++;
    if (restoring !== null) {
      restoring = null;
      restored = [];
      instances.clear();
    }
  }

  // ---- snapshots of hook state (docs/RUNTIME.md, "Snapshots")
  function snapshotError(code, message) {
    const e = new Error(message);
    e.code = code;
    return e;
  }

  // Throws unless `v` survives JSON unchanged (plain objects, arrays, strings, finite numbers,
  // booleans, null).
  function checkJson(v, where, depth) {
    const t = typeof v;
    if (v === null || t === "string" || t === "boolean") return;
    if (t === "number") {
      if (!Number.isFinite(v)) throw snapshotError("view.snapshot_unserializable", where + " holds " + v + ", which JSON cannot hold");
      return;
    }
    if (depth > 64) throw snapshotError("view.snapshot_unserializable", where + " nests deeper than 64 levels");
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) checkJson(v[i], where, depth + 1);
      return;
    }
    if (t === "object") {
      const proto = Object.getPrototypeOf(v);
      if (proto === Object.prototype || proto === null) {
        for (const k of Object.keys(v)) checkJson(v[k], where, depth + 1);
        return;
      }
    }
    const what = t === "object" ? "a " + ((v.constructor && v.constructor.name) || "non-plain object")
               : t === "undefined" ? "undefined (inside a value)" : "a " + t;
    throw snapshotError("view.snapshot_unserializable",
                        where + " holds " + what + ", which JSON cannot hold; keep state as plain data");
  }

  // The committed hook state of the components at or under `root` ("" = all), as JSON text:
  // {relative path: {component, hooks: [kinds], state: [{value} | {} for undefined]}}.
  function snapshot(root) {
    const out = {};
    let n = 0;
    for (const [path, inst] of instances) {
      if (!inst.committed) continue;
      let rel;
      if (root === "") rel = path;
      else if (path === root) rel = "";
      else if (path.startsWith(root + "/")) rel = path.slice(root.length + 1);
      else continue;
      const hooks = [], state = [];
      for (let i = 0; i < inst.hooks.length; i++) {
        const hk = inst.hooks[i];
        hooks.push(hk.kind);
        if (hk.kind !== "useState") continue;
        if (hk.value === undefined) {
          state.push({});
        } else {
          checkJson(hk.value, "the state of <" + inst.name + "> at " + path + " (hook " + i + ")", 0);
          state.push({ value: hk.value });
        }
      }
      out[rel] = { component: inst.name, hooks, state };
      n++;
    }
    if (n === 0) {
      throw snapshotError("view.snapshot_empty", "no mounted component at or under \"" + root + "\"");
    }
    return JSON.stringify(out);
  }

  // Seeds the next render from `text` (the components object of a snapshot) under `root`.
  function restore(root, text) {
    const entries = JSON.parse(text);
    // Instances a failed first render left behind hold no committed state: mount afresh.
    for (const [path, inst] of instances) if (!inst.committed) instances.delete(path);
    restoring = new Map();
    restored = [];
    for (const rel of Object.keys(entries)) {
      const path = root === "" ? rel : rel === "" ? root : root + "/" + rel;
      const e = entries[rel];
      restoring.set(path, { rel: path, component: e.component, hooks: e.hooks, state: e.state, next: 0 });
    }
  }

  // After the first pass of a restoring render: every saved component was mounted, as the same
  // component, calling the same hooks. Otherwise the render fails (and invalidate() drops it).
  function checkRestored() {
    for (const inst of restored) {
      const e = inst.restore;
      if (e.component !== inst.name) {
        throw snapshotError("view.snapshot_mismatch",
                            "the snapshot holds state of <" + e.component + "> at " + inst.path +
                            ", where this render mounts <" + inst.name + ">");
      }
      const kinds = inst.hooks.map((h) => h.kind);
      if (kinds.join(",") !== e.hooks.join(",")) {
        throw snapshotError("view.snapshot_mismatch",
                            "the state of <" + inst.name + "> at " + inst.path + " no longer fits: " +
                            "the snapshot has hooks [" + e.hooks.join(", ") + "], the component now calls [" +
                            kinds.join(", ") + "]");
      }
    }
    for (const [path, e] of restoring) {
      throw snapshotError("view.snapshot_mismatch",
                          "the snapshot holds state for <" + e.component + "> at " + path +
                          ", which this render did not mount; the component tree changed");
    }
    for (const inst of restored) inst.restore = null;
    restoring = null;
    restored = [];
  }

  function disableReuse() {
    reuse = false;
  }

  function render(entry, props) {
    lastProps = props;
    called = 0;
    replayed = 0;
    for (let pass = 0; pass < PASS_LIMIT; pass++) {
      dirty = false;
      const tree = renderPass(entry, props);
      if (restoring !== null) checkRestored();
      commit();
      if (!dirty) return tree;
    }
    const e = new Error("state kept changing after " + PASS_LIMIT +
                        " render passes (an effect sets state on every render?)");
    e.code = "view.render_loop";
    throw e;
  }

  // Returns false when `id` is not mounted. A returned promise is watched: its rejection is
  // reported through takeAsyncError() after C++ drains the job queue.
  let asyncError = undefined;
  let hasAsyncError = false;
  function act(id, args) {
    const fn = handlerFns.get(id);
    if (fn === undefined) return false;
    const r = fn(args);
    if (r !== null && typeof r === "object" && typeof r.then === "function") {
      r.then(undefined, (e) => {
        if (!hasAsyncError) {
          hasAsyncError = true;
          asyncError = e;
        }
      });
    }
    return true;
  }

  function takeAsyncError() {
    if (!hasAsyncError) return undefined;
    hasAsyncError = false;
    const e = asyncError;
    asyncError = undefined;
    throw e;
  }

  function stats() {
    return [handlerFns.size, instances.size, called, replayed];
  }

  function isMounted(id) {
    return handlerFns.has(id);
  }

  function modelName() {
    return host.modelName();
  }
  function hasToken(spelling) {
    return host.hasToken(String(spelling));
  }
  function tokenId(spelling) {
    return host.tokenId(String(spelling));
  }

  const exports = {
    h, Fragment, useState, useReducer, useRef, useMemo, useCallback, useEffect, createContext,
    useContext, asChatTools, modelName, hasToken, tokenId,
  };
  Object.freeze(exports);
  globalThis.h = h;
  globalThis.Fragment = Fragment;
  return { exports, render, act, takeAsyncError, stats, isMounted, invalidate, disableReuse,
           snapshot, restore, lastProps: () => lastProps };
})();
