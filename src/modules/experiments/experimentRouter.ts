import type { Store } from '../../db/store.js';
import { isoNow } from '../../lib/clock.js';
import { userIdRequired } from '../../lib/errors.js';
import type { ExperimentRouter, VariantAssignment } from '../prompts/serving.js';
import { assignFromRanges, bucketRanges, type BucketRange } from './assignment.js';
import type { VariantDef } from './experiments.schemas.js';
import * as repo from './experiments.repo.js';
import { capturedCovariate, type Covariate } from './covariate.js';
import { noTelemetry, type Telemetry } from '../../lib/telemetry.js';

interface RunningExperiment {
  id: string;
  seed: string;
  ranges: BucketRange[];
  variants: Map<string, VariantDef>;
  order: VariantDef[];
  /**
   * Sticky assignments seen since this entry was loaded, user → variant key. The database is the
   * source of truth: a user missing here costs one primary-key lookup, once (null: looked up, none
   * stored; only this process assigns, and other processes' commits clear the whole cache).
   */
  assigned: Map<string, string | null>;
  /** CUPED's covariate each first assignment captures (null: CUPED off or no outcome metric declared). */
  capture: Covariate | null;
  /** First assignments being committed, so concurrent first calls of one user share one write. */
  inFlight: Map<string, Promise<string>>;
}

const EXPOSURE_FLUSH_MS = 1000;
/**
 * How long one commit of the flush may hold the event loop: a commit takes users until this much
 * time went by. Chunks of a fixed 1 000 users held it 28–35 ms under the sticky-users bench (about
 * 30 µs an UPDATE); requests now wait at most about this long behind a flush.
 */
const EXPOSURE_SLICE_MS = 4;

/**
 * Serves experiments on the hot path with no per-request database read once
 * warm): the running experiment of a prompt and its assignments live in memory; a new assignment
 * is committed through the group-commit writer before the answer. Repeat calls only bump an
 * in-memory exposure counter, flushed every second: a crash can lose the last second of call
 * counts (last_seen, calls), never an assignment. While `trusted()` says no (a replica that cannot
 * be sure it heard other replicas' changes: a pause, a stop, an erasure), the running experiment
 * and its users' assignments are read from the database on every call, and nothing is kept.
 */
