// An Html canvas's placeholders filled from its data, as the terminal fills them
// (src/surface/internal/text_blocks.cpp FillTemplate): {{path}} (a dotted path, looked up in the
// innermost scope that has its first key; {{this}} is the current item) and
// {{#each path}}…{{/each}} (nested eaches pair up by depth, at most 16 deep); `path.length` of an
// array or a string is its number of elements or code points (an object's own "length" key wins).
// Every value is
// escaped for HTML text and attributes, so data never becomes markup. A stray {{/each}} is
// dropped; an unclosed {{ is kept as written.

import { isObject } from './json';

type Json = unknown;

function lookup(scopes: Json[], path: string): Json {
  if (path === 'this' || path === '.') return scopes[scopes.length - 1];
  const keys = path.split('.');
  for (let s = scopes.length - 1; s >= 0; s--) {
    let cur: Json = scopes[s];
    let found = true;
    for (const key of keys) {
      if (!isObject(cur) || Array.isArray(cur) || !Object.prototype.hasOwnProperty.call(cur, key)) {
        found = false;
        break;
      }
      cur = cur[key];
    }
    if (found) return cur;
  }
  return undefined;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function text(v: Json): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v) ?? '';
}

// The value a {{path}} fills in: the value at the path, else the length of an array or a string.
function placeholder(scopes: Json[], path: string): Json {
  const v = lookup(scopes, path);
  if (v !== undefined || !path.endsWith('.length') || path.length <= 7) return v;
  const of = lookup(scopes, path.slice(0, -7));
  if (Array.isArray(of)) return of.length;
  if (typeof of === 'string') return [...of].length;
  return undefined;
}

function fill(t: string, scopes: Json[], depth: number): string {
  let out = '';
  let i = 0;
  while (i < t.length) {
    const open = t.indexOf('{{', i);
    if (open < 0 || depth > 16) return out + t.slice(i);
    out += t.slice(i, open);
    const close = t.indexOf('}}', open + 2);
    if (close < 0) return out + t.slice(open);
    const tag = t.slice(open + 2, close).trim();
    i = close + 2;
    if (!tag.startsWith('#each')) {
      if (tag.startsWith('/')) continue; // a stray close
      const v = placeholder(scopes, tag);
      if (v !== undefined && v !== null) out += escapeHtml(text(v));
      continue;
    }
    // The body runs to the matching {{/each}}.
    const body = i;
    let level = 1;
    let end = t.length;
    let after = t.length;
    for (let j = t.indexOf('{{', i); j >= 0; j = t.indexOf('{{', j)) {
      const k = t.indexOf('}}', j + 2);
      if (k < 0) break;
      const inner = t.slice(j + 2, k).trim();
      if (inner.startsWith('#each')) level++;
      if (inner === '/each' && --level === 0) {
        end = j;
        after = k + 2;
        break;
      }
      j = k + 2;
    }
    const list = lookup(scopes, tag.slice(5).trim());
    if (Array.isArray(list)) {
      for (const item of list) out += fill(t.slice(body, end), [...scopes, item], depth + 1);
    }
    i = after;
  }
  return out;
}

export function fillTemplate(markup: string, data: Json): string {
  return fill(markup, [data ?? {}], 0);
}
