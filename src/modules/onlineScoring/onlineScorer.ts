import type { Store } from '../../db/store.js';
import { compileScorer, type RuleDefinition, type Scorer } from '../evaluators/scorers/index.js';
import * as repo from './onlineScoring.repo.js';
import type { EvaluatorFacts } from './onlineScoring.service.js';
import type { EvaluatorKind } from '../evaluators/evaluators.schemas.js';
import { inSample } from './sampling.js';
import { judgeRuns, type OnlineJudgeDeps } from './onlineJudge.js';
import type { RunRecord } from '../runs/runs.service.js';

/** Runs looked at per attachment and pass (one write stores their scores). */
const BATCH = 200;
/**
 * Runs a judge looks at per pass. Judge calls take seconds and may each be tried three times, so a
 * judge's batch is small: its scores are committed (and its cursor moved) every 20 runs, so a crash
 * or a restart repeats at most 20 runs' calls, and each pass hands the loop back to the other
 * attachments soon. The judge calls are made outside the writer, 4 at a time (onlineJudge.ts):
 * the writer is held only for the one write that stores the scores and the judge's runs.
 */
const JUDGE_BATCH = 20;
/**
 * A claimed attachment's lease: longer than a batch of pure scorers ever takes. A judge's batch may
 * take longer (a slow provider, retries), so while it judges the worker renews the lease every third
 * of it: another replica never takes the attachment over (and never pays for the same judgements
 * twice) while this one is alive; if it dies, the lease runs out and the batch is judged again.
 */
const LEASE_MS = 60_000;
/**
 * How far behind the newest runs the worker stays: a run's created_at is when it started, and it is
 * stored when the model answered, so a run still in flight can land behind runs already looked at.
 * Five minutes is well past the request deadline (PROMPTLINE_REQUEST_DEADLINE_MS, 60 s by default).
 */
const DEFAULT_SETTLE_MS = 5 * 60_000;

interface Log {
  warn(obj: object, msg: string): void;
}

/**
 * Scores what the attached evaluators sampled, off the request path: each pass takes every free
 * attachment's lease in the database (so replicas share the work and never score a run twice),
 * walks its prompt's successful API runs from its cursor, scores the runs in its sample with the
 * evaluator's latest version, and stores the scores with the new cursor in one write.
 */
