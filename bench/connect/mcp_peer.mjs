// The peer for mcp_bench: the official TypeScript MCP client (@modelcontextprotocol/sdk Client +
// StdioClientTransport) calling the same reference server, with the same arguments, in the same
// run. Usage: node mcp_peer.mjs <calls> <batches> <tool> <json args> -- <command> [args...]
// Prints {"batches_us": [...]}: microseconds per call, wall clock, one value per batch (the
// server started and initialized once, before the first batch; one warm-up call).
import {Client} from "../../tools/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js";
import {StdioClientTransport} from
    "../../tools/node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js";

const argv = process.argv.slice(2);
const calls = Number(argv[0]), batches = Number(argv[1]), tool = argv[2];
const args = JSON.parse(argv[3]);
const command = argv.slice(5);
const transport = new StdioClientTransport({command: command[0], args: command.slice(1),
                                            env: process.env, stderr: "ignore"});
const client = new Client({name: "mcp-bench-peer", version: "1.0.0"});
await client.connect(transport);
await client.callTool({name: tool, arguments: args});
const out = [];
for (let b = 0; b < batches; ++b) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < calls; ++i) {
    const r = await client.callTool({name: tool, arguments: args});
    if (r.isError) throw new Error(JSON.stringify(r));
  }
  out.push(Number(process.hrtime.bigint() - t0) / 1000 / calls);
}
process.stdout.write(JSON.stringify({batches_us: out}) + "\n");
await client.close();
