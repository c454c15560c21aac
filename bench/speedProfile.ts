import fs from 'node:fs';
import path from 'node:path';
import { givenBenchExperiment, givenBenchPrompts } from './adminApi.js';
import { printBusyStretches } from './busyStretches.js';
import { summariseProfile } from './cpuProfile.js';
import { startPromptline } from './gateway.js';
import { pidOf } from './procStats.js';
import { BENCH_DIR, startProcess } from './processes.js';
import { CASES } from './speed.js';
import { requireWrk, runWrk } from './wrk.js';

/**
 * `npm run bench -- speed-profile`: where Promptline's CPU goes under each load of the speed bench.
 * One Promptline started with `--cpu-prof` (pinned as the speed bench pins it) takes each case's
 * load for BENCH_SECONDS after a warm-up; the profile is written at a graceful stop (SIGINT), then
 * summarised per case over that case's window only: the functions with the most self time and
 * self time by package. The profiler slows the server, so its rates are not the speed bench's.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const LOAD_CPUS = process.env.BENCH_LOAD_CPUS ?? '0';
const SERVER_CPUS = process.env.BENCH_SERVER_CPUS ?? '1';
const PROFILE_DIR = process.env.BENCH_CPU_PROF_DIR ?? path.join('.bench', 'profile');
const ONLY = process.env.BENCH_CASES?.split(',');

const nowUs = () => Number(process.hrtime.bigint() / 1000n);

export async function main(): Promise<void> {
  requireWrk();
  fs.rmSync(PROFILE_DIR, { recursive: true, force: true });
  fs.mkdirSync(PROFILE_DIR, { recursive: true });
  const fake = await startProcess(path.join(BENCH_DIR, 'servers.js'), ['fake'], {}, /LISTENING (\d+)/, LOAD_CPUS);
  const pl = await startPromptline(fake, {
    cpus: SERVER_CPUS,
    nodeArgs: ['--cpu-prof', '--cpu-prof-interval=250', `--cpu-prof-dir=${path.resolve(PROFILE_DIR)}`],
  });
  const pid = pidOf(pl);
  const windows: Array<{ name: string; rps: number; window: { startUs: number; endUs: number } }> = [];
  try {
    await givenBenchPrompts(pl.origin);
    await givenBenchExperiment(pl.origin);
    for (const c of CASES.filter((c) => ONLY === undefined || ONLY.includes(c.id))) {
      const load = { origin: pl.origin, path: c.path, body: c.body, users: c.users, connections: c.connections, cpus: LOAD_CPUS };
      // The experiment case's warm-up assigns every user, so its window is the sticky steady state.
      await runWrk({ ...load, seconds: c.id === 'get-experiment' ? 20 : 2 });
      const startUs = nowUs();
      const result = await runWrk({ ...load, seconds: SECONDS });
      windows.push({ name: c.name, rps: result.rps, window: { startUs, endUs: nowUs() } });
    }
    await new Promise<void>((done) => {
      pl.process.once('exit', () => done());
      pl.process.kill('SIGINT');
    });
  } finally {
    await fake.stop();
    if (pl.process.exitCode === null && pl.process.signalCode === null) await pl.stop();
    fs.rmSync(pl.dataDir, { recursive: true, force: true });
  }
  const file = fs.readdirSync(PROFILE_DIR).find((name) => name.endsWith('.cpuprofile') && name.includes(`.${pid}.`));
  if (file === undefined) throw new Error(`no .cpuprofile for pid ${pid} in ${PROFILE_DIR}`);
  for (const w of windows) {
    console.log(`\n## ${w.name}: ${Math.round(w.rps)} req/s while profiled (${SECONDS} s; main thread only)`);
    summariseProfile(path.join(PROFILE_DIR, file), w.window);
    printBusyStretches(path.join(PROFILE_DIR, file), w.window);
  }
  console.log(`\nProfile: ${path.join(PROFILE_DIR, file)} (open it in Chrome DevTools' Performance panel).`);
}
