// Writes the golden references for the chat-format wrappers (tests/golden/adapters/*.json).
//
//   node tools/adapter_references.mjs [<out dir>]      (default: tests/golden/adapters)
//
// Reference time only: the product never runs this. Each case is a conversation rendered with the
// OFFICIAL template through @huggingface/jinja and tokenized with the HF tokenizer
// (@anush008/tokenizers, added tokens matched because template output is trusted protocol text,
// no post-processor, as transformers' apply_chat_template does):
//   - Qwen: the chat_template of models/Qwen__Qwen3-4B-Instruct-2507/tokenizer_config.json, the
//     hybrid Qwen3 template, with enable_thinking left undefined. For turns without reasoning it
//     renders what the 2507 Instruct template renders.
//   - Llama: third_party/llama.cpp/models/templates/meta-llama-Llama-3.1-8B-Instruct.jinja (the
//     official 3.1 template), date_string pinned per case.
//
// The conversation shape is the one our wrappers write (views/adapters/*.tsx): optional system,
// the question as a user turn, the history, then the app body as the last user turn, then the
// generation prompt. The app body is given as a small tree (text runs and intrinsic elements, see
// `bodyText`) so the C++ contract tests can build the same tree; it must be "simple": tokenizing
// each run on its own and concatenating must equal tokenizing the flat body. The script refuses a
// case that breaks this, so every golden compares like with like.
//
// Assistant history turns are recorded with the token IDs the model sampled (taken from the
// reference tokens of that turn); the wrappers re-emit those IDs and never re-serialize them.
// Assistant text turns keep their `content` too, so the tests also render them as app-written
// text. Message text may carry leading and trailing whitespace (the whitespace_* cases): only the
// app body must be simple.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Template } from "@huggingface/jinja";
import tokenizers from "@anush008/tokenizers";

const { Tokenizer } = tokenizers;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outDir = path.resolve(process.argv[2] ?? path.join(root, "tests/golden/adapters"));

// --- The app-body mini tree ----------------------------------------------------------------------
// A node is a string (one text run) or {type, props, handlers, children}. handlers name fixed
// handler shapes the contract test view implements: "onChange" ({ value }) => ..., "onClick"
// () => ..., "onSubmit" ({ text, mode = "append" }) => .... Layout rules mirrored here (they are
// the documented rules of docs/RUNTIME.md): box/list: children in order; scroll: children from
// `offset`; input: one run "label: value"; button: one run "[label]". No budget in a golden may clip.
function bodyRuns(node, out = []) {
  if (Array.isArray(node)) {
    node.forEach((c) => bodyRuns(c, out));
    return out;
  }
  if (typeof node === "string") {
    out.push(node);
    return out;
  }
  const props = node.props ?? {};
  const children = node.children ?? [];
  switch (node.type) {
    case "box":
    case "list":
      children.forEach((c) => bodyRuns(c, out));
      break;
    case "scroll":
      children.slice(props.offset ?? 0).forEach((c) => bodyRuns(c, out));
      break;
    case "input":
      out.push(`${props.label}: ${props.value ?? ""}`);
      break;
    case "button":
      out.push(`[${props.label}]`);
      break;
    default:
      throw new Error(`unknown intrinsic in a golden body: ${node.type}`);
  }
  return out;
}

// --- Cases ---------------------------------------------------------------------------------------
const notesInput = (value) => ({
  type: "input",
  props: { label: "notes", value },
  handlers: ["onChange"],
});
// Tool objects as a chat API user writes them (OpenAI order: type, then function {name,
// parameters {type, properties, required}}). The official templates print keys in the order they
// are given, so this also checks that src/render keeps that order end to end.
const tool = (name, parameters) => ({ type: "function", function: { name, parameters } });
const changeTool = (label) =>
  tool(toolName("onChange", label), { type: "object", properties: { value: {} }, required: ["value"] });
