// A run answered as it is generated (docs/streaming.md): the gateway's stream, then the run stored
// when it ends, however it ends: its answer, a failure after the first token, or the client gone.
import type { Store } from '../../db/store.js';
import type { ModelGateway, ModelRequest, ModelStream, StreamEvent } from '../../providers/gateway.js';
import type { CompiledVersion } from '../prompts/versionContent.js';
import { answerOf, storable, storeFailure, withResult } from './runRecords.js';
import { insertRun, type RunRecord } from './runs.repo.js';
import type { RunAnswer } from './runs.schemas.js';

/** How a streamed run ended; its run is stored in every case. */
export type RunStreamEnd = { ok: true; answer: RunAnswer } | { ok: false; status: 'error' | 'cancelled'; runId: string; detail: string };

export interface RunStream {
  /** The answer's pieces as they come; iterate it to the end (or leave it: the upstream call stops). */
  events: AsyncIterable<StreamEvent>;
  /** Settles once `events` is done and the run is stored; rejects only when storing failed. */
  end: Promise<RunStreamEnd>;
  /** performance.now() at the request's deadline: the stream's reader gives up on a client that has not taken it by then. */
  deadlineAt: number;
}

/** A run ready to call its model: the run to store, the version it runs, and the gateway's request. */
export interface PreparedRun {
  run: RunRecord;
  version: CompiledVersion;
  request: ModelRequest;
}

/**
 * Streams a rendered prompt. Rejects, after storing the failed run as a plain run does, when no
 * model gave a first token; from the first token on, every ending is a stored run.
 */
export async function streamRun(store: Store, gateway: ModelGateway, projectId: string, { run, version, request }: PreparedRun): Promise<RunStream> {
  let stream: ModelStream;
  try {
    stream = await gateway.stream(request);
  } catch (error) {
    await storeFailure(store, projectId, run, error);
    throw error;
  }
  const end = stream.end.then(async (ending): Promise<RunStreamEnd> => {
    const stored: RunRecord = {
      ...withResult(run, version, ending.result),
      ttft_ms: ending.ttftMs,
      status: ending.status,
      error: ending.error === null ? null : storable(ending.error),
    };
    await store.writer.write((db) => insertRun(db, projectId, stored));
    if (ending.status === 'ok') return { ok: true, answer: answerOf(stored) };
    return { ok: false, status: ending.status, runId: stored.id, detail: stored.error ?? 'the client went away' };
  });
  return { events: stream.events, end, deadlineAt: stream.deadlineAt };
}
