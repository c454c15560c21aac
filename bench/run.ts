import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { BENCH_DIR, startProcess, startPromptlineProcess, type EventLoopDelay, type ProbedChild } from './processes.js';
import { ADMIN_KEY, admin, givenBenchExperiment, givenBenchPrompts } from './adminApi.js';

/**
 * `npm run bench`: every figure is a ratio to a reference measured in the same run on the same
 * machine (so the bench holds on any machine), never an absolute number compared with a constant.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const USERS = 100_000;

interface Throughput {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** Measures after a 2 s warm-up of the same load, so every server is compared with its JIT warm. */
async function cannon(origin: string, pathName: string, body: (i: number) => string, afterWarmUp?: () => Promise<unknown>): Promise<Throughput> {
  await cannonFor(2, origin, pathName, body, {});
  await afterWarmUp?.();
  return cannonFor(SECONDS, origin, pathName, body, {});
}

async function cannonFor(seconds: number, origin: string, pathName: string, body: (i: number) => string, headers: Record<string, string>): Promise<Throughput> {
  let i = 0;
  const result = await autocannon({
    url: `${origin}${pathName}`,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': ADMIN_KEY, ...headers },
        setupRequest: (req) => ({ ...req, body: body(i++) }),
      },
    ],
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

/** Promptline as configured by default (access log at info level, synchronous=FULL), its log discarded. */
async function startPromptline(extraEnv: Record<string, string> = {}): Promise<ProbedChild & { dataDir: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-bench-'));
  const child = await startPromptlineProcess({ PROMPTLINE_DATA_DIR: dataDir, PROMPTLINE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY, ...extraEnv });
  return { ...child, dataDir };
}

const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

function row(name: string, r: Throughput, ref: Throughput, stall: EventLoopDelay): string {
  return `| ${name} | ${Math.round(r.rps)} | ${fmt(r.rps / ref.rps)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(stall.maxMs, 1)} | ${r.errors} |`;
}

async function runtimeEndpoints(): Promise<void> {
  const bare = await startProcess(path.join(BENCH_DIR, 'servers.js'), ['bare'], {}, /LISTENING (\d+)/);
  const pl = await startPromptline();
  try {
    await givenBenchPrompts(pl.origin);
    await givenBenchExperiment(pl.origin);

    const getBody = () => JSON.stringify({ prompt_id: 'welcome', inputs: { name: 'Ada' } });
    const abBody = (i: number) => JSON.stringify({ prompt_id: 'ab', inputs: { name: 'Ada' }, external_user_id: `user-${i % USERS}` });
    // The reference gets the same bodies (so the load generator does the same work), right before
    // and right after every endpoint; the ratio is to their mean, so drift on the machine cancels out.
    const ratioed = async (name: string, pathName: string, body: (i: number) => string, alongside?: () => () => Promise<void>) => {
      const before = await cannon(bare.origin, pathName, body);
      let stopAlongside: (() => Promise<void>) | undefined;
      const measured = await cannon(pl.origin, pathName, body, () => {
        stopAlongside = alongside?.();
        return pl.eventLoop();
      });
      await stopAlongside?.();
      const stall = await pl.eventLoop();
      const after = await cannon(bare.origin, pathName, body);
      const reference = { rps: (before.rps + after.rps) / 2, p50: 0, p99: 0, errors: 0 };
      console.log(`${row(name, measured, reference, stall)} ${Math.round(reference.rps)} |`);
    };
    console.log(
      `\n## Runtime endpoints (${CONNECTIONS} connections, ${SECONDS}s each after a 2s warm-up; reference: bare node:http parsing the same JSON, measured before and after each row)\n`,
    );
    console.log('| endpoint | req/s | ratio to bare | p50 ms | p99 ms | longest event-loop stall ms | errors | bare req/s (mean) |');
    console.log('|---|---|---|---|---|---|---|---|');
    await ratioed('/get_prompt', '/get_prompt', getBody);
    // First pass assigns the 100 000 users (a committed write each); the measured pass is the steady state.
    const assigning = await autocannonAmount(pl.origin, '/get_prompt', abBody, USERS);
    await ratioed(`/get_prompt, running experiment, ${USERS} users (sticky)`, '/get_prompt', abBody);
    console.log(
      `| /get_prompt, first assignment of ${USERS} users (writes) | ${Math.round(assigning.rps)} | – | ${fmt(assigning.p50)} | ${fmt(assigning.p99)} | – | ${assigning.errors} | – |`,
    );
    await ratioed('/run_prompt (echo)', '/run_prompt', (i) => JSON.stringify({ prompt_id: 'welcome', inputs: { name: `Ada ${i}` } }));
    await ratioed('/track_outcome (synchronous=FULL)', '/track_outcome', (i) =>
      JSON.stringify({ prompt_id: 'welcome', external_user_id: `user-${i}`, event_type: 'click', is_success: true }),
    );
    await admin(pl.origin, 'POST', '/prompts', { prompt_id: 'grid', template: '{{#rows}}{{#cols}}.{{/cols}}{{/rows}}' });
    await ratioed('/get_prompt while 4 clients send template bombs (each a 422)', '/get_prompt', getBody, () => bombard(pl.origin, 4));
    console.log('\nTargets: /get_prompt in an experiment ≥ 0.50 of bare; /track_outcome ≥ 0.25.');
  } finally {
    await Promise.all([bare.stop(), pl.stop()]);
    fs.rmSync(pl.dataDir, { recursive: true, force: true });
  }
}

/**
 * `clients` loops sending the hardening report's 48 KB grid bomb (12 000 × 12 000 sections) until
 * stopped; each must be a 422.
 */
function bombard(origin: string, clients: number): () => Promise<void> {
  const zeros = Array<number>(12_000).fill(0);
  const body = JSON.stringify({ prompt_id: 'grid', inputs: { rows: zeros, cols: zeros } });
  let running = true;
  let unexpected = 0;
  const loops = Array.from({ length: clients }, async () => {
    while (running) {
      const res = await fetch(`${origin}/get_prompt`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': ADMIN_KEY }, body });
      await res.arrayBuffer();
      if (res.status !== 422) unexpected++;
    }
  });
  return async () => {
    running = false;
    await Promise.all(loops);
    if (unexpected > 0) throw new Error(`${unexpected} template bombs were not answered 422`);
  };
}

async function autocannonAmount(origin: string, pathName: string, body: (i: number) => string, amount: number): Promise<Throughput> {
  let i = 0;
  const result = await autocannon({
    url: `${origin}${pathName}`,
    connections: CONNECTIONS,
    amount,
    requests: [
      { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': ADMIN_KEY }, setupRequest: (req) => ({ ...req, body: body(i++) }) },
    ],
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

const only = process.argv[2];
console.log(`# Promptline benchmarks — ${os.cpus().length} cores, Node ${process.version}`);
if (!only || only === 'speed') {
  const { main } = await import('./speed.js');
  await main();
}
// Not part of the full run: where the CPU goes under each speed load (node --cpu-prof).
if (only === 'speed-profile') {
  const { main } = await import('./speedProfile.js');
  await main();
}
// Not part of the full run: ten minutes (BENCH_SOAK_MINUTES).
if (only === 'soak') {
  const { main } = await import('./soak.js');
  await main();
}
if (only === 'compare') {
  const { main } = await import('./compare.js');
  main(process.argv.slice(3));
}
if (only === 'runtime') await runtimeEndpoints();
// Not part of the full run: the seeded simulations behind docs/rollouts-and-bandits.md (a few minutes).
if (only === 'decisions') {
  const { main } = await import('./decisions.js');
  main();
}
if (!only || only === 'evaluation') {
  const { main } = await import('./evaluation.js');
  await main();
}
// The longest stall of each large admin request (issue 38); BENCH_AB_BASELINE compares with another build.
if (!only || only === 'admin-slices') {
  const { main } = await import('./adminSlices.js');
  await main();
}
if (!only || only === 'gateway') {
  const { main } = await import('./gateway.js');
  await main();
}
if (!only || only === 'stream') {
  const { main } = await import('./stream.js');
  await main();
}
// Not part of the full run: it compares two builds (see bench/gatewayAB.ts).
if (only === 'gateway-ab') {
  const { main } = await import('./gatewayAB.js');
  await main();
}
if (!only || only === 'postgres') {
  const { main } = await import('./postgres.js');
  await main();
}
if (!only || only === 'results') {
  const { main } = await import('./results.js');
  await main();
}
if (!only || only === 'results-postgres') {
  const { mainPostgres } = await import('./results.js');
  await mainPostgres();
}
if (!only || only === 'sdk') {
  const { main } = await import('./sdk.js');
  await main();
}
if (!only || only === 'console') {
  const { main } = await import('./consoleResults.js');
  await main();
}
