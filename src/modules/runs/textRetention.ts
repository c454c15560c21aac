import type { Store } from '../../db/store.js';
import { forgetAnswersBefore } from '../idempotency/idempotency.js';
import * as repo from './runs.repo.js';

const DAY_MS = 86_400_000;

/** What the sweep needs of projects: which there are (the composition root hands the project service). */
interface ProjectList {
  list(): Promise<readonly { id: string }[]>;
}
/** Runs per write: small enough that the writer's other work waits a few milliseconds at most. */
export const RETENTION_BATCH = 500;

/**
 * PROMPTLINE_RUN_TEXT_RETENTION_DAYS: runs older than that many days lose their inputs, rendered
 * prompts and outputs (their tokens, cost, latency, status and experiment stay, so results and
 * bills are unchanged), and stored answers of idempotent requests that old are forgotten (a
 * /run_prompt answer holds the output). The sweep goes project by project, oldest runs first, RETENTION_BATCH runs
 * per write, yielding between writes so requests keep committing; it remembers how far it got, so
 * a sweep reads only what became old since the last one.
 */
export function createRunTextRetention(store: Store, days: number, projects: ProjectList) {
  const reached = new Map<string, string>();

  return {
    /** One pass over every project: how many runs lost their text, how many stored answers went. */
    async sweepOnce(): Promise<{ runs: number; answers: number }> {
      const before = new Date(store.clock.now().getTime() - days * DAY_MS).toISOString();
      let erased = 0;
      let answers = 0;
      for (const { id: projectId } of await projects.list()) {
        for (;;) {
          const deleted = await store.writer.write((db) => forgetAnswersBefore(db, projectId, before, RETENTION_BATCH));
          answers += deleted;
          if (deleted < RETENTION_BATCH) break;
        }
        for (;;) {
          const batch = await repo.runsWithTextBefore(store.sql, projectId, reached.get(projectId) ?? '', before, RETENTION_BATCH);
          if (batch.length === 0) break;
          erased += await store.writer.write((db) =>
            repo.eraseRunText(
              db,
              projectId,
              batch.map((r) => r.id),
            ),
          );
          reached.set(projectId, batch[batch.length - 1]!.created_at);
          if (batch.length < RETENTION_BATCH) break;
        }
      }
      return { runs: erased, answers };
    },
  };
}

export type RunTextRetention = ReturnType<typeof createRunTextRetention>;
