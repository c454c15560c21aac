/**
 * Nearest-rank percentile p (0 < p ≤ 1) of the multiset made of `values` plus `zeros` extra zeros
 * (users without data count as 0), used as the cap of a capped (winsorised) mean metric, as
 * GrowthBook's percentile capping does. With N = values.length + zeros the result is the r-th
 * smallest element, r = max(1, ⌈p·N⌉): an actual data value, never an interpolation.
 * p·N is rounded to 9 decimals before the ceiling, because floating point can push an exact
 * integer up (0.07·100 = 7.000000000000001 would otherwise give rank 8).
 *
 * Does not mutate `values` (it sorts a Float64Array copy). Returns null when N = 0 or a value is
 * NaN (no order). Throws RangeError when p is outside (0, 1] or zeros is not a count.
 */
export function percentileCap(values: ArrayLike<number>, zeros: number, p: number): number | null {
  if (!(p > 0 && p <= 1)) throw new RangeError(`p must be in (0, 1], got ${p}`);
  if (!(Number.isSafeInteger(zeros) && zeros >= 0)) throw new RangeError(`zeros must be a non-negative integer, got ${zeros}`);
  const total = values.length + zeros;
  if (total === 0) return null;

  const sorted = Float64Array.from(values).sort();
  // Typed-array sort puts NaN last.
  if (sorted.length > 0 && Number.isNaN(sorted[sorted.length - 1]!)) return null;
  const rank = Math.max(1, Math.ceil(Number((p * total).toFixed(9))));

  // The zeros sit just before the first value ≥ 0 (ties with 0 are interchangeable).
  let negatives = 0;
  while (negatives < sorted.length && sorted[negatives]! < 0) negatives++;
  let value: number;
  if (rank <= negatives) value = sorted[rank - 1]!;
  else if (rank <= negatives + zeros) value = 0;
  else value = sorted[rank - 1 - zeros]!;
  return value + 0; // −0 → 0
}
