/**
 * An llm_judge evaluator scoring live runs (online scoring): each sampled run judged by
 * evaluations/judge.ts exactly as an evaluation's item is (the same prompt variables, the same three
 * attempts, the same reading of the answer), with the run's inputs and output and no expected
 * answer (`expected` is empty: a live run has none). The judge's calls are runs of source
 * `evaluation`: never part of an experiment, left out of a prompt's stats, and never scored online
 * themselves. They cost money: each score keeps its judge's cost and run ids.
 */
import type { Sql } from '../../db/sql.js';
import { ModelCallError } from '../../providers/errors.js';
import { judge, judgeVersion, type JudgePrompts } from '../evaluations/judge.js';
import type { EvaluationCall, RunRecord } from '../runs/runs.service.js';
import type { RunScoreRow, RunText } from './onlineScoring.repo.js';

/** What judging live runs needs: the judge's version, one model call stored as an evaluation run, and the store of its successful runs. */
export interface OnlineJudgeDeps {
  prompts: JudgePrompts;
  /** runs.runForEvaluation: a failed call is stored at once, a successful one answered unstored. */
  call(projectId: string, promptId: string, version: number, inputs: Record<string, unknown>): Promise<EvaluationCall>;
  storeRun(db: Sql, projectId: string, run: RunRecord): Promise<void>;
}

/** Judge calls one attachment makes at once: a judge answers in seconds, and a pass must not crowd out the runtime's provider slots. */
const JUDGE_CONCURRENCY = 4;
const BUSY_WAIT_MS = 200;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

interface Judging {
  /** Reads (the judge's version): the store's read connection. */
  sql: Sql;
  projectId: string;
  evaluator: { evaluator_id: string; version: number; settings: Record<string, unknown> };
  at: string;
  /** True once the scorer closes: a busy gateway is then not waited for. */
  closing: () => boolean;
}

/** The scores of the sampled runs, in their order, and the judge's successful runs to store with them (in the same write). */
export async function judgeRuns(
  deps: OnlineJudgeDeps,
  j: Judging,
  sampled: ReadonlyArray<{ id: string }>,
  texts: ReadonlyMap<string, RunText>,
): Promise<{ rows: RunScoreRow[]; runs: RunRecord[] }> {
  const row = (runId: string, fields: Partial<RunScoreRow>): RunScoreRow => ({
    run_id: runId,
    evaluator_id: j.evaluator.evaluator_id,
    evaluator_version: j.evaluator.version,
    score: null,
    passed: null,
    error: null,
    reasoning: null,
    cost_nano_usd: 0,
    judge_run_ids: [],
    created_at: j.at,
    ...fields,
  });
  let version: number;
  try {
    version = await judgeVersion(deps.prompts, j.sql, j.projectId, j.evaluator.settings);
  } catch (error) {
    return { rows: sampled.map((r) => row(r.id, { error: `the judge's prompt: ${message(error)}` })), runs: [] };
  }
  const settings = { ...j.evaluator.settings, judge_version: version };

  async function callOnce(promptId: string, v: number, inputs: Record<string, unknown>): Promise<EvaluationCall> {
    for (;;) {
      try {
        return await deps.call(j.projectId, promptId, v, inputs);
      } catch (error) {
        // Busy: the gateway refused before any provider was reached; asking again pays nothing twice.
        if (error instanceof ModelCallError && error.kind === 'busy' && !j.closing()) {
          await sleep(BUSY_WAIT_MS);
          continue;
        }
        return { run_id: '', output: null, error: message(error), cost_nano_usd: 0, unstored: null };
      }
    }
  }

  const rows: RunScoreRow[] = new Array(sampled.length);
  const runs: RunRecord[] = [];
  let next = 0;
  const worker = async () => {
    while (next < sampled.length) {
      const i = next++;
      const run = sampled[i]!;
      const text = texts.get(run.id);
      if (text?.output === null || text?.output === undefined) {
        rows[i] = row(run.id, { error: 'the run has no output text (past the text retention period)' });
        continue;
      }
      const judged = await judge(callOnce, { settings }, { inputs: text.inputs, expected: null }, text.output);
      runs.push(...judged.unstored);
      const common = { cost_nano_usd: judged.costNanoUsd, judge_run_ids: judged.runIds.filter((id) => id !== '') };
      const s = judged.score;
      rows[i] =
        'error' in s
          ? row(run.id, { ...common, error: s.error })
          : row(run.id, { ...common, score: s.score, passed: s.passed, reasoning: s.reasoning ?? null });
    }
  };
  await Promise.all(Array.from({ length: Math.min(JUDGE_CONCURRENCY, sampled.length) }, worker));
  return { rows, runs };
}
