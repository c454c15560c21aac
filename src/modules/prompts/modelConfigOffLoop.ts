import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { checkModelConfig } from './modelConfigChecks.js';
import type { VersionInput } from './prompts.schemas.js';
import { contentHashOf } from './versionHash.js';

export type ModelConfigCheck = ReturnType<typeof checkModelConfig>;
/** A new version's model config checked, and its content hash (600 KB of tools take milliseconds to hash too). */
export interface VersionChecks {
  model: ModelConfigCheck;
  hash: string;
}
export interface VersionChecksRequest {
  id: number;
  input: VersionInput;
}
export type VersionChecksResponse = { id: number; ok: true; result: VersionChecks } | { id: number; ok: false; message: string };

/**
 * Why a thread: ajv checks a schema against the draft-07 meta-schema, whose `uniqueItems` on `enum`
 * compares every pair of entries (a 4 000-entry enum: 8 million comparisons, 0.1 to 0.3 s), and
 * then compiles it into code with one comparison per entry. Fourteen such tools held the event loop
 * 1.35 s. Compiling elsewhere keeps every keyword and every message of the check as it is, for any
 * schema, where checking or compiling in slices here would have to reimplement parts of ajv; the
 * version goes over (a structured copy, milliseconds for the largest body) and the issues and the
 * hash come back.
 */
function workerScript(): URL {
  const here = fileURLToPath(import.meta.url);
  // Under the test runner this module runs from TypeScript sources, which a worker cannot load: it uses the build.
  const compiled = here.endsWith('.ts')
    ? here.replace(/\/src\/(.*)\/modelConfigOffLoop\.ts$/, '/dist/src/$1/modelConfigWorker.js')
    : here.replace(/modelConfigOffLoop\.js$/, 'modelConfigWorker.js');
  if (!fs.existsSync(compiled)) throw new Error(`schema worker not built: ${compiled} (run npm run build)`);
  return pathToFileURL(compiled);
}

let worker: Worker | null = null;
let nextId = 1;
const waiting = new Map<number, { resolve: (r: VersionChecks) => void; reject: (e: unknown) => void }>();

function start(): Worker {
  const w = new Worker(workerScript());
  w.on('message', (response: VersionChecksResponse) => {
    const pending = waiting.get(response.id);
    if (pending === undefined) return;
    waiting.delete(response.id);
    // Referenced only while a check is owed, so an idle thread never keeps the process alive.
    if (waiting.size === 0) w.unref();
    if (response.ok) pending.resolve(response.result);
    else pending.reject(new Error(response.message));
  });
  const fail = (error: unknown) => {
    if (worker === w) worker = null;
    for (const pending of waiting.values()) pending.reject(error);
    waiting.clear();
  };
  w.on('error', fail);
  w.on('exit', (code) => fail(new Error(`the schema worker exited (${code})`)));
  w.unref();
  return w;
}

const hasSchema = (input: VersionInput): boolean =>
  (input.tools ?? []).some((tool) => tool.function.parameters !== undefined) || input.response_format?.type === 'json_schema';

/** What the worker thread computes, here or there. */
export function versionChecks(input: VersionInput): VersionChecks {
  return { model: checkModelConfig(input), hash: contentHashOf(input) };
}

/**
 * A new version's model config checked and its content hashed, on a worker thread (started on
 * first use, kept while the process runs) when it carries a schema; a version without any has
 * nothing to compile and is checked here.
 */
export function versionChecksOffLoop(input: VersionInput): Promise<VersionChecks> {
  if (!hasSchema(input)) return Promise.resolve(versionChecks(input));
  worker ??= start();
  worker.ref();
  const id = nextId++;
  const request: VersionChecksRequest = { id, input };
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    worker!.postMessage(request);
  });
}
