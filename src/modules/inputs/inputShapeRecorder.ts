import type { Store } from '../../db/store.js';
import { hourOf, InputShapeTally, SHAPE_RETENTION_HOURS } from './inputShapes.js';
import { addShapeCounts, pruneShapesBefore } from './inputShapes.repo.js';

const HOUR_MS = 3_600_000;
/** How often hours past the retention are deleted (one indexed DELETE). */
const PRUNE_INTERVAL_MS = 600_000;

/**
 * Keeps the summary of what callers send (inputShapes.ts) off the request path: a call only adds
 * to the in-memory tally (a Map increment: no I/O, no await, nothing measurable next to a render);
 * a timer writes everything gathered in one write every `flushMs`, adding to the stored counts, so
 * several replicas on one database add up. A crash loses at most the last `flushMs` of counts, which
 * only the advisory impact reads. `close()` writes what is left (the server's graceful shutdown).
 */
export function createInputShapeRecorder(store: Store, flushMs: number, onError: (error: unknown) => void = () => undefined) {
  let tally = new InputShapeTally();
  let flushing: Promise<void> | null = null;

  function flush(): Promise<void> {
    if (flushing !== null) return flushing.then(flush, flush);
    if (tally.size === 0) return Promise.resolve();
    const counts = tally.drain();
    tally = new InputShapeTally();
    flushing = store.writer
      .write((db) => addShapeCounts(db, counts))
      .finally(() => {
        flushing = null;
      });
    return flushing;
  }

  /** Deletes the hours older than the retention (7 days). */
  async function prune(): Promise<number> {
    const before = hourOf(store.clock.now().getTime() - SHAPE_RETENTION_HOURS * HOUR_MS);
    return store.writer.write((db) => pruneShapesBefore(db, before));
  }

  const flushTimer = setInterval(() => flush().catch(onError), flushMs);
  const pruneTimer = setInterval(() => prune().catch(onError), PRUNE_INTERVAL_MS);
  flushTimer.unref();
  pruneTimer.unref();

  return {
    /** The request path's part: counts one call to a prompt that exists. */
    record(projectId: string, promptId: string, inputs: Record<string, unknown>, withUserId: boolean): void {
      tally.add(projectId, promptId, store.clock.now().getTime(), inputs, withUserId);
    },
    /** Writes the counts gathered so far (the timer calls it; tests may too). */
    flush,
    prune,
    async close(): Promise<void> {
      clearInterval(flushTimer);
      clearInterval(pruneTimer);
      await flush();
    },
  };
}

export type InputShapeRecorder = ReturnType<typeof createInputShapeRecorder>;
