// pyJson(value, indent?): JSON text exactly as Python's json.dumps(value, ensure_ascii=False[,
// indent=N]) writes it, which is what the official chat templates' `tojson` filter prints:
// separators ", " and ": " (with indent: "," and ": ", one item per line), keys in insertion
// order, non-ASCII characters unescaped, control characters escaped like JSON.stringify (Python
// escapes the same set the same way). Numbers: integers as digits; other finite numbers in
// JavaScript's shortest form with Python's two-digit exponent ("1e-07"); undefined object members
// are skipped. Throws a TypeError for values JSON cannot hold (functions, symbols).
export function pyJson(value: unknown, indent?: number): string {
  return write(value, indent !== undefined && indent > 0 ? " ".repeat(indent) : "", "");
}

function num(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (n === Infinity) return "Infinity";
  if (n === -Infinity) return "-Infinity";
  return String(n).replace(/e([+-])(\d)$/, "e$10$2");
}

function write(value: unknown, pad: string, at: string): string {
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
      return num(value);
    case "bigint":
      return value.toString();
    case "string":
      return JSON.stringify(value);
    case "object": {
      const inner = at + pad;
      const open = pad ? "\n" + inner : "";
      const sep = pad ? ",\n" + inner : ", ";
      const close = pad ? "\n" + at : "";
      if (Array.isArray(value)) {
        if (value.length === 0) return "[]";
        return "[" + open + value.map((v) => write(v, pad, inner)).join(sep) + close + "]";
      }
      const parts: string[] = [];
      for (const key of Object.keys(value as object)) {
        const v = (value as Record<string, unknown>)[key];
        if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
        parts.push(JSON.stringify(key) + ": " + write(v, pad, inner));
      }
      if (parts.length === 0) return "{}";
      return "{" + open + parts.join(sep) + close + "}";
    }
    default:
      throw new TypeError("pyJson: cannot serialize a " + typeof value);
  }
}
