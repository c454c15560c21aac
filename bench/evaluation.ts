import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { ADMIN_KEY, admin } from './adminApi.js';
import { startPromptlineProcess } from './processes.js';

/**
 * `npm run bench -- evaluation`: an evaluation of 1 000 items × 2 versions on the echo model with
 * exact match, timed from POST /evaluations to `completed`, and the latency of /get_prompt (one
 * connection, one request at a time) while it runs, as a ratio to the same measured just before on
 * the same server. Evaluation work yields to the event loop between items, so runtime requests come first.
 */
const ITEMS = Number(process.env.BENCH_EVAL_ITEMS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_EVAL_CONCURRENCY ?? 4);
const BASELINE_MS = 3000;

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

/** /get_prompt latencies, one at a time, until `done()` says stop. */
async function getPromptLatencies(pool: Pool, done: () => boolean): Promise<number[]> {
  const body = JSON.stringify({ prompt_id: 'welcome', inputs: { name: 'Ada' } });
  const out: number[] = [];
  while (!done()) {
    const started = performance.now();
    const res = await pool.request({ method: 'POST', path: '/get_prompt', headers: { 'content-type': 'application/json', 'x-api-key': ADMIN_KEY }, body });
    await res.body.text();
    if (res.statusCode !== 200) throw new Error(`/get_prompt answered ${res.statusCode}`);
    out.push(performance.now() - started);
  }
  return out;
}

export async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-bench-eval-'));
  const server = await startPromptlineProcess({ PROMPTLINE_DATA_DIR: dataDir, PROMPTLINE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY, PROMPTLINE_RATE_LIMIT_PER_MINUTE: '0' });
  const pool = new Pool(server.origin, { connections: 1 });
  try {
    const { origin } = server;
    await admin(origin, 'POST', '/prompts', { prompt_id: 'welcome', template: 'Write a one-line welcome for {{name}}.', labels: ['production'] });
    await admin(origin, 'POST', '/prompts', { prompt_id: 'answer', template: '{{answer}}', labels: ['production'] });
    await admin(origin, 'POST', '/prompts/answer/versions', { template: '{{answer}}!' });
    await admin(origin, 'POST', '/datasets', { dataset_id: 'bench' });
    await admin(origin, 'POST', '/datasets/bench/items', {
      items: Array.from({ length: ITEMS }, (_, i) => ({ inputs: { answer: `answer ${i}` }, expected: `answer ${i}` })),
    });
    await admin(origin, 'POST', '/evaluators', { evaluator_id: 'exact', kind: 'exact_match' });

    // Warm-up, then the reference: /get_prompt alone.
    const warm = performance.now();
    await getPromptLatencies(pool, () => performance.now() - warm > 1000);
    const refStart = performance.now();
    const alone = await getPromptLatencies(pool, () => performance.now() - refStart > BASELINE_MS);

    let ended = false;
    const started = performance.now();
    const created = (await admin(origin, 'POST', '/evaluations', {
      prompt_id: 'answer',
      versions: [2, 'production'],
      dataset_id: 'bench',
      evaluators: ['exact'],
      concurrency: CONCURRENCY,
    })) as { evaluation_id: string };
    const during = getPromptLatencies(pool, () => ended);
    let status = 'queued';
    while (!['completed', 'cancelled', 'budget_exhausted', 'failed'].includes(status)) {
      // As the CLI polls (twice a second): a GET computes every evaluator's comparison so far.
      await new Promise((resolve) => setTimeout(resolve, 500));
      status = ((await admin(origin, 'GET', `/evaluations/${created.evaluation_id}`)) as { status: string }).status;
    }
    const seconds = (performance.now() - started) / 1000;
    ended = true;
    const busy = await during;

    console.log(`\n## Evaluation: ${ITEMS} items × 2 versions, echo model, exact match, concurrency ${CONCURRENCY}\n`);
    console.log(`Finished ${status} in ${fmt(seconds, 1)} s (${fmt((ITEMS * 2) / seconds, 0)} item-versions/s; target under 30 s).\n`);
    console.log('| /get_prompt, one connection | requests | p50 ms | p99 ms | p50 ratio | p99 ratio |');
    console.log('|---|---|---|---|---|---|');
    console.log(`| alone | ${alone.length} | ${fmt(quantile(alone, 0.5))} | ${fmt(quantile(alone, 0.99))} | 1.00 | 1.00 |`);
    console.log(
      `| during the evaluation | ${busy.length} | ${fmt(quantile(busy, 0.5))} | ${fmt(quantile(busy, 0.99))} | ${fmt(quantile(busy, 0.5) / quantile(alone, 0.5))} | ${fmt(quantile(busy, 0.99) / quantile(alone, 0.99))} |`,
    );
  } finally {
    await pool.close();
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
