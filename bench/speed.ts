import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { givenBenchExperiment, givenBenchPrompts } from './adminApi.js';
import { startPromptline } from './gateway.js';
import { cpuSeconds, pidOf, rssMb, sampleRss } from './procStats.js';
import { BENCH_DIR, type Child, type ProbedChild, startProcess } from './processes.js';
import { type CaseId, evaluate, figureText, goalText, type Measured, type Round, TARGETS, type TargetResult } from './speedTargets.js';
import { requireWrk, runWrk, type WrkLoad } from './wrk.js';

/**
 * `npm run bench -- speed`: every runtime endpoint under wrk, pinned to one core (BENCH_LOAD_CPUS,
 * default 0) while the server under test has the other (BENCH_SERVER_CPUS, default 1). Each case
 * alternates its reference (a bare node:http server parsing the same body, or a minimal keep-alive
 * proxy in front of the same zero-latency fake model) and Promptline, BENCH_ROUNDS times, so the
 * figures say how much they move between rounds. The fake model runs beside wrk, off the server's
 * core, for the proxy and for Promptline alike. Writes the run as JSON (BENCH_JSON, default
 * .bench/speed-<time>.json) for `npm run bench -- compare A.json B.json`.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARM_UP_SECONDS = 2;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const LOAD_CPUS = process.env.BENCH_LOAD_CPUS ?? '0';
const SERVER_CPUS = process.env.BENCH_SERVER_CPUS ?? '1';
const USERS = 100_000;

interface Server {
  child: Child;
  eventLoop?: ProbedChild['eventLoop'];
}

interface Case {
  id: CaseId;
  name: string;
  path: string;
  body: string;
  users?: number;
  connections: number;
  reference: 'bare' | 'proxy';
  /** The reference's own request path and body, when it is not Promptline's (the proxy speaks OpenAI). */
  referencePath?: string;
  referenceBody?: string;
}

const modelRequest = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hi to Ada.' }] });
const runRequest = JSON.stringify({ prompt_id: 'p', inputs: { name: 'Ada' } });

export const CASES: readonly Case[] = [
  {
    id: 'get',
    name: '/get_prompt, no experiment',
    path: '/get_prompt',
    body: JSON.stringify({ prompt_id: 'welcome', inputs: { name: 'Ada' } }),
    connections: CONNECTIONS,
    reference: 'bare',
  },
  {
    id: 'get-experiment',
    name: `/get_prompt, running experiment, ${USERS} sticky users`,
    path: '/get_prompt',
    body: JSON.stringify({ prompt_id: 'ab', inputs: { name: 'Ada' }, external_user_id: 'user-{i}' }),
    users: USERS,
    connections: CONNECTIONS,
    reference: 'bare',
  },
  {
    id: 'track',
    name: '/track_outcome (synchronous=FULL)',
    path: '/track_outcome',
    body: JSON.stringify({ prompt_id: 'welcome', external_user_id: 'user-{i}', event_type: 'click', is_success: true }),
    users: 1_000_000_000,
    connections: CONNECTIONS,
    reference: 'bare',
  },
  ...([1, 16, 64] as const).map(
    (connections): Case => ({
      id: `run-${connections}`,
      name: `/run_prompt → fake model, ${connections} connection${connections === 1 ? '' : 's'}`,
      path: '/run_prompt',
      body: runRequest,
      connections,
      reference: 'proxy',
      referencePath: '/v1/chat/completions',
      referenceBody: modelRequest,
    }),
  ),
];

/** A warm-up of the same load, then the measured load with the server's CPU, RSS and event loop read around it. */
async function measure(server: Server, load: Omit<WrkLoad, 'seconds' | 'cpus'>): Promise<Measured> {
  const pid = pidOf(server.child);
  await runWrk({ ...load, seconds: WARM_UP_SECONDS, cpus: LOAD_CPUS });
  await server.eventLoop?.();
  const cpu0 = cpuSeconds(pid);
  const rss = sampleRss(pid);
  const result = await runWrk({ ...load, seconds: SECONDS, cpus: LOAD_CPUS });
  const peakRssMb = rss.stop();
  const cpu = cpuSeconds(pid) - cpu0;
  const stall = await server.eventLoop?.();
  return { ...result, cpuUsPerRequest: (cpu * 1e6) / result.requests, peakRssMb, stallMs: stall?.maxMs ?? null };
}

export interface SpeedRun {
  machine: { cores: number; node: string; loadAverage: number[]; at: string };
  settings: { rounds: number; seconds: number; connections: number; loadCpus: string; serverCpus: string };
  memory: { idleRssMb: number; peakRssMb: number };
  cases: Record<string, { name: string; rounds: Round[] }>;
  targets: TargetResult[];
}

const ms = (n: number | null) => (n === null ? '–' : n.toFixed(1));

