/** One field that differs between two JSON documents: its path, and its value on each side (absent: undefined). */
export interface FieldChange {
  path: string;
  before?: string;
  after?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The leaves of a JSON document by path (`variants[0].weight`), each written as JSON. An array of
 * plain values (a list of event names, of fallbacks) is one leaf: "[a, b] → [a, c]" reads better
 * than its items one by one. Empty objects and arrays are leaves too, so they are not lost.
 */
function leaves(value: unknown, path: string, out: Map<string, string>): void {
  if (isObject(value) && Object.keys(value).length > 0) {
    for (const [key, inner] of Object.entries(value)) leaves(inner, path === '' ? key : `${path}.${key}`, out);
  } else if (Array.isArray(value) && value.some((item) => typeof item === 'object' && item !== null)) {
    for (const [i, item] of value.entries()) leaves(item, `${path}[${i}]`, out);
  } else {
    out.set(path, JSON.stringify(value) ?? 'null');
  }
}

/**
 * What changed from `before` to `after` (an audit entry's two sides; null when the object is new
 * or gone), field by field, in the order of `after`, then the fields only `before` had. A side that
 * is null contributes nothing, so a new object reads as its fields added.
 */
export function jsonDiff(before: unknown, after: unknown): FieldChange[] {
  const was = new Map<string, string>();
  const now = new Map<string, string>();
  if (before !== null && before !== undefined) leaves(before, '', was);
  if (after !== null && after !== undefined) leaves(after, '', now);
  const changes: FieldChange[] = [];
  for (const [path, value] of now) {
    const old = was.get(path);
    if (old === value) continue;
    changes.push(old === undefined ? { path, after: value } : { path, before: old, after: value });
  }
  for (const [path, value] of was) if (!now.has(path)) changes.push({ path, before: value });
  return changes;
}

/** A JSON value cut to `max` characters for a one-line summary (the full JSON is shown on request). */
export function clipped(json: string, max = 120): string {
  return json.length <= max ? json : `${json.slice(0, max - 1)}…`;
}
