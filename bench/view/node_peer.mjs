// Side-by-side peer for bench/view/view_bench: the SAME runtime library (src/view/runtime.js) and
// the SAME transformed notebook view, run in Node (V8) instead of QuickJS. Measures render and
// act + re-render in JavaScript only (no conversion to C++ nodes, no sandbox), in CPU time.
// Run: node bench/view/node_peer.mjs            (V8 with JIT)
//      node --jitless bench/view/node_peer.mjs  (V8 interpreter only)
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(path.join(root, "tools/package.json"));
const sucrase = require("sucrase");

globalThis.__affordance_host = {
  signature: () => 0,
  chatTools: () => { throw new Error("no layout in the peer"); },
  modelName: () => "",
  hasToken: () => false,
  tokenId: () => { throw new Error("no encoder"); },
};
const api = (0, eval)(readFileSync(path.join(root, "src/view/runtime.js"), "utf8"));

const source = readFileSync(path.join(root, "bench/view/data/notebook.tsx"), "utf8");
const t0 = process.hrtime.bigint();
const { code } = sucrase.transform(source, {
  transforms: ["typescript", "jsx", "imports"], jsxRuntime: "classic", jsxPragma: "h",
  jsxFragmentPragma: "Fragment", disableESTransforms: true, production: true,
});
const transformMs = Number(process.hrtime.bigint() - t0) / 1e6;
const mod = { exports: {} };
new Function("require", "module", "exports", code)(
  (name) => { if (name === "affordance") return api.exports; throw new Error(name); }, mod, mod.exports);

function find(nodes, label) {
  for (const n of nodes) {
    if (typeof n !== "object" || n.block !== undefined) continue;
    if (n.props.label === label) return n.handlers[1];
    const id = find(n.children, label);
    if (id) return id;
  }
  return 0;
}

// CPU time per call (user + system), like the CPU column of view_bench.
function time(name, iterations, fn) {
  for (let i = 0; i < Math.min(500, iterations); i++) fn(i);
  const start = process.cpuUsage();
  for (let i = 0; i < iterations; i++) fn(i);
  const used = process.cpuUsage(start);
  const us = (used.user + used.system) / iterations;
  console.log(`${name.padEnd(28)} ${us.toFixed(1)} us CPU`);
}

const numbers = Array.from({ length: 40 }, (_, i) => i * 1.5 + 0.25);
const props = { numbers, budget: 48 };
let tree = api.render(mod.exports.Notebook, props);
const pick3 = find(tree, "pick 3"), pick4 = find(tree, "pick 4");
console.log(`node ${process.version} ${process.execArgv.join(" ") || "(jit)"}`);
console.log(`${"transform notebook.tsx".padEnd(28)} ${(transformMs * 1000).toFixed(0)} us (first call, cold JIT)`);
time("notebook render", 3000, () => api.render(mod.exports.Notebook, props));
time("notebook act + re-render", 3000, (i) => {
  api.act(i % 2 ? pick3 : pick4, {});
  api.render(mod.exports.Notebook, props);
});
time("render 200 nodes (Wide)", 1000, () => api.render(mod.exports.Wide, { n: 100 }));
