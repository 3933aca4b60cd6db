// Lets the pinned conformance suite (@modelcontextprotocol/conformance 0.1.16, built for Node 22)
// load on this machine's Node 20: its bundle imports `globSync` from node:fs (added in Node 22),
// used only by its `tier-check` command, which we never run. Registered with `node --import`, this
// resolve hook hands that bundle a node:fs with a `globSync` that refuses; nothing else changes.
import { register } from 'node:module';

const shim = new URL('./node20_fs_shim.mjs', import.meta.url).href;
register(`data:text/javascript,${encodeURIComponent(`
export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') &&
      context.parentURL?.includes('/@modelcontextprotocol/conformance/dist/')) {
    return { url: ${JSON.stringify(shim)}, shortCircuit: true };
  }
  return next(specifier, context);
}`)}`);