const clickTool = (label) => tool(toolName("onClick", label), { type: "object", properties: {} });
const changeNotes = changeTool("notes");

// The naming rule of docs/RUNTIME.md ("Projection"), mirrored for the references: event without
// "on", lower-cased, "__", the label with each run of characters outside [A-Za-z0-9_-] replaced by
// "_"; a changed or truncated label gets "_" + FNV-1a 32 (hex) of its full UTF-8 bytes; <= 64.
function fnv1a32(text) {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(text, "utf8")) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}
function toolName(event, label) {
  const ev = event.slice(2).toLowerCase();
  const clean = label.replace(/[^A-Za-z0-9_-]+/gu, "_");
  let tail = clean === label ? "" : `_${fnv1a32(label)}`;
  let room = 64 - ev.length - 2 - tail.length;
  if (clean.length > room && !tail) {
    tail = `_${fnv1a32(label)}`;
    room -= tail.length;
  }
  return `${ev}__${clean.slice(0, room)}${tail}`;
}

const notebook = (numbers, notes, offset = 0) => [
  "Notebook\n",
  {
    type: "scroll",
    props: { offset, budget: 64 },
    children: numbers.map((n, i) => `${i > offset ? ", " : ""}${n}`),
  },
  "\n",
  notesInput(notes),
];

