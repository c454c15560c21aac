import fs from 'node:fs';
import path from 'node:path';
import { fmt, measure, modelBody, type Row, runBody, startPromptline } from './gateway.js';
import { pidOf } from './procStats.js';
import { ADMIN_KEY } from './adminApi.js';
import { runLoad } from './load.js';
import { BENCH_DIR, SERVER_JS, startProcess } from './processes.js';

/**
 * `npm run bench -- gateway-ab`: did a change make /run_prompt cheaper? On a shared VM two
 * separate bench runs differ by more than most changes, so this part alternates two servers under
 * the gateway part's load in one run (A B, B A, A B …, each freshly started), with the same fake
 * model, and reports each round and the means.
 *
 * - `BENCH_AB_BASELINE`: the root of another checkout, built (`npx tsc -p tsconfig.build.json` there; its
 *   `node_modules` may be a link to this one's); `$PWD` compares this build with itself (the noise).
 *   Default: this build, and then `BENCH_AB_ENV` must say what differs.
 * - `BENCH_AB_ENV`: a JSON object of environment variables for this build's server only, e.g.
 *   `{"PROMPTLINE_DURABILITY":"normal"}` to price the fsync.
 * - `BENCH_AB_ROUNDS` (default 3), `BENCH_AB_CONNECTIONS` (default `16,64`), `BENCH_SECONDS`.
 */
const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 3);
const CONNECTIONS = (process.env.BENCH_AB_CONNECTIONS ?? '16,64').split(',').map(Number);

interface Side {
  name: 'baseline' | 'candidate';
  serverJs: string;
  env: Record<string, string>;
}

function sides(): [Side, Side] {
  const baselineRoot = process.env.BENCH_AB_BASELINE;
  const env = JSON.parse(process.env.BENCH_AB_ENV ?? '{}') as Record<string, string>;
  if (baselineRoot === undefined && Object.keys(env).length === 0) {
    throw new Error('gateway-ab compares two servers: set BENCH_AB_BASELINE (another built checkout) and/or BENCH_AB_ENV (see bench/gatewayAB.ts)');
  }
  const baselineJs = baselineRoot === undefined ? SERVER_JS : path.resolve(baselineRoot, 'dist/src/server.js');
  if (!fs.existsSync(baselineJs)) throw new Error(`${baselineJs} does not exist: build the baseline checkout first (npx tsc -p tsconfig.build.json there)`);
  return [
    { name: 'baseline', serverJs: baselineJs, env: {} },
    { name: 'candidate', serverJs: SERVER_JS, env },
  ];
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

export async function main(): Promise<void> {
  const [baseline, candidate] = sides();
  const fake = await startProcess(path.join(BENCH_DIR, 'servers.js'), ['fake'], {}, /LISTENING (\d+)/);
  // The fake's JIT warms before the first round, or that round's first server pays for it.
  await runLoad({ origin: fake.origin, path: '/v1/chat/completions', connections: 64, body: modelBody, headers: {}, durationMs: 3000 });
  const fakePid = pidOf(fake);
  // rows[side][i]: the i-th connection count's row of every round, in order.
  const rows: Record<Side['name'], Row[][]> = { baseline: CONNECTIONS.map(() => []), candidate: CONNECTIONS.map(() => []) };
  console.log(`\n## Gateway A/B: /run_prompt, ${ROUNDS} alternated rounds\n`);
  console.log(`baseline: ${baseline.serverJs}\ncandidate: ${candidate.serverJs} ${JSON.stringify(candidate.env)}\n`);
  console.log('| round | server | connections | req/s | p50 ms | p99 ms | CPU µs/req | main thread µs/req | errors |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const side of round % 2 === 1 ? [baseline, candidate] : [candidate, baseline]) {
        const pl = await startPromptline(fake, { serverJs: side.serverJs, env: side.env });
        try {
          const target = { name: side.name, origin: pl.origin, path: '/run_prompt', body: runBody, headers: { 'x-api-key': ADMIN_KEY }, pid: pidOf(pl) };
          for (const [i, connections] of CONNECTIONS.entries()) {
            const row = await measure(target, connections, fakePid);
            rows[side.name][i]!.push(row);
            console.log(
              `| ${round} | ${side.name} | ${connections} | ${Math.round(row.load.rps)} | ${fmt(row.load.p50)} | ${fmt(row.load.p99)} | ${Math.round(row.serverUs)} | ${Math.round(row.serverMainUs)} | ${row.load.errors} |`,
            );
          }
        } finally {
          await pl.stop();
          fs.rmSync(pl.dataDir, { recursive: true, force: true });
        }
      }
    }
  } finally {
    await fake.stop();
  }
  console.log(
    '\n| connections | req/s baseline → candidate (means; range of the rounds) | main thread µs/req baseline → candidate | rounds where the candidate served more |',
  );
  console.log('|---|---|---|---|');
  for (const [i, connections] of CONNECTIONS.entries()) {
    const a = rows.baseline[i]!.map((row) => row.load.rps);
    const b = rows.candidate[i]!.map((row) => row.load.rps);
    const wins = b.filter((rps, round) => rps > a[round]!).length;
    const summary = (rps: number[]) => `${Math.round(mean(rps))} (${Math.round(Math.min(...rps))}–${Math.round(Math.max(...rps))})`;
    const main = (side: Side['name']) => Math.round(mean(rows[side][i]!.map((row) => row.serverMainUs)));
    console.log(
      `| ${connections} | ${summary(a)} → ${summary(b)}: ${fmt(mean(b) / mean(a))}× | ${main('baseline')} → ${main('candidate')} | ${wins} of ${ROUNDS} |`,
    );
  }
  console.log('\nNoise alone moves these on a shared VM: BENCH_AB_BASELINE=$PWD compares this build with itself.');
}
