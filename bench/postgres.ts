/**
 * PostgreSQL with one and two replicas against the SQLite single process, in one run on one
 * machine: /get_prompt and /track_outcome throughput, each as a ratio to SQLite's. With two
 * replicas the load is split over both (half the connections each) and their rates add up.
 *
 *   npm run build && node dist/bench/run.js postgres
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { withDatabase } from './benchDatabase.js';
import { startPromptlineProcess, type ProbedChild } from './processes.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ADMIN_KEY = 'pl_a_bench-postgres-admin-key-0000000000';

interface Rate {
  rps: number;
  p99: number;
  errors: number;
}

const ENDPOINTS = {
  '/get_prompt': () => JSON.stringify({ prompt_id: 'welcome', inputs: { name: 'Ada' } }),
  '/track_outcome': (i: number) => JSON.stringify({ prompt_id: 'welcome', external_user_id: `user-${i}`, event_type: 'click', is_success: true }),
} as const;

async function load(origin: string, pathName: keyof typeof ENDPOINTS, connections: number, seconds: number): Promise<Rate> {
  let i = 0;
  const body = ENDPOINTS[pathName];
  const result = await autocannon({
    url: `${origin}${pathName}`,
    connections,
    duration: seconds,
    requests: [
      { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': ADMIN_KEY }, setupRequest: (req) => ({ ...req, body: body(i++) }) },
    ],
  });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

/** The load split over every replica at once (after a 2 s warm-up of the same): rates add up, p99 is the worst. */
async function measure(origins: string[], pathName: keyof typeof ENDPOINTS): Promise<Rate> {
  const share = Math.max(1, Math.floor(CONNECTIONS / origins.length));
  await Promise.all(origins.map((origin) => load(origin, pathName, share, 2)));
  const rates = await Promise.all(origins.map((origin) => load(origin, pathName, share, SECONDS)));
  return { rps: rates.reduce((sum, r) => sum + r.rps, 0), p99: Math.max(...rates.map((r) => r.p99)), errors: rates.reduce((sum, r) => sum + r.errors, 0) };
}

async function replicas(count: number, env: Record<string, string>): Promise<ProbedChild[]> {
  const started: ProbedChild[] = [];
  // One after the other: the first migrates, the rest find nothing to do.
  for (let i = 0; i < count; i++) started.push(await startPromptlineProcess({ PROMPTLINE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY, LOG_LEVEL: 'warn', ...env }));
  const res = await fetch(`${started[0]!.origin}/prompts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': ADMIN_KEY },
    body: JSON.stringify({ prompt_id: 'welcome', template: 'Write a one-line welcome for {{name}}.', labels: ['production'] }),
  });
  if (res.status !== 201) throw new Error(`creating the prompt answered ${res.status}`);
  return started;
}

async function stopAll(children: ProbedChild[]): Promise<void> {
  await Promise.all(children.map((c) => c.stop()));
}

export async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-bench-pg-'));
  const rows: Array<[string, keyof typeof ENDPOINTS, Rate]> = [];
  try {
    const sqlite = await replicas(1, { PROMPTLINE_DATA_DIR: dataDir });
    try {
      for (const endpoint of Object.keys(ENDPOINTS) as Array<keyof typeof ENDPOINTS>)
        rows.push(['SQLite, 1 process', endpoint, await measure([sqlite[0]!.origin], endpoint)]);
    } finally {
      await stopAll(sqlite);
    }
    for (const count of [1, 2]) {
      await withDatabase(`promptline_bench_${process.pid}`, async (url) => {
        const started = await replicas(count, { PROMPTLINE_DATABASE_URL: url, PROMPTLINE_DATA_DIR: dataDir });
        try {
          for (const endpoint of Object.keys(ENDPOINTS) as Array<keyof typeof ENDPOINTS>) {
            rows.push([
              `PostgreSQL, ${count} replica${count > 1 ? 's' : ''}`,
              endpoint,
              await measure(
                started.map((s) => s.origin),
                endpoint,
              ),
            ]);
          }
        } finally {
          await stopAll(started);
        }
      });
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(
    `\n## PostgreSQL and replicas (${CONNECTIONS} connections in all, ${SECONDS}s each after a 2s warm-up; ${os.cpus().length} cores shared by everything)\n`,
  );
  console.log('| backend | endpoint | req/s | ratio to SQLite | p99 ms | errors |');
  console.log('|---|---|---|---|---|---|');
  for (const [backend, endpoint, rate] of rows) {
    const reference = rows.find(([b, e]) => b === 'SQLite, 1 process' && e === endpoint)![2];
    console.log(`| ${backend} | ${endpoint} | ${Math.round(rate.rps)} | ${(rate.rps / reference.rps).toFixed(2)} | ${rate.p99} | ${rate.errors} |`);
  }
}
