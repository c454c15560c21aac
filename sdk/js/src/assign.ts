/**
 * The server's assignment (docs/sdks.md, "Assigning a user"): GrowthBook's hash v2, FNV-1a 32 over
 * UTF-16 code units, against the bucket ranges the server computed (never recomputed here).
 */

function fnv1a32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** In [0, 1) with 4 decimals: hashV2('seed', 'a') = 0.0505. */
export function hashV2(seed: string, id: string): number {
  return (fnv1a32(String(fnv1a32(seed + id))) % 10000) / 10000;
}

/** The index of the variant whose range [lo, hi) holds the user, or -1: outside coverage, or an empty id (never assigned). */
export function chooseVariant(seed: string, userId: string, ranges: ReadonlyArray<{ lo: number; hi: number }>): number {
  if (userId.length === 0) return -1;
  const n = hashV2(seed, userId);
  return ranges.findIndex((r) => n >= r.lo && n < r.hi);
}
