// The path a user would otherwise take for the notebook prompt: render the official chat template
// with @huggingface/jinja, then tokenize the string with the HF tokenizer (@anush008/tokenizers,
// added tokens matched). Run by adapter_bench in the same run; not part of the product.
//
//   node bench/adapters/jinja_peer.mjs <request.json>
//   request: {"tokenizer": path, "template": string, "context": {...}, "iterations": n}
//   prints:  {"ids": [...], "ns_per_op": CPU ns, "wall_ns_per_op": number, "first_ns": number}
import fs from "node:fs";
import { createRequire } from "node:module";
const require = createRequire(new URL("../../tools/package.json", import.meta.url));
const { Template } = require("@huggingface/jinja");
const { Tokenizer } = require("@anush008/tokenizers");

const request = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const tokenizer = Tokenizer.fromFile(request.tokenizer);

async function once(template) {
  const text = template.render(request.context);
  return (await tokenizer.encode(text, null, { addSpecialTokens: false })).getIds();
}

let t0 = process.hrtime.bigint();
const template = new Template(request.template);
let ids = await once(template);
const first_ns = Number(process.hrtime.bigint() - t0);
for (let i = 0; i < 20; i++) await once(template);  // warm-up
// CPU time (user + system, all threads: the tokenizer encodes on libuv's pool) like the C++ side,
// since the machine may be shared; wall time too.
t0 = process.hrtime.bigint();
const cpu0 = process.cpuUsage();
for (let i = 0; i < request.iterations; i++) ids = await once(template);
const cpu = process.cpuUsage(cpu0);
const wall_ns_per_op = Number(process.hrtime.bigint() - t0) / request.iterations;
const ns_per_op = ((cpu.user + cpu.system) * 1000) / request.iterations;
process.stdout.write(JSON.stringify({ ids, ns_per_op, wall_ns_per_op, first_ns }) + "\n");
