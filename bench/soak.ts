import fs from 'node:fs';
import path from 'node:path';
import { givenBenchExperiment, givenBenchPrompts } from './adminApi.js';
import { startPromptline } from './gateway.js';
import { pidOf, rssMb } from './procStats.js';
import { BENCH_DIR, startProcess } from './processes.js';
import { requireWrk, runWrk } from './wrk.js';

/**
 * `npm run bench -- soak`: Promptline under a steady rate of every runtime endpoint at once for
 * BENCH_SOAK_MINUTES (default 10), its RSS sampled every 10 s. Memory must not grow: the RSS at
 * the end may be at most 10% above the RSS after the first minute (when caches, JIT and the
 * SQLite page cache have warmed). wrk's `delay` paces each connection, so the rate is fixed
 * (connections × 1000 / delay per endpoint) instead of as fast as the server goes.
 */
const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 10);
const LOAD_CPUS = process.env.BENCH_LOAD_CPUS ?? '0';
const SERVER_CPUS = process.env.BENCH_SERVER_CPUS ?? '1';
const SAMPLE_MS = 10_000;
/** Each endpoint: 8 connections, one request per 20 ms each → 400 requests/s, 1 200/s in all. */
const CONNECTIONS = 8;
const DELAY_MS = 20;

export async function main(): Promise<void> {
  requireWrk();
  const fake = await startProcess(path.join(BENCH_DIR, 'servers.js'), ['fake'], {}, /LISTENING (\d+)/, LOAD_CPUS);
  const pl = await startPromptline(fake, { cpus: SERVER_CPUS });
  try {
    await givenBenchPrompts(pl.origin);
    await givenBenchExperiment(pl.origin);
    const pid = pidOf(pl);
    const seconds = MINUTES * 60;
    const loads = [
      { path: '/get_prompt', body: JSON.stringify({ prompt_id: 'ab', inputs: { name: 'Ada' }, external_user_id: 'user-{i}' }), users: 1_000_000 },
      { path: '/run_prompt', body: JSON.stringify({ prompt_id: 'p', inputs: { name: 'Ada' } }) },
      {
        path: '/track_outcome',
        body: JSON.stringify({ prompt_id: 'welcome', external_user_id: 'user-{i}', event_type: 'click', is_success: true }),
        users: 1_000_000,
      },
    ].map((load) => runWrk({ origin: pl.origin, ...load, connections: CONNECTIONS, delayMs: DELAY_MS, seconds, cpus: LOAD_CPUS }));
    await pl.eventLoop();
    const samples: { minute: number; rssMb: number }[] = [];
    const started = Date.now();
    const timer = setInterval(() => samples.push({ minute: (Date.now() - started) / 60_000, rssMb: rssMb(pid) }), SAMPLE_MS);
    const results = await Promise.all(loads);
    clearInterval(timer);
    const stall = await pl.eventLoop();
    const atMinuteOne = samples.find((s) => s.minute >= 1) ?? samples[0]!;
    const last = samples.at(-1)!;
    const pass = last.rssMb <= atMinuteOne.rssMb * 1.1;
    console.log(
      `\n## Soak: ${MINUTES} min at a steady ${(3 * CONNECTIONS * 1000) / DELAY_MS} requests/s (get_prompt with new users, run_prompt, track_outcome)\n`,
    );
    console.log('| minute | RSS MB |');
    console.log('|---|---|');
    for (const s of samples.filter((_, i) => i % 6 === 5 || i === samples.length - 1)) console.log(`| ${s.minute.toFixed(1)} | ${s.rssMb.toFixed(0)} |`);
    console.log(
      `\nRSS at minute ${atMinuteOne.minute.toFixed(1)}: ${atMinuteOne.rssMb.toFixed(0)} MB; at the end: ${last.rssMb.toFixed(0)} MB (limit ${(atMinuteOne.rssMb * 1.1).toFixed(0)} MB) ${pass ? '**pass**' : '**miss**'}`,
    );
    console.log(
      `Requests: ${results.map((r, i) => `${['get_prompt', 'run_prompt', 'track_outcome'][i]} ${r.requests} (${r.errors} errors)`).join(', ')}; longest event-loop stall ${stall.maxMs.toFixed(1)} ms`,
    );
    const file = process.env.BENCH_JSON ?? path.join('.bench', `soak-${new Date().toISOString().replaceAll(':', '-')}.json`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify({ minutes: MINUTES, samples, results, stallMs: stall.maxMs, pass }, null, 2)}\n`);
  } finally {
    await Promise.all([fake.stop(), pl.stop()]);
    fs.rmSync(pl.dataDir, { recursive: true, force: true });
  }
}
