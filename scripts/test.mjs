#!/usr/bin/env node
// `npm test`: every stage runs, even after one failed, so a single run reports all of them (a
// failure on SQLite never hides the PostgreSQL results); each prints one summary line, and the
// exit code is non-zero if any stage failed. Arguments (`npm test -- test/integration/keys`) are
// vitest file filters given to both backends' stages instead of their usual file lists.
// The container stages run in the background, beside the others (see CONTAINER_STAGES).
// Plain Node on purpose: it must run before anything is built, and has nothing to compile.
import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { containerEngine } from './containers.mjs';

const root = path.resolve(import.meta.dirname, '..');
const filters = process.argv.slice(2);
const postgresUrl = new URL(process.env.PROMPTLINE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');

/** The suites that run again on PostgreSQL: everything that touches the store through the app. */
const POSTGRES_FILES = ['test/integration', 'test/contract'];
/** The abuse suites that run again on PostgreSQL (the others attack what both backends share). */
const POSTGRES_ABUSE_FILES = [
  'test/abuse/fuzz.test.ts',
  'test/abuse/unstorableLoad.test.ts',
  'test/abuse/listPages.test.ts',
  'test/abuse/streamStalls.test.ts',
  'test/abuse/largeAdminRequests.test.ts',
];
// The abuse suite measures /healthz latency during each attack (p99 under 100 ms): it runs on its
// own, one file at a time, so that what it measures is the attack, not the other test files.
const ALONE = ['--no-file-parallelism'];
const postgres = { PROMPTLINE_TEST_BACKEND: 'postgres' };

/**
 * The image (`npm run image`) and the container tests (test/container), in the background: the
 * build, most of their CPU, goes on beside the static checks, the build and the Python stage, which
 * leave a core idle, and the SQLite tests; the container tests, which mostly wait on the
 * containers, beside the PostgreSQL tests. A stage marked `alone` waits for both first, so that the
 * abuse suites measure nothing but their attack. Their output is printed as one block when they end.
 */
const CONTAINER_STAGES = {
  image: { name: 'container image (npm run image)', command: ['node', 'scripts/image.mjs'], bin: false, background: true, before: requireContainerEngine },
  tests: {
    name: 'container tests (vitest)',
    command: ['vitest', 'run', 'test/container'],
    background: true,
    before: requireContainerEngine,
    after: 'container image (npm run image)',
  },
};

const stages = [
  { name: 'lint (biome check)', command: ['biome', 'check'] },
  // ARCHITECTURE.md's import rules (.dependency-cruiser*.cjs), and no unused export, file or dependency (knip.jsonc).
  { name: 'rules (dependency-cruiser)', command: ['npm', 'run', '--silent', 'lint:deps'], bin: false },
  { name: 'unused code (knip)', command: ['knip'] },
  { name: 'types (tsc --noEmit)', command: ['tsc', '-p', 'tsconfig.json', '--noEmit'] },
  // Once, here: the vitest stages after it then skip test/support/globalSetup.ts's own build.
  { name: 'build', command: ['npm', 'run', '--silent', 'build'], bin: false },
  // The Python SDK (sdk/python): unit tests, and integration tests against the server just built
  // (required here: without it they fail instead of skipping).
  {
    name: 'python SDK (unittest)',
    command: ['python3', '-m', 'unittest', 'discover', '-s', 'sdk/python/tests', '-t', 'sdk/python', '-v'],
    bin: false,
    env: { PYTHONPATH: path.join(root, 'sdk', 'python', 'src'), PROMPTLINE_SDK_TESTS_REQUIRE_SERVER: '1' },
    before: requirePython,
  },
  ...(filters.length > 0
    ? [
        { name: 'tests on SQLite (vitest)', command: ['vitest', 'run', ...filters] },
        { name: 'tests on PostgreSQL (vitest)', command: ['vitest', 'run', ...filters], env: postgres, before: requirePostgres },
      ]
    : [
        { name: 'tests on SQLite (vitest)', command: ['vitest', 'run', '--exclude', 'test/abuse/**', '--exclude', 'test/container/**'] },
        { name: 'abuse suite on SQLite, alone', command: ['vitest', 'run', ...ALONE, 'test/abuse'], alone: true },
        CONTAINER_STAGES.tests,
        { name: 'tests on PostgreSQL (vitest)', command: ['vitest', 'run', ...POSTGRES_FILES], env: postgres, before: requirePostgres },
        {
          name: 'abuse suite on PostgreSQL, alone',
          command: ['vitest', 'run', ...ALONE, ...POSTGRES_ABUSE_FILES],
          env: postgres,
          before: requirePostgres,
          alone: true,
        },
      ]),
];
// The image build starts first, so that it has the idle core of the single-threaded stages.
if (filters.length === 0) stages.unshift(CONTAINER_STAGES.image);

/** Says plainly, before vitest starts, that the server the PostgreSQL stage needs is not there. */
async function requirePostgres() {
  const host = postgresUrl.hostname || '127.0.0.1';
  const port = Number(postgresUrl.port || 5432);
  const reachable = await new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 5_000 });
    const answer = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => answer(true));
    socket.once('timeout', () => answer(false));
    socket.once('error', () => answer(false));
  });
  return reachable ? null : `nothing accepts connections on ${host}:${port}: start PostgreSQL there (or set PROMPTLINE_TEST_POSTGRES_URL)`;
}

/**
 * The container stages need docker (its engine running) or podman. Where neither is, they are
 * skipped and say so, except where PROMPTLINE_REQUIRE_CONTAINERS=1 (CI sets it) makes it a failure.
 */