function cases(model) {
  const llama = model === "llama";
  const date = "29 Nov 2026";
  return [
    {
      name: "no_tools",
      question: "What is the largest number shown?",
      body: ["Numbers: 3, 14, 15, 92 and 65."],
      tools: [],
    },
    {
      name: "with_tools",
      question: "Write down the sum of the numbers in the notes.",
      body: notebook([3, 14, 15], "draft"),
      tools: [changeNotes],
    },
    {
      name: "unicode",
      question: "Übersetze die Notiz ins Deutsche, bitte — 谢谢!",
      body: [
        "Grüße aus Köln: 数字 ٣ and 🙂 emoji\n",
        { type: "input", props: { label: "Notiz", value: "naïve café ☕" }, handlers: ["onChange"] },
        "\n",
        { type: "button", props: { label: "Grüße senden" }, handlers: ["onClick"] },
      ],
      tools: [changeTool("Notiz"), clickTool("Grüße senden")],
    },
    {
      name: "history_tool_call",
      question: "Write down the sum of the numbers in the notes.",
      history: [
        { role: "assistant", tool_calls: [{ name: "change__notes", arguments: { value: "32" } }] },
        { role: "tool", content: "ok" },
      ],
      body: notebook([3, 14, 15], "32"),
      tools: [changeNotes],
    },
    {
      name: "system_with_tools",
      system: "You operate a notebook app. Use its tools.",
      question: "Save the note \"done\" and submit.",
      body: [
        "Notebook\n",
        notesInput("draft"),
        "\n",
        { type: "button", props: { label: "save" }, handlers: ["onClick"] },
      ],
      tools: [changeNotes, clickTool("save")],
    },
    {
      name: "system_no_tools",
      system: "Answer in one sentence.",
      question: "Which numbers are visible?",
      body: notebook([7, 8, 9, 10, 11], "", 2).slice(0, 2),
      tools: [],
    },
    {
      name: "multi_turn_history",
      system: "You operate a notebook app.",
      question: "Note the first number, then tell me what you noted.",
      history: llama
        ? [
            { role: "assistant", tool_calls: [{ name: "change__notes", arguments: { value: "3" } }] },
            { role: "tool", content: "ok" },
            { role: "assistant", content: "I noted 3." },
            { role: "user", content: "Now append the second one." },
            { role: "assistant", tool_calls: [{ name: "change__notes", arguments: { value: "3 14" } }] },
            { role: "tool", content: "ok" },
          ]
        : [
            {
              role: "assistant",
              tool_calls: [
                { name: "change__notes", arguments: { value: "3" } },
                { name: "change__notes", arguments: { value: "3 14" } },
              ],
            },
            { role: "tool", content: "ok" },
            { role: "tool", content: "ok again" },
            { role: "assistant", content: "I noted 3 and 14." },
            { role: "user", content: "Thanks. Anything else?" },
          ],
      body: notebook([3, 14, 15, 92], "3 14", 1),
      tools: [changeNotes],
    },
    // A tool result wrapped as the harness wraps evidence (harness/frame_text.h EvidenceText, its
    // reference included) and an answer that cites it: the wrapper and the citation are plain
    // text to both templates.
    {
      name: "cited_evidence",
      question: "Write down the sum of the numbers in the notes.",
      history: [
        { role: "assistant", tool_calls: [{ name: "change__notes", arguments: { value: "32" } }] },
        { role: "tool", content: '<tool-result ref="r1" tool="change__notes" trust="untrusted">\nnotes: 32\n</tool-result>' },
        { role: "assistant", content: "I wrote 32 in the notes [r1]." },
        { role: "user", content: "Is [r1] still right?" },
      ],
      body: notebook([3, 14, 15], "32"),
      tools: [changeNotes],
    },
    // Text around the app with leading and trailing whitespace: the Llama template trims the
    // system text, the question (the first user message, which carries the tools), user and
    // assistant messages, and JSON-quotes tool results (whitespace kept); Qwen's keeps all of it.
    {
      name: "whitespace_with_tools",
      system: "\n  You operate a notebook app.  \n\n",
      question: "  Write down the sum of the numbers in the notes.\n\n",
      history: [
        { role: "assistant", tool_calls: [{ name: "change__notes", arguments: { value: " 32 " } }] },
        { role: "tool", content: "  ok\n\n" },
        { role: "assistant", content: "  I wrote 32.  \n\n" },
        { role: "user", content: "\t Check it again, please. \n" },
      ],
      body: notebook([3, 14, 15], "32"),
      tools: [changeNotes],
    },
    {
      name: "whitespace_no_tools",
      system: " Answer in one sentence.\r\n",
      question: "\n\nWhich numbers are visible?   ",
      history: [
        { role: "assistant", content: "  3, 14 and 15.\n" },
        { role: "user", content: "\n And now? \n\n" },
      ],
      body: ["Numbers: 3, 14, 15, 92 and 65."],
      tools: [],
    },
    // A harness frame (views/harness/frame.tsx): the caller's own tools in the tool section, the
    // app's tools disclosed after its tree in the app turn (`appToolsInTurn`, appDisclosure), so
    // the tokens before the app turn do not depend on the app's actions. The reference is the
    // official template with only the own tools and the app turn as the last user message.
    {
      name: "app_tools_in_turn",
      system: "You operate a notebook app.",
      question: "Write down the sum of the numbers in the notes.",
      own_tools: [searchTool],
      body: notebook([3, 14, 15], "draft"),
      tools: [changeNotes],
    },
    {
      name: "app_tools_in_turn_history",
      system: "You operate a notebook app.",
      question: "Name the note that holds 32.",
      history: [
        { role: "assistant", tool_calls: [{ name: "change__notes", arguments: { value: "32" } }] },
        { role: "tool", content: "ok" },
      ],
      own_tools: [searchTool, askTool],
      body: [
        "Notebook\n",
        notesInput("32"),
        "\n",
        { type: "input", props: { label: "title", value: "sums" }, handlers: ["onChange"] },
      ],
      tools: [changeNotes, changeTool("title")],
    },
    {
      name: "app_tools_in_turn_none_visible",
      question: "Which numbers are visible?",
      own_tools: [searchTool],
      body: ["Numbers: 3, 14, 15, 92 and 65."],
      tools: [],
    },
  ].map((c) => (llama ? { date, ...c } : c));
}