export function createOnlineScorer(store: Store, evaluators: EvaluatorFacts, judges: OnlineJudgeDeps, options: { log: Log; settleMs?: number }) {
  const settleMs = options.settleMs ?? DEFAULT_SETTLE_MS;
  let closing = false;

  async function scoreRuns(
    a: repo.DueAttachment,
    live: { kind: EvaluatorKind; version: number; settings: Record<string, unknown> },
    sampled: readonly repo.ServedRun[],
    at: string,
  ): Promise<{ rows: repo.RunScoreRow[]; runs: RunRecord[] }> {
    const texts = await repo.runTexts(
      store.sql,
      a.project_id,
      sampled.map((r) => r.id),
    );
    if (live.kind === 'llm_judge') {
      const evaluator = { evaluator_id: a.evaluator_id, version: live.version, settings: live.settings };
      return judgeRuns(judges, { sql: store.sql, projectId: a.project_id, evaluator, at, closing: () => closing }, sampled, texts);
    }
    let scorer: Scorer | string;
    try {
      scorer = compileScorer({ kind: live.kind, settings: live.settings } as RuleDefinition);
    } catch (error) {
      scorer = error instanceof Error ? error.message : String(error);
    }
    const rows = sampled.map((run): repo.RunScoreRow => {
      const output = texts.get(run.id)?.output;
      const score =
        typeof scorer === 'string'
          ? { error: scorer }
          : output === null || output === undefined
            ? { error: 'the run has no output text (past the text retention period)' }
            : scorer({ output });
      return {
        run_id: run.id,
        evaluator_id: a.evaluator_id,
        evaluator_version: live.version,
        score: 'error' in score ? null : score.score,
        passed: 'error' in score ? null : score.passed,
        error: 'error' in score ? score.error : null,
        reasoning: null,
        cost_nano_usd: 0,
        judge_run_ids: [],
        created_at: at,
      };
    });
    return { rows, runs: [] };
  }

  /** Renews the lease (held until `until`) every third of it while `work` runs; a renewal that fails is logged, and the lease then simply runs out. */
  async function holdingLease<T>(a: repo.DueAttachment, until: string, work: () => Promise<T>): Promise<T> {
    let held = until;
    const timer = setInterval(() => {
      const next = new Date(store.clock.now().getTime() + LEASE_MS).toISOString();
      store.writer
        .write((db) => repo.renew(db, a, held, next))
        .then((renewed) => {
          if (renewed) held = next;
        })
        .catch((error: unknown) => options.log.warn({ err: error, evaluator_id: a.evaluator_id }, 'renewing an online scoring lease failed'));
    }, LEASE_MS / 3);
    try {
      return await work();
    } finally {
      clearInterval(timer);
    }
  }

  async function scoreAttachment(a: repo.DueAttachment, now: number, leaseUntil: string): Promise<number> {
    const before = new Date(now - settleMs).toISOString();
    // The kind decides the batch: the evaluator's latest version is read first (null: archived).
    const live = await evaluators.latest(store.sql, a.project_id, a.evaluator_id);
    const limit = live?.kind === 'llm_judge' ? JUDGE_BATCH : BATCH;
    const runs = await repo.runsAfter(store.sql, a.project_id, a.prompt_id, { at: a.cursor_at, id: a.cursor_id }, before, limit);
    const last = runs[runs.length - 1];
    const sampled = runs.filter((r) => inSample(r.id, a.evaluator_id, Number(a.sample_rate)));
    // An evaluator archived since it was attached scores nothing more: its runs are passed over.
    const at = new Date(now).toISOString();
    const scored =
      live === null || sampled.length === 0
        ? { rows: [], runs: [] }
        : live.kind === 'llm_judge'
          ? await holdingLease(a, leaseUntil, () => scoreRuns(a, live, sampled, at))
          : await scoreRuns(a, live, sampled, at);
    await store.writer.write(async (db) => {
      // The judge's runs are stored whatever happens: they were made, and they cost.
      for (const run of scored.runs) await judges.storeRun(db, a.project_id, run);
      // Detached meanwhile: store no score (advance finds no row either).
      if ((await repo.findAttachment(db, a.project_id, a.prompt_id, a.evaluator_id)) === undefined) return;
      await repo.insertScores(db, a.project_id, scored.rows);
      await repo.advance(db, a, last?.created_at ?? a.cursor_at, last?.id ?? a.cursor_id);
    });
    // A full batch leaves the rest to the next pass (a second away), so one busy prompt never holds the others up.
    return scored.rows.length;
  }

  async function pass(): Promise<number> {
    const now = store.clock.now().getTime();
    const nowIso = new Date(now).toISOString();
    let scored = 0;
    for (const a of await repo.freeAttachments(store.sql, nowIso)) {
      const until = new Date(now + LEASE_MS).toISOString();
      if (!(await store.writer.write((db) => repo.claim(db, a, nowIso, until)))) continue;
      try {
        scored += await scoreAttachment(a, now, until);
      } catch (error) {
        // The lease runs out and a later pass tries again from the same cursor.
        options.log.warn({ err: error, project_id: a.project_id, prompt_id: a.prompt_id, evaluator_id: a.evaluator_id }, 'online scoring pass failed');
      }
    }
    return scored;
  }

  let running: Promise<number> | null = null;
  return {
    /** One pass over every attachment; returns how many runs were scored. Calls made while one runs join it. */
    scoreDue(): Promise<number> {
      running ??= pass().finally(() => {
        running = null;
      });
      return running;
    },
    async close(): Promise<void> {
      closing = true;
      await running?.catch(() => undefined);
    },
  };
}

export type OnlineScorer = ReturnType<typeof createOnlineScorer>;
