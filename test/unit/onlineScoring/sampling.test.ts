import { describe, expect, it } from 'vitest';
import { inSample } from '../../../src/modules/onlineScoring/sampling.js';

describe('inSample', () => {
  const ids = Array.from({ length: 4000 }, (_, i) => `run_${i.toString(36)}`);

  it.each([
    [1, 4000, 4000],
    [0.5, 1800, 2200],
    [0.05, 140, 260],
  ])('at rate %s takes about that share of runs (%s–%s of 4000)', (rate, low, high) => {
    const taken = ids.filter((id) => inSample(id, 'tone', rate)).length;
    expect(taken).toBeGreaterThanOrEqual(low);
    expect(taken).toBeLessThanOrEqual(high);
  });

  it('is the same answer every time, and differs between evaluators', () => {
    const a = ids.filter((id) => inSample(id, 'tone', 0.1));
    expect(ids.filter((id) => inSample(id, 'tone', 0.1))).toEqual(a);
    const b = ids.filter((id) => inSample(id, 'format', 0.1));
    expect(b).not.toEqual(a);
  });

  it('keeps a run sampled at a lower rate when the rate rises', () => {
    const low = ids.filter((id) => inSample(id, 'tone', 0.05));
    expect(low.every((id) => inSample(id, 'tone', 0.2))).toBe(true);
  });
});
