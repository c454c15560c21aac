/**
 * Deterministic, GrowthBook-compatible variant assignment (docs/design-decisions.md, "Assignment and attribution").
 *
 * Reproduces GrowthBook's JS SDK (`packages/sdk-js/src/util.ts`: `hash` version 2,
 * `getBucketRanges`, `chooseVariation`, `inRange`) so that any GrowthBook SDK given the same
 * seed, normalised weights and coverage puts a user in the same variant.
 *
 * Hot path: `hashV2` allocates nothing (no `seed + id` concatenation, no `String(number)`);
 * `assignFromRanges` is what a request should call with ranges cached per experiment.
 */

export type BucketRange = [number, number];

const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** Continues an FNV-1a 32-bit hash over the UTF-16 code units of `s`. */
function fnvUpdate(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  }
  return h;
}

/** FNV-1a 32-bit over UTF-16 code units (not UTF-8 bytes), as GrowthBook's `hashFnv32a`. */
export function fnv1a32(s: string): number {
  return fnvUpdate(FNV_OFFSET_BASIS, s) >>> 0;
}

const DIGITS = new Uint8Array(10);

/**
 * FNV-1a of the decimal representation of an unsigned 32-bit integer, i.e.
 * `fnv1a32(String(n))` without building the string. Digits are ASCII, so code unit = char code.
 */
function fnv1a32OfDecimal(n: number): number {
  // Digits are produced least significant first into a reused scratch buffer (2^32 − 1 has 10
  // digits), then hashed most significant first. Safe to share: JS runs this synchronously.
  let len = 0;
  do {
    const q = Math.floor(n / 10);
    DIGITS[len++] = 48 + (n - q * 10);
    n = q;
  } while (n > 0);
  let h = FNV_OFFSET_BASIS;
  while (len > 0) h = Math.imul(h ^ DIGITS[--len]!, FNV_PRIME);
  return h >>> 0;
}

/**
 * GrowthBook hash version 2: `(fnv1a32(String(fnv1a32(seed + id))) % 10000) / 10000`.
 * Result is in [0, 1) with 4 decimals, e.g. hashV2("seed", "a") = 0.0505.
 */
export function hashV2(seed: string, id: string): number {
  const inner = fnvUpdate(fnvUpdate(FNV_OFFSET_BASIS, seed), id) >>> 0;
  return (fnv1a32OfDecimal(inner) % 10000) / 10000;
}

/**
 * Bucket ranges with GrowthBook `getBucketRanges` semantics: variant i owns
 * [start_i, start_i + coverage·w_i) where start_i is the sum of the *full* earlier weights, so
 * lowering coverage never moves a user from one variant to another.
 *
 * Differences from GrowthBook, both deliberate (the spec says weights are normalised):
 * - weights that do not sum to 1 are normalised (GrowthBook falls back to equal weights when the
 *   sum is outside [0.99, 1.01] and uses a near-1 sum as is). Weights summing exactly to 1 are used
 *   untouched, so storing normalised weights keeps every GrowthBook SDK in agreement.
 * - weights with a negative or non-finite entry, or summing to 0, fall back to equal weights
 *   (GrowthBook's fallback for invalid weights).
 * Coverage is clamped to [0, 1] like GrowthBook; a non-finite coverage is treated as 0 (nobody
 * enters) so that a bad value fails closed.
 */
export function bucketRanges(weights: readonly number[], coverage: number): BucketRange[] {
  const k = weights.length;
  if (k === 0) return [];
  const cov = Number.isFinite(coverage) ? Math.min(1, Math.max(0, coverage)) : 0;

  let total = 0;
  let valid = true;
  for (const w of weights) {
    if (!Number.isFinite(w) || w < 0) valid = false;
    total += w;
  }
  if (!valid || !(total > 0)) {
    const equal = 1 / k;
    return rangesFrom(
      weights.map(() => equal),
      cov,
    );
  }
  return rangesFrom(total === 1 ? weights : weights.map((w) => w / total), cov);
}

function rangesFrom(weights: readonly number[], coverage: number): BucketRange[] {
  // Same order of floating-point operations as GrowthBook, so the boundaries are bit-identical.
  let cumulative = 0;
  return weights.map((w): BucketRange => {
    const start = cumulative;
    cumulative += w;
    return [start, start + coverage * w];
  });
}

/** Index of the first range with lo <= n < hi, or -1 (GrowthBook `chooseVariation`). */
export function chooseVariant(n: number, ranges: readonly (readonly [number, number])[]): number {
  for (let i = 0; i < ranges.length; i++) {
    const r = ranges[i]!;
    if (n >= r[0] && n < r[1]) return i;
  }
  return -1;
}

/**
 * Variant index for a user given precomputed (cached) ranges, or null when the user falls outside
 * coverage. An empty user id is never assigned: GrowthBook skips an experiment when the hash
 * attribute is empty.
 */
export function assignFromRanges(seed: string, userId: string, ranges: readonly (readonly [number, number])[]): number | null {
  if (userId.length === 0) return null;
  const i = chooseVariant(hashV2(seed, userId), ranges);
  return i < 0 ? null : i;
}

/** Variant index for a user, or null (outside coverage, no variants, or empty user id). */
export function assignVariant(seed: string, userId: string, weights: readonly number[], coverage: number): number | null {
  return assignFromRanges(seed, userId, bucketRanges(weights, coverage));
}
