import type { Store } from '../../db/store.js';
import { isoNow } from '../../lib/clock.js';
import { NotFound } from '../../lib/errors.js';
import type { Sql } from '../../db/sql.js';
import type { ExperimentResults } from '../results/results.schemas.js';
import { enqueueEvent } from './events.js';
import { NO_SIGNALS, signalChanges, signalsOf } from './signalChanges.js';
import * as repo from './webhooks.repo.js';

const SIGNAL_EVENTS = ['experiment.srm_detected', 'experiment.decision_changed'] as const;
const SYSTEM = { key_id: null, key_name: 'system' };

/**
 * srm_detected and decision_changed come from the results, not from a change anybody makes: this
 * looks at each running experiment of the projects that subscribe to them (nobody else pays for
 * it), compares the report with what the last look saw, and queues the differences, saving the
 * new state in the same transaction so each change is announced once, across restarts too.
 */
export function createExperimentSignalWatcher(
  store: Store,
  runningExperimentIds: (db: Sql, projectId: string) => Promise<string[]>,
  report: (projectId: string, experimentId: string) => Promise<ExperimentResults>,
) {
  return {
    /** Looks at every watched running experiment once; returns how many events were queued. */
    async checkOnce(): Promise<number> {
      let queued = 0;
      for (const projectId of await repo.projectsSubscribedTo(store.sql, SIGNAL_EVENTS)) {
        for (const experimentId of await runningExperimentIds(store.sql, projectId)) {
          let results: ExperimentResults;
          try {
            results = await report(projectId, experimentId);
          } catch (error) {
            if (error instanceof NotFound) continue; // deleted in between
            throw error;
          }
          queued += await store.writer.write(async (db) => {
            const events = signalChanges((await repo.findSignals(db, projectId, experimentId)) ?? NO_SIGNALS, results);
            const at = isoNow(store.clock);
            for (const event of events) {
              await enqueueEvent(db, projectId, { ...event, created_at: at, actor: SYSTEM, target: { type: 'experiment', id: experimentId } });
            }
            await repo.saveSignals(db, projectId, experimentId, signalsOf(results), at);
            return events.length;
          });
        }
      }
      return queued;
    },
  };
}

export type ExperimentSignalWatcher = ReturnType<typeof createExperimentSignalWatcher>;
