#!/usr/bin/env node
// The proof that the test command does not depend on the machine's speed: a fresh clone of the
// current commit, `npm ci && npm test` three times in a row while one busy loop per core keeps
// every core busy (as when other work shares the machine), then once on the quiet machine. Prints
// a table of each run's stage times and result, and writes it (a Markdown table) to results.txt with each run's
// full log beside it. The busy loops are killed however this ends (they also end by themselves if
// this process is killed outright).
//
//   node scripts/busyTest.mjs [--busy 3] [--quiet 1] [--out DIR] [--install "npm ci"] [--command "npm test -- test/e2e"]
//
// Plain Node on purpose: nothing to build. Each run takes the time of `npm ci && npm test` (about
// half an hour on a quiet 2-core machine, more when busy): the whole proof takes hours.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const root = path.resolve(import.meta.dirname, '..');
const { values: options } = parseArgs({
  options: {
    busy: { type: 'string', default: '3' },
    quiet: { type: 'string', default: '1' },
    out: { type: 'string' },
    install: { type: 'string', default: 'npm ci' },
    command: { type: 'string', default: 'npm test' },
  },
});
const cores = os.availableParallelism();
const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
const outDir = options.out ? path.resolve(options.out) : fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-busy-results-'));
fs.mkdirSync(outDir, { recursive: true });
if (execFileSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' }).trim() !== '') {
  console.log(`note: the working tree has uncommitted changes; the runs test commit ${commit.slice(0, 12)} as committed`);
}

// A busy loop that checks, now and then, that this process is still its parent: killed with -9,
// this script cannot kill them, and they then end by themselves.
const BUSY_LOOP = `const parent = process.ppid; for (let i = 1; ; i++) if (i % 5e7 === 0 && process.ppid !== parent) process.exit(0);`;
let busyLoops = [];
let current = null;

function startBusyLoops() {
  busyLoops = Array.from({ length: cores }, () => spawn(process.execPath, ['-e', BUSY_LOOP], { stdio: 'ignore' }));
}
function stopBusyLoops() {
  for (const loop of busyLoops) if (loop.exitCode === null && loop.signalCode === null) loop.kill('SIGKILL');
  busyLoops = [];
}
function killCurrent(signal) {
  if (current?.pid !== undefined) {
    try {
      process.kill(-current.pid, signal);
    } catch {
      // Already gone.
    }
  }
}
process.on('exit', () => {
  stopBusyLoops();
  killCurrent('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    console.log(`\n${signal}: stopping the busy loops and the run`);
    stopBusyLoops();
    killCurrent('SIGTERM');
    process.exit(130);
  });
}

/** Runs `command` through bash in `cwd`, its output to `log` and to this terminal; resolves with its exit code. */
function run(command, cwd, log) {
  return new Promise((resolve) => {
    // A process group of its own, so an interruption stops npm and everything it started.
    current = spawn('bash', ['-c', command], { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    for (const stream of [current.stdout, current.stderr]) {
      stream.on('data', (chunk) => {
        fs.appendFileSync(log, chunk);
        process.stdout.write(chunk);
      });
    }
    current.once('error', (error) => resolve(`could not start: ${error.message}`));
    current.once('exit', (code, signal) => resolve(code ?? signal));
  }).finally(() => {
    current = null;
  });
}

/** The stages of `npm test`'s closing summary: `  PASS  <name>  <seconds> s`. */
function stagesOf(log) {
  const text = fs.readFileSync(log, 'utf8');
  const summary = text.slice(text.lastIndexOf('npm test summary:'));
  return [...summary.matchAll(/^ {2}(PASS|FAIL|SKIP) {2}(.+?)\s+(?:([\d.]+) s|\(.*\))$/gm)].map((m) => ({
    result: m[1],
    name: m[2].trim(),
    seconds: m[3] ?? '',
  }));
}

async function proofRun(label, busy) {
  const clone = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-busy-clone-'));
  const log = path.join(outDir, `${label}.log`);
  fs.writeFileSync(log, '');
  try {
    execFileSync('git', ['clone', '--quiet', '--no-checkout', root, clone]);
    execFileSync('git', ['checkout', '--quiet', '--detach', commit], { cwd: clone });
    console.log(`\n### ${label}: ${busy ? `${cores} busy loops (one per core)` : 'quiet'}, in ${clone}, log ${log}`);
    if (busy) startBusyLoops();
    const started = performance.now();
    const ci = await run(options.install, clone, log);
    const ciSeconds = (performance.now() - started) / 1000;
    const test = ci === 0 ? await run(options.command, clone, log) : 'not run';
    const totalSeconds = (performance.now() - started) / 1000;
    return { label, busy, ci, ciSeconds, test, totalSeconds, stages: stagesOf(log) };
  } finally {
    stopBusyLoops();
    fs.rmSync(clone, { recursive: true, force: true });
  }
}

const runs = [];
for (let i = 1; i <= Number(options.busy); i++) runs.push(await proofRun(`busy-${i}`, true));
for (let i = 1; i <= Number(options.quiet); i++) runs.push(await proofRun(`quiet-${i}`, false));

const stageNames = [...new Set(runs.flatMap((r) => r.stages.map((s) => s.name)))];
const cell = (r, name) => {
  const stage = r.stages.find((s) => s.name === name);
  return stage ? `${stage.result} ${stage.seconds}${stage.seconds ? ' s' : ''}` : '—';
};
const passed = (r) => r.ci === 0 && r.test === 0;
const header = ['run', 'load', options.install, ...stageNames, 'total', 'result'];
const rows = runs.map((r) => [
  r.label,
  r.busy ? `${cores} busy loops` : 'quiet',
  `${r.ci === 0 ? 'PASS' : `FAIL (${r.ci})`} ${r.ciSeconds.toFixed(0)} s`,
  ...stageNames.map((name) => cell(r, name)),
  `${(r.totalSeconds / 60).toFixed(1)} min`,
  passed(r) ? 'PASS' : `FAIL (${r.ci === 0 ? `${options.command}: exit ${r.test}` : options.install})`,
]);
const table = [header, header.map(() => '---'), ...rows].map((row) => `| ${row.join(' | ')} |`).join('\n');
const report = [
  `# ${options.install} && ${options.command}: ${Number(options.busy)} busy run(s), ${Number(options.quiet)} quiet`,
  '',
  `Commit ${commit}, ${cores} cores, Node ${process.version}, ${new Date().toISOString()}.`,
  '',
  table,
  '',
].join('\n');
const reportFile = path.join(outDir, 'results.txt');
fs.writeFileSync(reportFile, report);
console.log(`\n${report}\nwritten to ${reportFile} (each run's log beside it)`);
process.exitCode = runs.every(passed) ? 0 : 1;