export async function main(): Promise<void> {
  requireWrk();
  const servers = path.join(BENCH_DIR, 'servers.js');
  const ready = /LISTENING (\d+)/;
  const fake = await startProcess(servers, ['fake'], {}, ready, LOAD_CPUS);
  const bare = await startProcess(servers, ['bare'], {}, ready, SERVER_CPUS);
  const proxy = await startProcess(servers, ['proxy', fake.origin], {}, ready, SERVER_CPUS);
  let pl: (ProbedChild & { dataDir: string }) | undefined;
  try {
    pl = await startPromptline(fake, { cpus: SERVER_CPUS });
    await givenBenchPrompts(pl.origin);
    await givenBenchExperiment(pl.origin);
    const idleRssMb = rssMb(pidOf(pl));
    // Every user assigned once, so the measured loads are the sticky steady state.
    const sticky = CASES.find((c) => c.id === 'get-experiment')!;
    await runWrk({ origin: pl.origin, path: sticky.path, body: sticky.body, users: USERS, connections: CONNECTIONS, seconds: 20, cpus: LOAD_CPUS });

    const promptline: Server = { child: pl, eventLoop: pl.eventLoop };
    const references = { bare: { child: bare }, proxy: { child: proxy } };
    const run: SpeedRun = {
      machine: { cores: os.cpus().length, node: process.version, loadAverage: os.loadavg(), at: new Date().toISOString() },
      settings: { rounds: ROUNDS, seconds: SECONDS, connections: CONNECTIONS, loadCpus: LOAD_CPUS, serverCpus: SERVER_CPUS },
      memory: { idleRssMb, peakRssMb: 0 },
      cases: {},
      targets: [],
    };
    console.log(
      `\n## Runtime speed (wrk pinned to CPU ${LOAD_CPUS}, servers to CPU ${SERVER_CPUS}; ${ROUNDS} rounds of ${SECONDS} s after ${WARM_UP_SECONDS} s of warm-up, reference then Promptline)\n`,
    );
    console.log(
      '| case | round | reference req/s | Promptline req/s | ratio | p50 ms (ref / PL) | p99 ms (ref / PL) | CPU µs/req (ref / PL) | longest stall ms | peak RSS MB |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    const only = process.env.BENCH_CASES?.split(',');
    for (const c of CASES.filter((c) => only === undefined || only.includes(c.id))) {
      const rounds: Round[] = [];
      for (let r = 1; r <= ROUNDS; r++) {
        const reference = await measure(references[c.reference], {
          origin: references[c.reference].child.origin,
          path: c.referencePath ?? c.path,
          body: c.referenceBody ?? c.body,
          users: c.users,
          connections: c.connections,
        });
        const measured = await measure(promptline, { origin: pl.origin, path: c.path, body: c.body, users: c.users, connections: c.connections });
        rounds.push({ reference, promptline: measured });
        run.memory.peakRssMb = Math.max(run.memory.peakRssMb, measured.peakRssMb);
        console.log(
          `| ${c.name} | ${r} | ${Math.round(reference.rps)} | ${Math.round(measured.rps)} | ${(measured.rps / reference.rps).toFixed(2)} | ${reference.p50Ms.toFixed(2)} / ${measured.p50Ms.toFixed(2)} | ${reference.p99Ms.toFixed(2)} / ${measured.p99Ms.toFixed(2)} | ${Math.round(reference.cpuUsPerRequest)} / ${Math.round(measured.cpuUsPerRequest)} | ${ms(measured.stallMs)} | ${measured.peakRssMb.toFixed(0)} |`,
        );
        if (measured.errors > 0 || reference.errors > 0) console.log(`  errors: reference ${reference.errors}, Promptline ${measured.errors}`);
      }
      run.cases[c.id] = { name: c.name, rounds };
    }
    run.targets = TARGETS.filter((t) => run.cases[t.caseId] !== undefined).map((t) => evaluate(t, run.cases[t.caseId]!.rounds));
    console.log('\n| target | median | spread over rounds | goal | |');
    console.log('|---|---|---|---|---|');
    for (const t of run.targets) {
      console.log(
        `| ${t.name} | ${figureText(t.median, t.unit)} | ${figureText(t.min, t.unit)} – ${figureText(t.max, t.unit)} | ${goalText(t.goal, t.unit)} | ${t.pass ? '**pass**' : '**miss**'} |`,
      );
    }
    const stalls = Object.values(run.cases).flatMap((c) => c.rounds.map((r) => r.promptline.stallMs ?? 0));
    const longest = Math.max(...stalls);
    console.log(`| longest event-loop stall during any load | ${longest.toFixed(1)} ms | | ≤ 10 ms | ${longest <= 10 ? '**pass**' : '**miss**'} |`);
    console.log(`\nPromptline's RSS: ${idleRssMb.toFixed(0)} MB idle (after set-up), ${run.memory.peakRssMb.toFixed(0)} MB at most under load.`);
    const file = process.env.BENCH_JSON ?? path.join('.bench', `speed-${run.machine.at.replaceAll(':', '-')}.json`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify(run, null, 2)}\n`);
    console.log(`Written to ${file} (compare two runs: npm run bench -- compare A.json B.json).`);
  } finally {
    await Promise.all([fake.stop(), bare.stop(), proxy.stop(), pl?.stop()]);
    if (pl) fs.rmSync(pl.dataDir, { recursive: true, force: true });
  }
}
