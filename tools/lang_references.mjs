// Golden results for the C++ OpenUI Lang parser (src/surface), computed by the real
// @openuidev/lang-core (pinned in tools/package.json).
//
//   OPENUI_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 node tools/lang_references.mjs
//
// Reads tests/golden/surface/corpus/*.lang (programs separated by lines "=== <name>"), parses each
// with lang-core's createParser() against the library named by the file's first line
// ("library: <path>"), and writes tests/golden/surface/golden/<file>.json. For every program in a
// "valid" or "stream" corpus it also records three streamed prefixes (batch parse of the prefix)
// and the streaming parser's result after pushing the program in 7-byte chunks.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

if (process.env.OPENUI_TELEMETRY_DISABLED !== "1" || process.env.DO_NOT_TRACK !== "1") {
  console.error("run with OPENUI_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1");
  process.exit(2);
}
const { createParser, createStreamingParser, mergeStatements } = await import("@openuidev/lang-core");

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const corpusDir = path.join(root, "tests/golden/surface/corpus");
const goldenDir = path.join(root, "tests/golden/surface/golden");
fs.mkdirSync(goldenDir, { recursive: true });

export function readCorpus(file) {
  const text = fs.readFileSync(file, "utf8");
  const lines = text.split("\n");
  const header = lines.shift();
  const m = /^library: (.+)$/.exec(header);
  if (!m) throw new Error(`${file}: first line must be "library: <path>"`);
  const cases = [];
  let cur = null;
  for (const line of lines) {
    const h = /^=== (.+)$/.exec(line);
    if (h) {
      if (cur) cases.push(cur);
      cur = { name: h[1], lines: [] };
    } else if (cur) {
      cur.lines.push(line);
    }
  }
  if (cur) cases.push(cur);
  return {
    library: m[1],
    cases: cases.map((c) => {
      // Trailing blank lines separate cases; the program keeps one final newline.
      while (c.lines.length && c.lines[c.lines.length - 1] === "") c.lines.pop();
      return { name: c.name, program: c.lines.join("\n") + "\n" };
    }),
  };
}

function prefixes(program) {
  const n = program.length;
  const cuts = [Math.floor(n / 3), Math.floor(n / 2), Math.floor((4 * n) / 5)];
  return [...new Set(cuts)].filter((c) => c > 0 && c < n);
}

for (const name of fs.readdirSync(corpusDir).filter((f) => f.endsWith(".lang")).sort()) {
  const { library, cases } = readCorpus(path.join(corpusDir, name));
  const doc = JSON.parse(fs.readFileSync(path.join(root, library), "utf8"));
  const schema = { $defs: doc.$defs };
  const parser = createParser(schema, doc.root);
  const out = { library, generator: "@openuidev/lang-core 0.2.18", cases: [] };
  const streamable = !name.startsWith("invalid") && !name.startsWith("edit");
  for (const c of cases) {
    if (name.startsWith("edit")) {
      // Edit cases: "<existing>\n---patch---\n<patch>"
      const [existing, patch] = c.program.split("---patch---\n");
      out.cases.push({ name: c.name, kind: "edit", existing, patch,
                       merged: mergeStatements(existing, patch) });
      continue;
    }
    const entry = { name: c.name, kind: streamable ? "valid" : "invalid", program: c.program,
                    result: parser.parse(c.program) };
    out.cases.push(entry);
    if (!streamable) continue;
    for (const cut of prefixes(c.program)) {
      const program = c.program.slice(0, cut);
      out.cases.push({ name: `${c.name}@${cut}`, kind: "prefix", program,
                       result: parser.parse(program) });
    }
    const sp = createStreamingParser(schema, doc.root);
    let last = null;
    for (let i = 0; i < c.program.length; i += 7) last = sp.push(c.program.slice(i, i + 7));
    entry.stream = last;
  }
  fs.writeFileSync(path.join(goldenDir, name.replace(/\.lang$/, ".json")),
                   JSON.stringify(out, null, 1) + "\n");
  console.log(`${name}: ${out.cases.length} cases`);
}

// ── System prompt goldens ───────────────────────────────────────────────────────────────────
// A library defined the JavaScript way (Zod schemas), exported with toJSONSchema(); our C++
// reads the exported document and must generate the same prompt as library.prompt().
{
  const { defineComponent, createLibrary, tagSchemaId } = await import("@openuidev/lang-core");
  const { z } = await import("zod/v4");
  const action = z.any();
  tagSchemaId(action, "ActionExpression");
  const Text = defineComponent({ name: "Text", description: "A paragraph",
    props: z.object({ text: z.string(), size: z.enum(["s", "m", "l"]).optional() }), component: null });
  const Btn = defineComponent({ name: "Btn", description: "A button",
    props: z.object({ label: z.string(), action: action.optional() }), component: null });
  const Item = defineComponent({ name: "Item", description: "",
    props: z.object({ value: z.string(), count: z.number().optional(), on: z.boolean() }), component: null });
  const List = defineComponent({ name: "List", description: "A list of items",
    props: z.object({ items: z.array(Item.ref), title: z.string().optional(),
                      meta: z.object({ a: z.string(), b: z.number().optional() }).optional() }),
    component: null });
  const Page = defineComponent({ name: "Page", description: "The page",
    props: z.object({ children: z.array(z.union([Text.ref, List.ref, Btn.ref])),
                      theme: z.enum(["light", "dark"]).optional() }), component: null });
  const lib = createLibrary({ root: "Page", components: [Page, Text, Btn, List, Item],
    componentGroups: [{ name: "Content", components: ["Text", "List", "Item"], notes: ["- Keep lists short."] }] });
  const doc = { root: "Page", componentGroups: lib.componentGroups, ...lib.toJSONSchema() };
  // toJSONSchema() drops prompt-only type tags; a JSON library names them with "title".
  doc.$defs.Btn.properties.action.title = "ActionExpression";
  const tools = [
    "simple_tool",
    { name: "list_tickets", description: "List tickets",
      inputSchema: { type: "object", properties: { status: { type: "string", enum: ["open", "closed"] }, limit: { type: "number" } }, required: ["status"] },
      outputSchema: { type: "object", properties: { rows: { type: "array", items: { type: "object", properties: { id: { type: "string" }, n: { type: "integer" } } } }, ok: { type: "boolean" } } } },
    { name: "create_ticket", inputSchema: { type: "object", properties: {} }, outputSchema: { type: "object" } },
  ];
  const variants = {
    plain: {},
    tools: { tools },
    edit_inline: { editMode: true, inlineMode: true, additionalRules: ["Be brief."], examples: ["root = Page([])"] },
    bindings_only: { bindings: true },
  };
  const out = { generator: "@openuidev/lang-core 0.2.18", library: doc, tools, prompts: {} };
  for (const [name, options] of Object.entries(variants)) out.prompts[name] = { options, prompt: lib.prompt(options) };
  fs.writeFileSync(path.join(goldenDir, "prompt.json"), JSON.stringify(out, null, 1) + "\n");
  console.log(`prompt.json: ${Object.keys(variants).length} prompts`);
}
