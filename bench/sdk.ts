import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Promptline } from '../sdk/js/src/index.js';
import { ADMIN_KEY, admin, givenBenchPrompts } from './adminApi.js';
import { BENCH_DIR, startPromptlineProcess } from './processes.js';

/**
 * `npm run bench -- sdk`: a client's getPrompt answered from its bundle, in-process, next to the
 * same client asking the server (one call at a time, as an application's request handler does), in
 * the same run, for the TypeScript and the Python client. Targets: Node local p99 under 10 µs and
 * at least 100× the remote call's throughput; Python local p99 under 100 µs.
 */

const LOCAL_CALLS = Number(process.env.BENCH_SDK_CALLS ?? 200_000);
const REMOTE_SECONDS = Number(process.env.BENCH_SDK_REMOTE_SECONDS ?? 3);
const USERS = 10_000;
const ROOT = path.resolve(BENCH_DIR, '../..');

interface Figures {
  callsPerSecond: number;
  p50us: number;
  p99us: number;
}

function figures(durationsNs: BigInt64Array | bigint[], totalNs: number): Figures {
  const sorted = Float64Array.from(durationsNs, (d) => Number(d) / 1000).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { callsPerSecond: (sorted.length / totalNs) * 1e9, p50us: at(0.5), p99us: at(0.99) };
}

/** `calls` sequential calls of `call(i)`, each timed alone. */
async function timeCalls(calls: number, call: (i: number) => Promise<unknown>): Promise<Figures> {
  const durations = new BigInt64Array(calls);
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) {
    const t0 = process.hrtime.bigint();
    await call(i);
    durations[i] = process.hrtime.bigint() - t0;
  }
  return figures(durations, Number(process.hrtime.bigint() - started));
}

/** Sequential calls for `seconds`, each timed. */
async function timeFor(seconds: number, call: (i: number) => Promise<unknown>): Promise<Figures> {
  const durations: bigint[] = [];
  const started = process.hrtime.bigint();
  const end = started + BigInt(seconds * 1e9);
  for (let i = 0; process.hrtime.bigint() < end; i++) {
    const t0 = process.hrtime.bigint();
    await call(i);
    durations.push(process.hrtime.bigint() - t0);
  }
  return figures(durations, Number(process.hrtime.bigint() - started));
}

const us = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));
const row = (what: string, f: Figures, remote: Figures, target: string) =>
  `| ${what} | ${Math.round(f.callsPerSecond)} | ${us(f.p50us)} | ${us(f.p99us)} | ${(f.callsPerSecond / remote.callsPerSecond).toFixed(0)}× | ${target} |`;

async function node(origin: string): Promise<void> {
  const local = new Promptline({ baseUrl: origin, apiKey: ADMIN_KEY });
  const remote = new Promptline({ baseUrl: origin, apiKey: ADMIN_KEY, mode: 'remote' });
  try {
    if (!(await local.ready())) throw new Error('the client could not load the bundle');
    const plain = (i: number) => local.getPrompt({ promptId: 'welcome', inputs: { name: `Ada ${i & 1023}` } });
    const inExperiment = (i: number) => local.getPrompt({ promptId: 'ab', inputs: { name: 'Ada' }, externalUserId: `user-${i % USERS}` });
    await timeCalls(LOCAL_CALLS / 4, plain); // warm-up: JIT, and the first exposure of each user queued
    await timeCalls(LOCAL_CALLS / 4, inExperiment);
    const localPlain = await timeCalls(LOCAL_CALLS, plain);
    const localExperiment = await timeCalls(LOCAL_CALLS, inExperiment);
    await timeFor(1, (i) => remote.getPrompt({ promptId: 'ab', inputs: { name: 'Ada' }, externalUserId: `user-${i % USERS}` }));
    const server = await timeFor(REMOTE_SECONDS, (i) => remote.getPrompt({ promptId: 'ab', inputs: { name: 'Ada' }, externalUserId: `user-${i % USERS}` }));
    const stats = local.stats();
    if (stats.bundleHits < 2.5 * LOCAL_CALLS) throw new Error(`only ${stats.bundleHits} calls were answered from the bundle`);
    console.log('| TypeScript client | calls/s | p50 µs | p99 µs | throughput vs the remote call | target |');
    console.log('|---|---|---|---|---|---|');
    console.log(row('local getPrompt, no experiment', localPlain, server, 'p99 < 10 µs, ≥ 100×'));
    console.log(row(`local getPrompt, running experiment, ${USERS} users`, localExperiment, server, 'p99 < 10 µs, ≥ 100×'));
    console.log(row('remote getPrompt (POST /get_prompt, one at a time)', server, server, '–'));
  } finally {
    await Promise.all([local.close(), remote.close()]);
  }
}

function python(origin: string): void {
  const script = path.join(ROOT, 'sdk/python/benchmarks/local_vs_remote.py');
  const run = spawnSync('python3', [script, '--base-url', origin, '--api-key', ADMIN_KEY, '--calls', String(LOCAL_CALLS / 4), '--users', String(USERS)], {
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: path.join(ROOT, 'sdk/python/src') },
  });
  if (run.status !== 0) throw new Error(`the Python benchmark failed: ${run.stderr}`);
  const r = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<
    'local_plain' | 'local_experiment' | 'remote',
    { calls_per_second: number; p50_us: number; p99_us: number }
  >;
  const f = (x: (typeof r)['remote']): Figures => ({ callsPerSecond: x.calls_per_second, p50us: x.p50_us, p99us: x.p99_us });
  console.log('\n| Python client | calls/s | p50 µs | p99 µs | throughput vs the remote call | target |');
  console.log('|---|---|---|---|---|---|');
  console.log(row('local get_prompt, no experiment', f(r.local_plain), f(r.remote), 'p99 < 100 µs'));
  console.log(row(`local get_prompt, running experiment, ${USERS} users`, f(r.local_experiment), f(r.remote), 'p99 < 100 µs'));
  console.log(row('remote get_prompt (one at a time)', f(r.remote), f(r.remote), '–'));
}

export async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-bench-sdk-'));
  const pl = await startPromptlineProcess({ PROMPTLINE_DATA_DIR: dataDir, PROMPTLINE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY, LOG_LEVEL: 'warn' });
  try {
    await givenBenchPrompts(pl.origin);
    await admin(pl.origin, 'POST', '/experiments', {
      experiment_id: 'bench',
      prompt_id: 'ab',
      variants: [
        { key: 'a', version: 1 },
        { key: 'b', version: 2 },
      ],
    });
    await admin(pl.origin, 'POST', '/experiments/bench/start');
    console.log(
      `\n## Client SDKs: getPrompt from the bundle vs. from the server (${LOCAL_CALLS} local calls per row, remote calls for ${REMOTE_SECONDS} s, one at a time, each timed alone)\n`,
    );
    await node(pl.origin);
    python(pl.origin);
  } finally {
    await pl.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
