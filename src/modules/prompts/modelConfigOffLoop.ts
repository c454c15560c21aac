import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { checkModelConfig, type ModelConfigInput } from './modelConfigChecks.js';

export type ModelConfigCheck = ReturnType<typeof checkModelConfig>;
export interface ModelConfigRequest {
  id: number;
  input: Pick<ModelConfigInput, 'tools' | 'tool_choice' | 'response_format' | 'params'>;
}
export type ModelConfigResponse = { id: number; ok: true; result: ModelConfigCheck } | { id: number; ok: false; message: string };

/**
 * Why a thread: ajv checks a schema against the draft-07 meta-schema, whose `uniqueItems` on `enum`
 * compares every pair of entries (a 4 000-entry enum: 8 million comparisons, 0.1 to 0.3 s), and
 * then compiles it into code with one comparison per entry. Fourteen such tools held the event loop
 * 1.35 s. Compiling elsewhere keeps every keyword and every message of the check as it is, for any
 * schema, where checking or compiling in slices here would have to reimplement parts of ajv; the
 * schemas go over (a structured copy, milliseconds for the largest body) and the issues come back.
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
const waiting = new Map<number, { resolve: (r: ModelConfigCheck) => void; reject: (e: unknown) => void }>();

function start(): Worker {
  const w = new Worker(workerScript());
  w.on('message', (response: ModelConfigResponse) => {
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

const hasSchema = (input: ModelConfigInput): boolean =>
  (input.tools ?? []).some((tool) => tool.function.parameters !== undefined) || input.response_format?.type === 'json_schema';

/**
 * checkModelConfig, with its schemas compiled on a worker thread (started on first use, kept while
 * the process runs); a config without any schema has nothing to compile and is checked here.
 */
export function checkModelConfigOffLoop(input: ModelConfigInput): Promise<ModelConfigCheck> {
  if (!hasSchema(input)) return Promise.resolve(checkModelConfig(input));
  worker ??= start();
  worker.ref();
  const id = nextId++;
  const request: ModelConfigRequest = {
    id,
    input: { tools: input.tools, tool_choice: input.tool_choice, response_format: input.response_format, params: input.params },
  };
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    worker!.postMessage(request);
  });
}
