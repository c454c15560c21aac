/**
 * Holm–Bonferroni step-down adjustment: sort the valid p-values ascending,
 * p'ᵢ = min(1, pᵢ·(m − i)) for 0-based rank i, then take the running maximum so that adjusted
 * values keep the order of the raw ones. Output is in input order.
 *
 * Missing or unusable entries (null, undefined, NaN, ±Infinity, or outside [0, 1]) come back as
 * null and do not count towards m: a comparison that could not be run is not a test (the same
 * rule as R's p.adjust, whose n is the number of non-NA p-values). Ties keep input order.
 */
export function holmAdjust(pValues: ReadonlyArray<number | null | undefined>): Array<number | null> {
  const out: Array<number | null> = new Array<number | null>(pValues.length).fill(null);
  const valid: number[] = [];
  pValues.forEach((p, i) => {
    if (typeof p === 'number' && p >= 0 && p <= 1) valid.push(i);
  });
  valid.sort((a, b) => (pValues[a] as number) - (pValues[b] as number) || a - b);
  const m = valid.length;
  let runningMax = 0;
  valid.forEach((index, rank) => {
    const adjusted = Math.min(1, (pValues[index] as number) * (m - rank));
    runningMax = Math.max(runningMax, adjusted);
    out[index] = runningMax;
  });
  return out;
}
