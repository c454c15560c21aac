/**
 * A uniform random sample of k of n positions, repeatable from a seed (mulberry32, a small 32-bit
 * generator: plenty for choosing which runs become items, not for anything secret), in the order
 * the positions had: a partial Fisher–Yates shuffle of the first k, then sorted back.
 */
export function samplePositions(n: number, k: number, seed: number): number[] {
  if (k >= n) return Array.from({ length: n }, (_, i) => i);
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const positions = Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(next() * (n - i));
    [positions[i], positions[j]] = [positions[j]!, positions[i]!];
  }
  return positions.slice(0, k).sort((a, b) => a - b);
}
