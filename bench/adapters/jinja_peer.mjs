// The path a user would otherwise take for the notebook prompt: render the official chat template
// with @huggingface/jinja, then tokenize the string with the HF tokenizer (@anush008/tokenizers,
// added tokens matched). Run by adapter_bench in the same run; not part of the product.
//
//   node bench/adapters/jinja_peer.mjs <request.json>
//   request: {"tokenizer": path, "template": string, "context": {...}, "iterations": n,
//             "batches": k (default 1)}
//   prints:  {"ids": [...], "ns_per_op": CPU ns (median over the batches), "min_ns_per_op": CPU ns
//             (the fastest batch), "wall_ns_per_op": number (all batches), "first_ns": number,
//             "batches": k}
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
// `batches` batches of `iterations` prompts each, like the C++ side's repetitions.
const batches = Math.max(1, request.batches ?? 1);
const per_batch = [];
t0 = process.hrtime.bigint();
for (let b = 0; b < batches; b++) {
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < request.iterations; i++) ids = await once(template);
  const cpu = process.cpuUsage(cpu0);
  per_batch.push(((cpu.user + cpu.system) * 1000) / request.iterations);
}
const wall_ns_per_op = Number(process.hrtime.bigint() - t0) / (request.iterations * batches);
per_batch.sort((a, b) => a - b);
const mid = per_batch.length >> 1;
const ns_per_op =
  per_batch.length % 2 === 1 ? per_batch[mid] : (per_batch[mid - 1] + per_batch[mid]) / 2;
const min_ns_per_op = per_batch[0];
process.stdout.write(
  JSON.stringify({ ids, ns_per_op, min_ns_per_op, wall_ns_per_op, first_ns, batches }) + "\n");
