/** What the console reads of evaluations (docs/evaluations.md, "Evaluation runs"). */
export type EvaluationStatus = 'queued' | 'running' | 'completed' | 'cancelled' | 'budget_exhausted' | 'failed';
type Sides = { candidate: { ref: string; version: number }; baseline: { ref: string; version: number } };

interface Side {
  mean: number | null;
  pass_rate: number | null;
  errors: number;
  judge_errors: number;
}

export interface EvaluatorComparison {
  evaluator_id: string;
  version: number;
  kind: string;
  scale: 'pass_fail' | '1-5';
  comparison: {
    n: number;
    candidate: Side;
    baseline: Side;
    difference: number | null;
    ci_low: number | null;
    ci_high: number | null;
    level: number;
    test: 'mcnemar_exact' | 'paired_t';
    p_value: number | null;
    verdict: 'better' | 'worse' | 'no_difference';
    wins: number;
    ties: number;
    losses: number;
  };
}

export interface Evaluation {
  evaluation_id: string;
  prompt_id: string;
  status: EvaluationStatus;
  versions: Sides;
  dataset_id: string;
  dataset_version: number;
  progress: { done: number; total: number; cost_usd: number; eta_seconds: number | null };
  evaluators: EvaluatorComparison[];
  error: string | null;
  created_at: string;
  finished_at: string | null;
}

export interface EvaluationSummary {
  evaluation_id: string;
  prompt_id: string;
  status: EvaluationStatus;
  versions: Sides;
  dataset_id: string;
  dataset_version: number;
  evaluator_ids: string[];
  progress: { done: number; total: number; cost_usd: number };
  created_at: string;
}

interface Score {
  score: number | null;
  passed: boolean | null;
  error: string | null;
  judge_error: boolean;
  reasoning: string | null;
}

interface ItemSide {
  state: string;
  output: string | null;
  error: string | null;
  scores: Record<string, Score>;
}

export interface EvaluationItem {
  item_id: string;
  inputs: Record<string, unknown>;
  expected: unknown;
  differs: boolean;
  candidate: ItemSide;
  baseline: ItemSide;
}

export const isFinished = (status: EvaluationStatus) => status !== 'queued' && status !== 'running';

/** A score as shown: pass/fail, 1–5, or why there is none. */
export function scoreText(s: Score | undefined): string {
  if (s === undefined) return '–';
  if (s.error !== null) return `error: ${s.error}`;
  if (s.passed !== null) return s.passed ? 'pass' : 'fail';
  return s.score === null ? '–' : String(s.score);
}
