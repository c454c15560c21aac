import { describe, expect, it } from 'vitest';
import { compareEvaluator } from '../../../src/modules/evaluations/comparison.js';
import type { FrozenEvaluator, StoredScore } from '../../../src/modules/evaluations/evaluations.repo.js';
import { markdownSummary, progressLine, worseOn } from '../../../src/cli/eval/summary.js';

const exact: FrozenEvaluator = { evaluator_id: 'exact', version: 1, kind: 'exact_match', scale: 'pass_fail', settings: {} };
const pass = (ok: boolean): StoredScore => ({ score: ok ? 1 : 0, passed: ok });
const work = (rows: Array<[string, StoredScore | null, StoredScore | null]>) =>
  rows.flatMap(([id, c, b]) => [
    ...(c === null ? [] : [{ item_id: id, side: 'candidate' as const, scores: { exact: c } }]),
    ...(b === null ? [] : [{ item_id: id, side: 'baseline' as const, scores: { exact: b } }]),
  ]);

describe('the comparison of one evaluator', () => {
  it('pairs items by id, leaves out what a version could not score, and counts judge errors apart', () => {
    const c = compareEvaluator(exact, [
      ...work([
        ['a', pass(true), pass(true)],
        ['b', pass(false), pass(true)],
        ['c', { error: 'judge error after 3 attempts', judge_error: true }, pass(true)],
        ['d', pass(true), null], // the baseline never finished (a cancelled evaluation): no pair
      ]),
    ]);
    expect(c).toMatchObject({
      n: 2,
      candidate: { mean: 0.5, pass_rate: 0.5, errors: 1, judge_errors: 1 },
      baseline: { mean: 1, errors: 0 },
      difference: -0.5,
      test: 'mcnemar_exact',
      p_value: 1,
      significant: false,
      verdict: 'no_difference',
      wins: 0,
      ties: 1,
      losses: 1,
      differing_items: ['b'],
    });
  });

  it('calls a candidate worse when McNemar says so, and the gate and the Markdown say it', () => {
    const rows = Array.from({ length: 8 }, (_, i): [string, StoredScore, StoredScore] => [`i${i}`, pass(false), pass(true)]);
    const comparison = compareEvaluator(exact, work(rows));
    expect(comparison).toMatchObject({ verdict: 'worse', losses: 8, p_value: 2 / 256 });
    const e = {
      evaluation_id: 'evl_1',
      prompt_id: 'p',
      status: 'completed' as const,
      versions: { candidate: { ref: '2', version: 2 }, baseline: { ref: 'production', version: 1 } },
      dataset_id: 'qa',
      dataset_version: 1,
      evaluator_ids: ['exact'],
      concurrency: 4,
      budget_usd: null,
      progress: { done: 16, total: 16, cost_usd: 0, eta_seconds: null },
      evaluators: [{ evaluator_id: 'exact', version: 1, kind: 'exact_match', scale: 'pass_fail' as const, comparison }],
      error: null,
      created_at: '2026-01-01T00:00:00.000Z',
      started_at: null,
      finished_at: null,
    };
    expect(worseOn(e, [])).toEqual(['exact']);
    expect(worseOn(e, ['other'])).toEqual([]);
    const md = markdownSummary(e, []);
    expect(md).toContain('### Promptline evaluation: ❌ worse on `exact`');
    expect(md).toContain('| `exact` | 0.0% | 100.0% | -100.0 pts [-100.0 pts, -100.0 pts] | 0.008 | 0 / 0 / 8 | 0 | **worse** |');
    expect(progressLine({ status: 'running', progress: { done: 5, total: 10, cost_usd: 0.5, eta_seconds: 2.2 } }, 10)).toBe('[#####-----] 5/10 $0.5000 ETA 3s running');
  });
});
