// Guards for JSON that no type describes: tool inputs and outputs, OpenUI Lang props.
export type JsonObject = { [key: string]: unknown };

// An object (or array) whose fields may be read; false for null and every primitive.
export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null;
}
