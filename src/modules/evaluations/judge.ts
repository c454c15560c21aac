/**
 * An llm_judge evaluator scoring one output: its Promptline prompt (the version fixed when the
 * evaluation was made, or when an online pass began) called through the gateway with the rubric,
 * the item and the output, and its answer read by parseJudgeAnswer. A call that fails, or an answer
 * that says no score, is tried again; after the last attempt the item's score is a judge error,
 * counted apart, and the evaluation goes on. Online scoring (src/modules/onlineScoring) judges live
 * runs with it too, with no expected answer.
 */
import type { Sql } from '../../db/sql.js';
import { parseJudgeAnswer, type JudgeScale } from '../evaluators/scorers/judgeAnswer.js';
import type { EvaluationCall, RunRecord } from '../runs/runs.service.js';
import type { StoredScore } from './evaluations.repo.js';

/** Attempts per item: the first and two retries. */
const JUDGE_ATTEMPTS = 3;

export type Call = (promptId: string, version: number, inputs: Record<string, unknown>) => Promise<EvaluationCall>;

/** What choosing the judge's version needs of prompts (the prompts module's facts). */
export interface JudgePrompts {
  labelVersion(db: Sql, projectId: string, promptId: string, label: string): Promise<number | null>;
  latestVersion(db: Sql, projectId: string, promptId: string): Promise<number>;
}

/** Which version of the judge's prompt judges: as pinned (version, else label), else `production`, else the latest. */
export async function judgeVersion(prompts: JudgePrompts, db: Sql, projectId: string, settings: Record<string, unknown>): Promise<number> {
  const promptId = settings.prompt_id as string;
  if (typeof settings.version === 'number') return settings.version;
  if (typeof settings.label === 'string') {
    const pinned = await prompts.labelVersion(db, projectId, promptId, settings.label);
    if (pinned !== null) return pinned;
  }
  return (await prompts.labelVersion(db, projectId, promptId, 'production')) ?? (await prompts.latestVersion(db, projectId, promptId));
}

export interface Judged {
  score: StoredScore;
  runIds: string[];
  /** The judge's successful runs, to store with the item's result. */
  unstored: RunRecord[];
  costNanoUsd: number;
}

const asText = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

export async function judge(
  call: Call,
  evaluator: { settings: Record<string, unknown> },
  item: { inputs: Record<string, unknown>; expected: unknown },
  output: string,
): Promise<Judged> {
  const s = evaluator.settings;
  const variables = { rubric: s.rubric, input: JSON.stringify(item.inputs), output, expected: asText(item.expected) };
  const runIds: string[] = [];
  const unstored: RunRecord[] = [];
  let costNanoUsd = 0;
  let last = '';
  for (let attempt = 1; attempt <= JUDGE_ATTEMPTS; attempt++) {
    const answer = await call(s.prompt_id as string, s.judge_version as number, variables);
    runIds.push(answer.run_id);
    if (answer.unstored !== null) unstored.push(answer.unstored);
    costNanoUsd += answer.cost_nano_usd;
    if (answer.output === null) {
      last = answer.error ?? 'the judge call failed';
      continue;
    }
    const verdict = parseJudgeAnswer(answer.output, (s.scale as JudgeScale | undefined) ?? 'pass_fail');
    if ('error' in verdict) {
      last = verdict.error;
      continue;
    }
    return { score: { score: verdict.score, passed: verdict.passed, reasoning: verdict.reasoning ?? null }, runIds, unstored, costNanoUsd };
  }
  return { score: { error: `judge error after ${JUDGE_ATTEMPTS} attempts: ${last}`, judge_error: true }, runIds, unstored, costNanoUsd };
}
