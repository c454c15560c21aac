import { describe, expect, it } from 'vitest';
import { banditSeries } from '../../../web/src/lib/bandit.js';

describe('banditSeries', () => {
  it('one point per period, weights and P(best) in percent, none for period 0, 0 for an arm a period does not name', () => {
    const s = banditSeries(
      ['a', 'b'],
      [
        { period: 0, started_at: '2026-01-01T00:00:00.000Z', weights: { a: 0.5, b: 0.5 }, p_best: null, dropped: [] },
        { period: 1, started_at: '2026-01-01T01:00:00.000Z', weights: { a: 0.25 }, p_best: { a: 0.1, b: 0.9 }, dropped: ['b'] },
      ],
    );
    expect(s.x).toEqual([1767225600, 1767229200]);
    expect(s.weights).toEqual([
      [50, 25],
      [50, 0],
    ]);
    expect(s.pBest).toEqual([
      [null, 10],
      [null, 90],
    ]);
  });
  it('no history: no points', () => {
    expect(banditSeries(['a'], [])).toEqual({ keys: ['a'], x: [], weights: [[]], pBest: [[]] });
  });
});