function requireContainerEngine() {
  if (containerEngine() !== null) return null;
  const reason = 'no container engine: install podman (apt-get install --no-install-recommends podman runc mmdebstrap podman-compose), or run a Docker engine';
  return process.env.PROMPTLINE_REQUIRE_CONTAINERS === '1' ? reason : { skip: reason };
}

/** Says plainly that the Python SDK stage needs python3 3.9 or later, when it is missing or older. */
function requirePython() {
  const probe = spawnSync('python3', ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return 'python3 is not on the PATH: the Python SDK needs Python 3.9 or later';
  const [major, minor] = probe.stdout.trim().split('.').map(Number);
  return major > 3 || (major === 3 && minor >= 9) ? null : `python3 is ${probe.stdout.trim()}: the Python SDK needs Python 3.9 or later`;
}

/** The children running now (the stage in front, and those in the background). */
const running = new Set();
/** Set once the build stage passed: a failed build leaves each vitest stage to build (and fail) on its own. */
let buildPassed = false;
let interrupted = null;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    interrupted = signal;
    for (const child of running) child.kill(signal);
  });
}

/**
 * Runs a stage's command: its output on this terminal, or for a background stage kept and printed
 * in one block when it ends (so it does not interleave with the stage in front). Resolves with
 * null or why it failed.
 */
function run(stage) {
  return new Promise((resolve) => {
    const [name, ...args] = stage.command;
    // The project's own pinned tools, whether or not npm put node_modules/.bin on the PATH.
    const program = stage.bin === false ? name : path.join(root, 'node_modules', '.bin', name);
    const env = { ...process.env, ...(buildPassed ? { PROMPTLINE_TEST_PREBUILT: '1' } : {}), ...stage.env };
    const output = [];
    const child = spawn(program, args, { cwd: root, stdio: stage.background ? ['ignore', 'pipe', 'pipe'] : 'inherit', env });
    running.add(child);
    if (stage.background) {
      child.stdout.on('data', (chunk) => output.push(chunk));
      child.stderr.on('data', (chunk) => output.push(chunk));
    }
    let ended = false;
    const done = (failure) => {
      if (ended) return;
      ended = true;
      running.delete(child);
      if (stage.background) {
        console.log(`\n=== npm test: ${stage.name} (in the background): its output\n${Buffer.concat(output).toString().trimEnd()}`);
      }
      resolve(failure);
    };
    child.once('error', (error) => done(`could not start: ${error.message}`));
    child.once('close', (code, signal) => done(code === 0 ? null : signal ? `ended by ${signal}` : `exit ${code}`));
  });
}

/** Runs one stage to its end: its check first (a failure, a skip, or null to go on), then its command. */
async function runStage(stage, after) {
  const started = performance.now();
  const checked = (await stage.before?.()) ?? null;
  const earlier = after ? await after : null;
  let outcome;
  if (checked !== null && typeof checked === 'object') outcome = { skipped: checked.skip };
  else if (checked !== null) outcome = { failure: checked };
  else if (earlier && (earlier.skipped || earlier.failure !== null)) outcome = { failure: `not run: ${stage.after} did not pass` };
  else outcome = { failure: await run(stage) };
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const said = outcome.skipped ? `skipped (${outcome.skipped})` : outcome.failure === null ? 'passed' : `FAILED (${outcome.failure})`;
  console.log(`=== npm test: ${stage.name}: ${said} in ${seconds} s${stage.background ? ' (in the background)' : ''}`);
  return { stage, ...outcome, seconds };
}

const results = [];
/** Each background stage's result to come, by name; `waiting` those not yet awaited. */
const backgroundResults = new Map();
const waiting = new Set();
for (const stage of stages) {
  if (interrupted) break;
  if (stage.alone && waiting.size > 0) {
    console.log(`\n=== npm test: ${stage.name} waits for the background stages (${[...waiting].join(', ')})`);
    for (const name of waiting) results.push(await backgroundResults.get(name));
    waiting.clear();
    if (interrupted) break;
  }
  console.log(`\n=== npm test: ${stage.name}${stage.background ? ' (starts in the background)' : ''}: ${stage.command.join(' ')}`);
  if (stage.background) {
    backgroundResults.set(stage.name, runStage(stage, backgroundResults.get(stage.after)));
    waiting.add(stage.name);
    continue;
  }
  const result = await runStage(stage);
  results.push(result);
  if (stage.name === 'build' && result.failure === null) buildPassed = true;
}
for (const name of waiting) results.push(await backgroundResults.get(name));
results.sort((a, b) => stages.indexOf(a.stage) - stages.indexOf(b.stage));

const failed = results.filter((r) => !r.skipped && r.failure !== null);
console.log('\nnpm test summary:');
for (const { stage, failure, skipped, seconds } of results) {
  const verdict = skipped ? 'SKIP' : failure === null ? 'PASS' : 'FAIL';
  console.log(`  ${verdict}  ${stage.name.padEnd(34)} ${seconds.padStart(7)} s${skipped ? ` (${skipped})` : ''}`);
}
for (const stage of stages.filter((s) => !results.some((r) => r.stage === s))) console.log(`  SKIP  ${stage.name.padEnd(34)} (interrupted by ${interrupted})`);
if (failed.length === 0 && !interrupted) {
  console.log(`npm test: passed (${results.length} of ${stages.length} stages)`);
} else {
  console.log(`npm test: FAILED (${failed.map((r) => r.stage.name).join(', ') || `interrupted by ${interrupted}`})`);
  process.exitCode = 1;
}
