// node:fs as it is, plus the one export Node 20 lacks (see node20_fs.mjs).
import fs from 'node:fs';

export * from 'node:fs';
export default fs;
export function globSync() {
  throw new Error('fs.globSync needs Node 22 (only the conformance tier-check command uses it)');
}
