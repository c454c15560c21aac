#!/usr/bin/env node
// `npm test`: every stage runs, even after one failed, so a single run reports all of them (a
// failure on SQLite never hides the PostgreSQL results); each prints one summary line, and the
// exit code is non-zero if any stage failed. Arguments (`npm test -- test/integration/keys`) are
// vitest file filters given to both backends' stages instead of their usual file lists.
// Plain Node on purpose: it must run before anything is built, and has nothing to compile.
import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const filters = process.argv.slice(2);
const postgresUrl = new URL(process.env.PROMPTLINE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');

/** The suites that run again on PostgreSQL: everything that touches the store through the app. */
const POSTGRES_FILES = ['test/integration', 'test/contract'];
/** The abuse suites that run again on PostgreSQL (the others attack what both backends share). */
const POSTGRES_ABUSE_FILES = ['test/abuse/fuzz.test.ts', 'test/abuse/unstorableLoad.test.ts', 'test/abuse/listPages.test.ts'];
// The abuse suite measures /healthz latency during each attack (p99 under 100 ms): it runs on its
// own, one file at a time, so that what it measures is the attack, not the other test files.
const ALONE = ['--no-file-parallelism'];
const postgres = { PROMPTLINE_TEST_BACKEND: 'postgres' };

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
        { name: 'tests on SQLite (vitest)', command: ['vitest', 'run', '--exclude', 'test/abuse/**'] },
        { name: 'abuse suite on SQLite, alone', command: ['vitest', 'run', ...ALONE, 'test/abuse'] },
        { name: 'tests on PostgreSQL (vitest)', command: ['vitest', 'run', ...POSTGRES_FILES], env: postgres, before: requirePostgres },
        { name: 'abuse suite on PostgreSQL, alone', command: ['vitest', 'run', ...ALONE, ...POSTGRES_ABUSE_FILES], env: postgres, before: requirePostgres },
      ]),
];

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

/** Says plainly that the Python SDK stage needs python3 3.9 or later, when it is missing or older. */
function requirePython() {
  const probe = spawnSync('python3', ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return 'python3 is not on the PATH: the Python SDK needs Python 3.9 or later';
  const [major, minor] = probe.stdout.trim().split('.').map(Number);
  return major > 3 || (major === 3 && minor >= 9) ? null : `python3 is ${probe.stdout.trim()}: the Python SDK needs Python 3.9 or later`;
}

let current = null;
/** Set once the build stage passed: a failed build leaves each vitest stage to build (and fail) on its own. */
let buildPassed = false;
let interrupted = null;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    interrupted = signal;
    current?.kill(signal);
  });
}

function run(stage) {
  return new Promise((resolve) => {
    const [name, ...args] = stage.command;
    // The project's own pinned tools, whether or not npm put node_modules/.bin on the PATH.
    const program = stage.bin === false ? name : path.join(root, 'node_modules', '.bin', name);
    const env = { ...process.env, ...(buildPassed ? { PROMPTLINE_TEST_PREBUILT: '1' } : {}), ...stage.env };
    const child = spawn(program, args, { cwd: root, stdio: 'inherit', env });
    current = child;
    child.once('error', (error) => resolve(`could not start: ${error.message}`));
    child.once('exit', (code, signal) => resolve(code === 0 ? null : signal ? `ended by ${signal}` : `exit ${code}`));
  }).finally(() => {
    current = null;
  });
}

const results = [];
for (const stage of stages) {
  if (interrupted) break;
  console.log(`\n=== npm test: ${stage.name}: ${stage.command.join(' ')}`);
  const started = performance.now();
  const failure = (await stage.before?.()) ?? (await run(stage));
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  results.push({ stage, failure, seconds });
  if (stage.name === 'build' && failure === null) buildPassed = true;
  console.log(`=== npm test: ${stage.name}: ${failure === null ? 'passed' : `FAILED (${failure})`} in ${seconds} s`);
}

const failed = results.filter((r) => r.failure !== null);
console.log('\nnpm test summary:');
for (const { stage, failure, seconds } of results) console.log(`  ${failure === null ? 'PASS' : 'FAIL'}  ${stage.name.padEnd(30)} ${seconds.padStart(7)} s`);
for (const stage of stages.slice(results.length)) console.log(`  SKIP  ${stage.name.padEnd(30)} (interrupted by ${interrupted})`);
if (failed.length === 0 && !interrupted) {
  console.log(`npm test: passed (${results.length} of ${stages.length} stages)`);
} else {
  console.log(`npm test: FAILED (${failed.map((r) => r.stage.name).join(', ') || `interrupted by ${interrupted}`})`);
  process.exitCode = 1;
}
