/**
 * Maximum sizes of the runtime endpoints' fields (docs/configuration.md, "Limits"). A longer value is a 422
 * (`string_too_long` / `too_long`), so nothing unbounded is stored or hashed per request.
 */
export const RUNTIME_MAX = {
  promptId: 128,
  externalUserId: 256,
  promptRunId: 128,
  eventType: 128,
  label: 256,
  value: 16_384,
  source: 128,
  /** Entries in `inputs`. */
  inputs: 256,
  /** `metadata` as stored (compact JSON, UTF-8). */
  metadataBytes: 16_384,
  /** Nesting of `metadata`: `{}` is 1, `{"a":{}}` is 2. */
  metadataDepth: 10,
} as const;

/** How deeply objects and arrays nest in a JSON value, counted only as far as `stopAbove`. */
export function jsonDepth(value: unknown, stopAbove: number): number {
  let deepest = 0;
  const pending: Array<[unknown, number]> = [[value, 1]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > deepest) deepest = depth;
    if (deepest > stopAbove) return deepest;
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return deepest;
}
