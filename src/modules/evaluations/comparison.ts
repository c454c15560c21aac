/**
 * An evaluation's report, per evaluator: the paired comparison of the candidate with the baseline
 * over the items both were scored on (src/stats/paired.ts), in the API's shape. Pure.
 */
import { comparePaired, type ItemScores } from '../../stats/paired.js';
import type { FrozenEvaluator, Side, StoredScore } from './evaluations.repo.js';
import type { EvaluationView } from './evaluations.schemas.js';

type Comparison = EvaluationView['evaluators'][number]['comparison'];
const LEVEL = 0.95;
const DIFFERING_LISTED = 100;

export interface ScoredWork {
  item_id: string;
  side: Side;
  scores: Record<string, StoredScore>;
}

const numberOf = (s: StoredScore | undefined): number | null => (s === undefined || 'error' in s ? null : s.score);

/** One evaluator's comparison; `work` holds each finished work row (any order; items pair by id). */
export function compareEvaluator(evaluator: FrozenEvaluator, work: readonly ScoredWork[]): Comparison {
  const byItem = new Map<string, { candidate?: StoredScore; baseline?: StoredScore }>();
  for (const w of work) {
    const entry = byItem.get(w.item_id) ?? {};
    entry[w.side] = w.scores[evaluator.evaluator_id] ?? { error: 'not scored' };
    byItem.set(w.item_id, entry);
  }
  const scored: ItemScores[] = [];
  const errors = { candidate: 0, baseline: 0 };
  const judgeErrors = { candidate: 0, baseline: 0 };
  for (const [item_id, pair] of byItem) {
    // An item only one version has finished (a cancelled or stopped evaluation) pairs with nothing.
    if (pair.candidate === undefined || pair.baseline === undefined) continue;
    for (const side of ['candidate', 'baseline'] as const) {
      const s = pair[side]!;
      if ('error' in s) {
        errors[side]++;
        if (s.judge_error === true) judgeErrors[side]++;
      }
    }
    scored.push({ item_id, candidate: numberOf(pair.candidate), baseline: numberOf(pair.baseline) });
  }
  const passFail = evaluator.scale === 'pass_fail';
  const c = comparePaired(scored, passFail ? 'pass_fail' : 'score', LEVEL);
  const pValue = passFail ? (c.mcnemar?.p_value ?? null) : c.paired_t.p_value;
  const significant = pValue !== null && pValue < 1 - LEVEL;
  const diff = c.paired_t.mean_diff;
  return {
    n: c.n,
    candidate: { mean: c.candidate_mean, pass_rate: passFail ? c.candidate_mean : null, errors: errors.candidate, judge_errors: judgeErrors.candidate },
    baseline: { mean: c.baseline_mean, pass_rate: passFail ? c.baseline_mean : null, errors: errors.baseline, judge_errors: judgeErrors.baseline },
    difference: diff,
    ci_low: c.paired_t.ci_low,
    ci_high: c.paired_t.ci_high,
    level: LEVEL,
    test: passFail ? 'mcnemar_exact' : 'paired_t',
    p_value: pValue,
    significant,
    verdict: !significant || diff === null || diff === 0 ? 'no_difference' : diff > 0 ? 'better' : 'worse',
    wins: c.win_tie_loss.wins,
    ties: c.win_tie_loss.ties,
    losses: c.win_tie_loss.losses,
    differing_items: c.items
      .filter((i) => i.diff !== 0)
      .slice(0, DIFFERING_LISTED)
      .map((i) => i.item_id),
  };
}

/** Remaining seconds at the pace so far, while running. */
export function etaSeconds(status: string, startedAt: string | null, now: number, doneThisRun: number, remaining: number): number | null {
  if (status !== 'running' || startedAt === null || doneThisRun <= 0) return null;
  const elapsed = (now - Date.parse(startedAt)) / 1000;
  return Math.max(0, Math.round((elapsed / doneThisRun) * remaining * 10) / 10);
}
