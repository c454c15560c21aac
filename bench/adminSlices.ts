import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_KEY, admin } from './adminApi.js';
import { SERVER_JS, startPromptlineProcess, type ProbedChild } from './processes.js';

/**
 * `npm run bench -- admin-slices`: the longest event-loop stall (the server's own perf_hooks
 * histogram, bench/eventLoopProbe.ts) during each large admin request of issue 38: an evaluation
 * created on 100 000 items and cancelled, a 200 000-item upload committed, a version with 14 tools
 * of 4 000-entry enums. Each as a ratio: to the stall of the same server idle for as long, and,
 * with `BENCH_AB_BASELINE` (the root of another built checkout, e.g. the main branch's), this
 * build's to that one's.
 *
 * `BENCH_SLICES_SCALE` (default 1) scales the item counts down for a quick run (0.1: a tenth).
 */
const SCALE = Number(process.env.BENCH_SLICES_SCALE ?? 1);
const EVALUATION_ITEMS = Math.round(100_000 * SCALE);
const UPLOAD_ITEMS = Math.round(200_000 * SCALE);
const PER_REQUEST = 10_000;

const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

interface Measured {
  op: string;
  ms: number;
  stallMs: number;
  idleStallMs: number;
}

async function stagedUpload(origin: string, dataset: string, count: number): Promise<string> {
  const { upload_id } = (await admin(origin, 'POST', `/datasets/${dataset}/uploads`)) as { upload_id: string };
  for (let from = 0; from < count; from += PER_REQUEST) {
    const items = Array.from({ length: Math.min(PER_REQUEST, count - from) }, (_, i) => ({ inputs: { q: `q${from + i}` }, expected: `a${from + i}` }));
    await admin(origin, 'POST', `/datasets/${dataset}/uploads/${upload_id}/items`, { items });
  }
  return upload_id;
}

/** The request's longest stall, and the same server's longest stall idle for as long right after (the reference). */
async function measure(server: ProbedChild, op: string, request: () => Promise<unknown>): Promise<Measured> {
  await new Promise((r) => setTimeout(r, 500));
  await server.eventLoop();
  const started = performance.now();
  await request();
  const ms = performance.now() - started;
  const stall = await server.eventLoop();
  await new Promise((r) => setTimeout(r, ms));
  const idle = await server.eventLoop();
  return { op, ms, stallMs: stall.maxMs, idleStallMs: idle.maxMs };
}

async function run(serverJs: string): Promise<Measured[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-bench-slices-'));
  const server = await startPromptlineProcess({ PROMPTLINE_DATA_DIR: dataDir, PROMPTLINE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY, LOG_LEVEL: 'warn' }, [], serverJs);
  try {
    const origin = server.origin;
    await admin(origin, 'POST', '/prompts', { prompt_id: 'p', template: '{{q}}' });
    await admin(origin, 'POST', '/prompts/p/versions', { template: '{{q}}!' });
    await admin(origin, 'POST', '/evaluators', { evaluator_id: 'exact', kind: 'exact_match' });
    await admin(origin, 'POST', '/datasets', { dataset_id: 'eval' });
    await admin(origin, 'POST', `/datasets/eval/uploads/${await stagedUpload(origin, 'eval', EVALUATION_ITEMS)}/commit`);
    await admin(origin, 'POST', '/datasets', { dataset_id: 'upload' });
    const upload = await stagedUpload(origin, 'upload', UPLOAD_ITEMS);
    const rows: Measured[] = [];
    let evaluationId = '';
    rows.push(
      await measure(server, `create an evaluation (${EVALUATION_ITEMS} items)`, async () => {
        const created = (await admin(origin, 'POST', '/evaluations', {
          prompt_id: 'p',
          versions: [2, 1],
          dataset_id: 'eval',
          evaluators: ['exact'],
          concurrency: 1,
        })) as {
          evaluation_id: string;
        };
        evaluationId = created.evaluation_id;
      }),
    );
    rows.push(await measure(server, 'cancel it', () => admin(origin, 'POST', `/evaluations/${evaluationId}/cancel`)));
    rows.push(await measure(server, `commit an upload (${UPLOAD_ITEMS} items)`, () => admin(origin, 'POST', `/datasets/upload/uploads/${upload}/commit`)));
    const tools = Array.from({ length: 14 }, (_, t) => ({
      type: 'function',
      function: {
        name: `tool_${t}`,
        parameters: { type: 'object', properties: { choice: { type: 'string', enum: Array.from({ length: 4_000 }, (_, i) => `t${t}v${i}`) } } },
      },
    }));
    rows.push(
      await measure(server, 'a version with 14 tools of 4 000-entry enums', () => admin(origin, 'POST', '/prompts/p/versions', { template: '{{q}}?', tools })),
    );
    return rows;
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function main(): Promise<void> {
  const baselineRoot = process.env.BENCH_AB_BASELINE;
  const baselineJs = baselineRoot === undefined ? null : path.resolve(baselineRoot, 'dist/src/server.js');
  if (baselineJs !== null && !fs.existsSync(baselineJs)) throw new Error(`${baselineJs} does not exist: build the baseline checkout first`);
  console.log(`\n## Large admin requests: the longest event-loop stall (SQLite${SCALE === 1 ? '' : `, items × ${SCALE}`})\n`);
  const baseline = baselineJs === null ? null : await run(baselineJs);
  const candidate = await run(SERVER_JS);
  console.log(
    baseline === null
      ? '| request | answered in ms | longest stall ms | ratio to the idle server |\n|---|---|---|---|'
      : '| request | answered in ms (baseline → this) | longest stall ms (baseline → this) | ratio this / baseline | ratio to the idle server (this) |\n|---|---|---|---|---|',
  );
  candidate.forEach((row, i) => {
    const before = baseline?.[i];
    const idle = fmt(row.stallMs / row.idleStallMs);
    console.log(
      before === undefined
        ? `| ${row.op} | ${fmt(row.ms, 0)} | ${fmt(row.stallMs, 1)} | ${idle} |`
        : `| ${row.op} | ${fmt(before.ms, 0)} → ${fmt(row.ms, 0)} | ${fmt(before.stallMs, 1)} → ${fmt(row.stallMs, 1)} | ${fmt(row.stallMs / before.stallMs)} | ${idle} |`,
    );
  });
}