// The own tools of the app_tools_in_turn cases (a harness's resident tools, with descriptions).
const searchTool = {
  type: "function",
  function: {
    name: "ToolSearch",
    description: "Find deferred tools by words.",
    parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
  },
};
const askTool = {
  type: "function",
  function: {
    name: "AskUserQuestion",
    description: "Ask the person one question.",
    parameters: { type: "object", properties: { question: { type: "string" } }, required: ["question"] },
  },
};

// The app's tools as the wrappers disclose them in the app turn (appToolsInTurn), serialized by
// the official template itself: its tool section rendered for these tools alone, cut out.
const APP_TOOLS_HEAD = {
  qwen:
    "\n\n# App tools\n\nThe app above is operated with these functions, called like the tools " +
    "above; only the ones listed here can be called now:\n<tools>",
  llama:
    "\n\nThe app above is operated with these functions, called like the functions above and in " +
    "the same format; only the ones listed here can be called now.\n\n",
};
function appDisclosure(model, m, template, tools) {
  if (tools.length === 0) return "";
  const text = template.render({
    messages: [{ role: "user", content: "\u0000" }],
    tools,
    add_generation_prompt: false,
    ...m.context({ date: "29 Nov 2026" }),
  });
  if (model === "qwen") {
    const open = "XML tags:\n<tools>";
    const from = text.indexOf(open) + open.length;
    const to = text.indexOf("\n</tools>");
    return APP_TOOLS_HEAD.qwen + text.slice(from, to) + "\n</tools>";
  }
  const intro = "Do not use variables.\n\n";
  const from = text.indexOf(intro) + intro.length;
  const to = text.indexOf("\n\n\u0000");
  return APP_TOOLS_HEAD.llama + text.slice(from, to);
}

// --- Rendering -----------------------------------------------------------------------------------
const models = {
  qwen: {
    dir: "Qwen__Qwen3-4B-Instruct-2507",
    template: () =>
      JSON.parse(fs.readFileSync(path.join(root, "models/Qwen__Qwen3-4B-Instruct-2507/tokenizer_config.json"), "utf8"))
        .chat_template,
    templateSource: "models/Qwen__Qwen3-4B-Instruct-2507/tokenizer_config.json chat_template (hybrid Qwen3, enable_thinking undefined)",
    assistantHead: ["<|im_start|>", "assistant", "\n"],
    turnEnd: "<|im_end|>",
    bodySuffix: "<|im_end|>\n<|im_start|>assistant\n",
    context: (c) => ({}),
  },
  llama: {
    dir: "meta-llama__Llama-3.1-8B-Instruct",
    template: () =>
      fs.readFileSync(path.join(root, "third_party/llama.cpp/models/templates/meta-llama-Llama-3.1-8B-Instruct.jinja"), "utf8"),
    templateSource: "third_party/llama.cpp/models/templates/meta-llama-Llama-3.1-8B-Instruct.jinja (llama.cpp 80fb11a)",
    assistantHead: ["<|start_header_id|>", "assistant", "<|end_header_id|>", "\n\n"],
    turnEnd: "<|eot_id|>",
    bodySuffix: "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
    context: (c) => ({ bos_token: "<|begin_of_text|>", date_string: c.date }),
  },
};

async function encode(tok, text) {
  return (await tok.encode(text, null, { addSpecialTokens: false })).getIds();
}

function messagesOf(c, disclosure) {
  const messages = [];
  if (c.system !== undefined) messages.push({ role: "system", content: c.system });
  messages.push({ role: "user", content: c.question });
  for (const m of c.history ?? []) {
    if (m.tool_calls) {
      messages.push({
        role: "assistant",
        content: "",
        tool_calls: m.tool_calls.map((t) => ({ type: "function", function: t })),
      });
    } else {
      messages.push({ role: m.role, content: m.content });
    }
  }
  messages.push({ role: "user", content: bodyRuns(c.body).join("") + disclosure });
  return messages;
}

