import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { isoNow, type Clock } from '../../lib/clock.js';
import { NotFound } from '../../lib/errors.js';
import type { ResultsOptions } from './measured.js';
import type { ExperimentResults } from './results.schemas.js';

export interface ResultsRequest {
  id: number;
  projectId: string;
  experimentId: string;
  options: Partial<ResultsOptions>;
  /** The app's clock at the request: a report is as of then (and tests pin time in one place). */
  now: string;
}

export type ResultsResponse =
  | { id: number; ok: true; report: ExperimentResults }
  /**
   * A NotFound crosses the thread as data (errors lose their class on the way); anything else is a
   * failure, with the driver's error code when it has one (a database that went away answers 503).
   */
  | { id: number; ok: false; notFound: boolean; message: string; code?: string };

/** Where the worker reads: the SQLite file in dataDir, or the PostgreSQL database at databaseUrl. */
export interface ResultsSource {
  dataDir: string;
  databaseUrl: string | null;
  /** PostgreSQL: the longest statement of a report (PROMPTLINE_DB_REPORT_TIMEOUT_MS); null: none. */
  timeoutMs: number | null;
}

function failure(response: Extract<ResultsResponse, { ok: false }>): Error {
  if (response.notFound) return new NotFound(response.message);
  return Object.assign(new Error(response.message), response.code === undefined ? {} : { code: response.code });
}

/**
 * The compiled worker script. Under the test runner this module runs from TypeScript sources, and a
 * worker thread cannot load those, so it uses the build (`npm test` builds before any test).
 */
function workerScript(): URL {
  const here = fileURLToPath(import.meta.url);
  const compiled = here.endsWith('.ts')
    ? here.replace(/\/src\/modules\/results\/resultsRunner\.ts$/, '/dist/src/resultsWorker.js')
    : here.replace(/\/modules\/results\/resultsRunner\.js$/, '/resultsWorker.js');
  if (!fs.existsSync(compiled)) throw new Error(`results worker not built: ${compiled} (run npm run build)`);
  return pathToFileURL(compiled);
}

/** Runs results reports in one worker thread, started on first use, one report at a time. */
export function createResultsRunner(source: ResultsSource, clock: Clock, onCrash: (error: unknown) => void) {
  let worker: Worker | null = null;
  let nextId = 1;
  const waiting = new Map<number, { resolve: (r: ExperimentResults) => void; reject: (e: unknown) => void }>();

  function start(): Worker {
    const w = new Worker(workerScript(), { workerData: source });
    w.on('message', (response: ResultsResponse) => {
      const pending = waiting.get(response.id);
      if (pending === undefined) return;
      waiting.delete(response.id);
      if (waiting.size === 0) w.unref();
      if (response.ok) pending.resolve(response.report);
      else pending.reject(failure(response));
    });
    w.on('error', (error) => {
      onCrash(error);
      for (const pending of waiting.values()) pending.reject(error);
      waiting.clear();
      worker = null;
    });
    w.unref();
    return w;
  }

  return {
    results(projectId: string, experimentId: string, options: Partial<ResultsOptions>): Promise<ExperimentResults> {
      worker ??= start();
      // Referenced only while a report is owed, so an idle worker never keeps the process alive.
      worker.ref();
      const id = nextId++;
      const request: ResultsRequest = { id, projectId, experimentId, options, now: isoNow(clock) };
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker!.postMessage(request);
      });
    },
    async close(): Promise<void> {
      await worker?.terminate();
      worker = null;
    },
  };
}

export type ResultsRunner = ReturnType<typeof createResultsRunner>;
