// What a connector result served of what its source held, when that is less than all of it or
// some of its reads failed (the terminal's ServedNote says the same words): "5 of 30 rows, cut by
// the limit", "11 of 12 rows, 1 read failed: get_item id 7". '' for a whole result and for
// anything that is not a connector result.
import { isObject } from './json';

function int(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) ? v : undefined;
}

export function servedNote(output: unknown): string {
  if (!isObject(output)) return '';
  const returned = int(output.returned_rows);
  const total = int(output.total_rows);
  if (returned === undefined || total === undefined) return '';
  const truncated = output.truncated === true;
  const partial = output.status === 'partial';
  if (!truncated && !partial && returned === total) return '';
  let note = `${returned} of ${total}${output.total_rows_exact === false ? '+' : ''} rows`;
  if (truncated) {
    const reason = output.truncated_reason;
    note += reason === 'limit' ? ', cut by the limit'
      : reason === 'char_cap' ? ", cut at the result's size cap"
        : ', the source stopped at its row cap';
  }
  if (partial) {
    let failed = 0;
    let which = '';
    const ledger = Array.isArray(output.operation_ledger) ? output.operation_ledger : [];
    for (const entry of ledger) {
      const fan = isObject(entry) ? entry.fan_out : undefined;
      if (!isObject(fan)) continue;
      failed += int(fan.failed) ?? 0;
      for (const e of Array.isArray(fan.errors) ? fan.errors : []) {
        if (which.length > 60 || !isObject(e)) break;
        const id = typeof e.id === 'string' ? e.id : JSON.stringify(e.id);
        which += which === '' ? `: ${String(e.operation ?? '')} id ${id}` : `, ${id}`;
      }
    }
    note += failed > 0 ? `, ${failed} ${failed === 1 ? 'read' : 'reads'} failed${which}`
      : ', partial: the source failed part of the request';
  }
  return note;
}