// Finds the IDs of each assistant turn in the reference tokens: after the assistant header, up to
// (not including) the turn end. These are the IDs "the model sampled".
function assistantTurns(ids, headIds, endId) {
  const turns = [];
  for (let i = 0; i + headIds.length <= ids.length; i++) {
    if (headIds.every((h, k) => ids[i + k] === h)) {
      const start = i + headIds.length;
      const end = ids.indexOf(endId, start);
      if (end < 0) break;  // the generation prompt at the end
      turns.push(ids.slice(start, end));
      i = end;
    }
  }
  return turns;
}

async function main() {
  fs.mkdirSync(outDir, { recursive: true });
  for (const [model, m] of Object.entries(models)) {
    const tok = Tokenizer.fromFile(path.join(root, "models", m.dir, "tokenizer.json"));
    const template = new Template(m.template());
    const headIds = [];
    for (const piece of m.assistantHead) headIds.push(...(await encode(tok, piece)));
    const [endId] = await encode(tok, m.turnEnd);
    const out = [];
    for (let c of cases(model)) {
      const inTurn = c.own_tools !== undefined;
      const disclosure = inTurn ? appDisclosure(model, m, template, c.tools) : "";
      const messages = messagesOf(c, disclosure);
      const context = { messages, add_generation_prompt: true, ...m.context(c) };
      const sectionTools = inTurn ? c.own_tools : c.tools;
      if (sectionTools.length) context.tools = sectionTools;
      const text = template.render(context);
      const ids = await encode(tok, text);
      // The body must be the last user turn, and tokenizing its runs one by one must agree with the
      // flat reference (a "simple" body). The app-tool disclosure is one more run after the tree.
      const runs = bodyRuns(c.body);
      const bodyLength = runs.length;
      if (disclosure) runs.push(disclosure);
      const body = runs.join("");
      if (!text.endsWith(body + m.bodySuffix)) throw new Error(`${model}/${c.name}: body is not the last turn`);
      const prefix = text.slice(0, text.length - body.length - m.bodySuffix.length);
      const prefixIds = await encode(tok, prefix);
      const bodyIds = [];
      let treeIds = 0;
      for (const [i, r] of runs.entries()) {
        bodyIds.push(...(await encode(tok, r)));
        if (i === bodyLength - 1) treeIds = bodyIds.length;
      }
      const suffixIds = await encode(tok, m.bodySuffix);
      const joined = [...prefixIds, ...bodyIds, ...suffixIds];
      if (JSON.stringify(joined) !== JSON.stringify(ids)) {
        throw new Error(`${model}/${c.name}: the body's runs do not tokenize like the flat prompt; simplify the case`);
      }
      const sampled = assistantTurns(ids, headIds, endId);
      let turn = 0;
      const history = (c.history ?? []).map((h) => {
        if (h.role !== "assistant") return h;
        const tokens = sampled[turn++];
        return { ...h, tokens };
      });
      if (turn !== sampled.length) throw new Error(`${model}/${c.name}: assistant turns do not line up`);
      out.push({
        name: c.name,
        ...(c.system !== undefined ? { system: c.system } : {}),
        ...(c.date !== undefined ? { date: c.date } : {}),
        question: c.question,
        history,
        body: c.body,
        body_text: runs.slice(0, bodyLength).join(""),
        body_range: [prefixIds.length, prefixIds.length + treeIds],
        ...(inTurn ? { own_tools: c.own_tools, app_tools_in_turn: true } : {}),
        tools: c.tools,
        text,
        tokens: ids,
      });
    }
    const doc = {
      generator: "tools/adapter_references.mjs",
      template: m.templateSource,
      tokenizer: `models/${m.dir}/tokenizer.json via @anush008/tokenizers (added tokens matched, no post-processor)`,
      cases: out,
    };
    const file = path.join(outDir, `${model === "qwen" ? "qwen3" : "llama31"}.json`);
    fs.writeFileSync(file, JSON.stringify(doc, null, 1) + "\n");
    console.log(`wrote ${path.relative(root, file)} (${out.length} cases)`);
  }
}

await main();
