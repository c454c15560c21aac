import type { EvaluationView } from './evaluations.schemas.js';

const POLL_MS = 500;
const ENDED = new Set(['completed', 'cancelled', 'budget_exhausted', 'failed']);

const progressOf = (e: EvaluationView) => ({ status: e.status, progress: e.progress });

/**
 * An evaluation's progress as server-sent events: `progress` at once and whenever it changes (read
 * from the database, so it shows the work of whichever replica runs it), then `end` with the whole
 * evaluation once it has ended. A closed connection (or shutdown) stops the polling.
 */
export async function* progressFrames(
  read: () => Promise<EvaluationView>,
  first: EvaluationView,
  stop: AbortSignal,
): AsyncGenerator<{ event: 'progress' | 'end'; data: unknown }> {
  let current = first;
  let sent = '';
  while (!stop.aborted) {
    const progress = progressOf(current);
    const key = JSON.stringify({ ...progress, progress: { ...progress.progress, eta_seconds: null } });
    if (key !== sent) {
      yield { event: 'progress', data: progress };
      sent = key;
    }
    if (ENDED.has(current.status)) {
      yield { event: 'end', data: current };
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    current = await read();
  }
}
