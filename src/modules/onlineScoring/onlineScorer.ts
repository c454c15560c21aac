import type { Store } from '../../db/store.js';
import { compileScorer, type RuleDefinition, type Scorer } from '../evaluators/scorers/index.js';
import * as repo from './onlineScoring.repo.js';
import type { EvaluatorFacts } from './onlineScoring.service.js';
import type { EvaluatorKind } from '../evaluators/evaluators.schemas.js';
import { inSample } from './sampling.js';

/** Runs looked at per attachment and pass (one write stores their scores). */
const BATCH = 200;
/** A claimed attachment's lease: longer than a batch of pure scorers ever takes. */
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
export function createOnlineScorer(store: Store, evaluators: EvaluatorFacts, options: { log: Log; settleMs?: number }) {
  const settleMs = options.settleMs ?? DEFAULT_SETTLE_MS;

  async function scoreRuns(
    a: repo.DueAttachment,
    live: { kind: EvaluatorKind; version: number; settings: Record<string, unknown> },
    sampled: readonly repo.ServedRun[],
    at: string,
  ): Promise<repo.RunScoreRow[]> {
    let scorer: Scorer | string;
    try {
      scorer = compileScorer({ kind: live.kind, settings: live.settings } as RuleDefinition);
    } catch (error) {
      scorer = error instanceof Error ? error.message : String(error);
    }
    const outputs = await repo.runOutputs(
      store.sql,
      a.project_id,
      sampled.map((r) => r.id),
    );
    return sampled.map((run) => {
      const output = outputs.get(run.id);
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
        created_at: at,
      };
    });
  }

  async function scoreAttachment(a: repo.DueAttachment, now: number): Promise<number> {
    const before = new Date(now - settleMs).toISOString();
    const runs = await repo.runsAfter(store.sql, a.project_id, a.prompt_id, { at: a.cursor_at, id: a.cursor_id }, before, BATCH);
    const last = runs[runs.length - 1];
    const sampled = runs.filter((r) => inSample(r.id, a.evaluator_id, Number(a.sample_rate)));
    // An evaluator archived since it was attached scores nothing more: its runs are passed over.
    const live = sampled.length === 0 ? null : await evaluators.latest(store.sql, a.project_id, a.evaluator_id);
    const rows = live === null ? [] : await scoreRuns(a, live, sampled, new Date(now).toISOString());
    await store.writer.write(async (db) => {
      // Detached meanwhile: store nothing (advance finds no row either).
      if ((await repo.findAttachment(db, a.project_id, a.prompt_id, a.evaluator_id)) === undefined) return;
      await repo.insertScores(db, a.project_id, rows);
      await repo.advance(db, a, last?.created_at ?? a.cursor_at, last?.id ?? a.cursor_id);
    });
    // A full batch leaves the rest to the next pass (a second away), so one busy prompt never holds the others up.
    return rows.length;
  }

  async function pass(): Promise<number> {
    const now = store.clock.now().getTime();
    const nowIso = new Date(now).toISOString();
    let scored = 0;
    for (const a of await repo.freeAttachments(store.sql, nowIso)) {
      if (!(await store.writer.write((db) => repo.claim(db, a, nowIso, new Date(now + LEASE_MS).toISOString())))) continue;
      try {
        scored += await scoreAttachment(a, now);
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
      await running?.catch(() => undefined);
    },
  };
}

export type OnlineScorer = ReturnType<typeof createOnlineScorer>;