export function createExperimentRouter(
  store: Store,
  telemetry: Telemetry = noTelemetry,
  /** A timed flush of call counts failed (its counts are lost; assignments never are). */
  onFlushError: (error: unknown) => void = () => undefined,
  trusted: () => boolean = () => true,
): ExperimentRouter & { invalidate(projectId: string, promptId: string): void; clear(): void; flushExposures(): Promise<void>; close(): Promise<void> } {
  const running = new Map<string, RunningExperiment | null>();
  // Repeat calls per (project, experiment) → user → count and last time (epoch ms, formatted at flush).
  const pendingCalls = new Map<string, { projectId: string; experimentId: string; users: Map<string, { calls: number; at: number }> }>();
  const keyOf = (projectId: string, promptId: string) => `${projectId}\u0000${promptId}`;
  // Bumped by every invalidation: a load that began before one must not store what it read.
  let generation = 0;

  async function load(projectId: string, promptId: string): Promise<RunningExperiment | null> {
    const key = keyOf(projectId, promptId);
    const useCache = trusted();
    const cached = useCache ? running.get(key) : undefined;
    telemetry.cache('experiments', cached !== undefined);
    if (cached !== undefined) return cached;
    const startedAt = generation;
    const row = await repo.findRunningExperiment(store.sql, projectId, promptId);
    let state: RunningExperiment | null = null;
    if (row) {
      const order = row.variants;
      state = {
        id: row.id,
        seed: row.seed,
        ranges: bucketRanges(
          order.map((v) => v.weight),
          row.coverage,
        ),
        variants: new Map(order.map((v) => [v.key, v])),
        order,
        assigned: new Map(),
        capture: capturedCovariate(row),
        inFlight: new Map(),
      };
    }
    if (useCache && generation === startedAt) running.set(key, state);
    return state;
  }

  async function storedVariant(projectId: string, state: RunningExperiment, userId: string): Promise<string | null> {
    let variant = state.assigned.get(userId);
    if (variant === undefined) {
      variant = (await repo.findAssignment(store.sql, projectId, state.id, userId)) ?? null;
      // A first assignment committed while this read was under way has already said more.
      if (!state.assigned.has(userId)) state.assigned.set(userId, variant);
    }
    return variant;
  }

  function countCall(projectId: string, experimentId: string, userId: string): void {
    const key = `${projectId}\u0000${experimentId}`;
    let experiment = pendingCalls.get(key);
    if (experiment === undefined) {
      experiment = { projectId, experimentId, users: new Map() };
      pendingCalls.set(key, experiment);
    }
    const at = store.clock.now().getTime();
    const pending = experiment.users.get(userId);
    if (pending) {
      pending.calls += 1;
      pending.at = at;
    } else {
      experiment.users.set(userId, { calls: 1, at });
    }
  }

  let flushing: Promise<void> | null = null;

  /**
   * Writes the counts gathered so far, a slice of EXPOSURE_SLICE_MS per commit: with 100 000 active
   * users a single commit would hold the event loop for ~150 ms, slices let requests in between. A
   * tick that finds the previous flush still running leaves its counts for the next one.
   */
  function flushExposures(): Promise<void> {
    if (flushing !== null || pendingCalls.size === 0) return flushing ?? Promise.resolve();
    const experiments = [...pendingCalls.values()];
    pendingCalls.clear();
    flushing = (async () => {
      try {
        for (const { projectId, experimentId, users } of experiments) {
          // In the table's own order (its primary key ends with the user): consecutive updates then
          // share leaf pages, so a commit writes (and a checkpoint copies) several times fewer
          // pages than users in arrival order would dirty.
          const exposures = [...users].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
          let next = 0;
          while (next < exposures.length) {
            next = await store.writer.write(async (db) => {
              const started = performance.now();
              let i = next;
              do {
                const [userId, { calls, at }] = exposures[i]!;
                await repo.recordExposureCalls(db, projectId, experimentId, userId, calls, new Date(at).toISOString());
                i++;
              } while (i < exposures.length && performance.now() - started < EXPOSURE_SLICE_MS);
              return i;
            });
          }
        }
      } finally {
        flushing = null;
      }
    })();
    return flushing;
  }

  const timer = setInterval(() => {
    flushExposures().catch(onFlushError);
  }, EXPOSURE_FLUSH_MS);
  timer.unref();

  function answer(state: RunningExperiment, variantKey: string): VariantAssignment {
    return { experimentId: state.id, variant: variantKey, version: state.variants.get(variantKey)!.version };
  }

  return {
    async route(projectId, promptId, userId) {
      const state = await load(projectId, promptId);
      if (state === null) return null;
      if (userId === null) throw userIdRequired(state.id, promptId);
      const stored = await storedVariant(projectId, state, userId);
      if (stored !== null && state.variants.has(stored)) {
        countCall(projectId, state.id, userId);
        return answer(state, stored);
      }
      const index = assignFromRanges(state.seed, userId, state.ranges);
      if (index === null) return null;
      let write = state.inFlight.get(userId);
      if (write === undefined) {
        const variant = state.order[index]!.key;
        // ON CONFLICT keeps the first stored variant, so the database decides stickiness even across caches.
        write = store.writer.write((db) => repo.insertAssignment(db, projectId, state.id, userId, variant, isoNow(store.clock), state.capture));
        state.inFlight.set(userId, write);
        write.then(
          (committed) => {
            state.assigned.set(userId, committed);
            state.inFlight.delete(userId);
          },
          () => state.inFlight.delete(userId),
        );
      } else {
        countCall(projectId, state.id, userId);
      }
      return write.then((committed) => answer(state, committed));
    },
    async renderFailed(projectId, assignment, userId) {
      await store.writer.write((db) => repo.recordRenderFailure(db, projectId, assignment.experimentId, userId));
    },
    invalidate(projectId, promptId) {
      generation++;
      running.delete(keyOf(projectId, promptId));
    },
    clear() {
      generation++;
      running.clear();
    },
    flushExposures,
    async close() {
      clearInterval(timer);
      await flushExposures();
      await flushExposures(); // counts gathered while an earlier flush was running
    },
  };
}
