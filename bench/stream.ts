import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { Pool } from 'undici';
import { ADMIN_KEY } from './adminApi.js';
import { fmt, measure, modelBody, runBody, startPromptline } from './gateway.js';
import { CLK_TCK, cpuTicks, pidOf } from './procStats.js';
import { BENCH_DIR, type ProbedChild, startProcess } from './processes.js';

/**
 * `node dist/bench/run.js stream`: time to first token and CPU per streamed chunk of /run_prompt
 * with `Accept: text/event-stream`, against a fake model streaming 50 chunks (bench/servers.ts),
 * compared with a minimal node:http streaming proxy in front of the same fake, measured in the
 * same run, in alternating rounds (so drift on a shared machine hits both alike). One connection,
 * one request at a time. Then the non-streamed /run_prompt at one connection, as the gateway part
 * measures it, to show that streaming left it unchanged. `BENCH_FAKE_CHUNKS=1` makes the fake send
 * its answer in one chunk: TTFT then has no later chunks competing with the first for the CPU.
 */
const CHUNKS = Number(process.env.BENCH_FAKE_CHUNKS ?? 50); // servers.ts's STREAM_CHUNKS
const ROUNDS = Number(process.env.BENCH_STREAM_ROUNDS ?? 6);
const PER_ROUND = Number(process.env.BENCH_STREAM_REQUESTS ?? 150);
const WARM_UP = 200;
const TTFT_TARGET_MS = 1;

interface StreamTarget {
  name: string;
  origin: string;
  path: string;
  body: () => string;
  headers: Record<string, string>;
  pid: number;
  /** The last bytes of a complete answer (Promptline's `run` event, the fake's [DONE]). */
  ends: string;
}

interface Sample {
  ttft: number[];
  total: number[];
  errors: number;
  /** CPU of the target's process (utime + stime), clock ticks, over the measured requests. */
  ticks: number;
  requests: number;
}

async function once(pool: Pool, target: StreamTarget): Promise<{ ttft: number; total: number; ok: boolean }> {
  const start = performance.now();
  const res = await pool.request({
    origin: target.origin,
    path: target.path,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...target.headers },
    body: target.body(),
  });
  let ttft = Number.NaN;
  let tail = '';
  for await (const chunk of res.body) {
    if (Number.isNaN(ttft)) ttft = performance.now() - start;
    tail = (tail + (chunk as Buffer).toString('utf8')).slice(-2000);
  }
  return { ttft, total: performance.now() - start, ok: res.statusCode === 200 && tail.includes(target.ends) };
}

async function run(pool: Pool, target: StreamTarget, n: number, into: Sample): Promise<void> {
  const t0 = cpuTicks(target.pid);
  for (let i = 0; i < n; i++) {
    const r = await once(pool, target);
    if (!r.ok) into.errors++;
    into.ttft.push(r.ttft);
    into.total.push(r.total);
  }
  const t1 = cpuTicks(target.pid);
  into.ticks += t1.user + t1.system - t0.user - t0.system;
  into.requests += n;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? Number.NaN;
}

const passMiss = (ok: boolean) => (ok ? '**pass**' : '**miss**');
const usPerChunk = (s: Sample) => (s.ticks * 1e6) / CLK_TCK / (s.requests * CHUNKS);

export async function main(): Promise<void> {
  const fake = await startProcess(path.join(BENCH_DIR, 'servers.js'), ['fake'], {}, /LISTENING (\d+)/);
  const proxy = await startProcess(path.join(BENCH_DIR, 'servers.js'), ['stream-proxy', fake.origin], {}, /LISTENING (\d+)/);
  let pl: (ProbedChild & { dataDir: string }) | undefined;
  const load0 = os.loadavg();
  try {
    pl = await startPromptline(fake);
    const targets: StreamTarget[] = [
      {
        name: 'node:http streaming proxy → fake',
        origin: proxy.origin,
        path: '/v1/chat/completions',
        body: modelBody,
        headers: {},
        pid: pidOf(proxy),
        ends: '[DONE]',
      },
      {
        name: '/run_prompt (Accept: text/event-stream) → fake',
        origin: pl.origin,
        path: '/run_prompt',
        body: runBody,
        headers: { 'x-api-key': ADMIN_KEY },
        pid: pidOf(pl),
        ends: 'event: run',
      },
    ];
    const pools = targets.map((t) => new Pool(t.origin, { connections: 1, pipelining: 1 }));
    const samples: Sample[] = targets.map(() => ({ ttft: [], total: [], errors: 0, ticks: 0, requests: 0 }));
    for (const [i, t] of targets.entries()) await run(pools[i]!, t, WARM_UP, { ttft: [], total: [], errors: 0, ticks: 0, requests: 0 });
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, t] of targets.entries()) await run(pools[i]!, t, PER_ROUND, samples[i]!);
    }
    await Promise.all(pools.map((p) => p.close()));

    // The non-streamed path at one connection, as bench/gateway.ts measures it (direct, then /run_prompt).
    const fakePid = pidOf(fake);
    const direct = await measure({ name: 'direct', origin: fake.origin, path: '/v1/chat/completions', body: modelBody, pid: fakePid }, 1, fakePid);
    const plain = await measure(
      { name: '/run_prompt', origin: pl.origin, path: '/run_prompt', body: runBody, headers: { 'x-api-key': ADMIN_KEY }, pid: pidOf(pl) },
      1,
      fakePid,
    );

    console.log(`\n## Streaming: time to first token of /run_prompt against a minimal streaming proxy (${os.cpus().length} cores)\n`);
    console.log(
      [
        `The fake model streams ${CHUNKS} chunks per answer (the first token in its first write, then one chunk per turn of its event loop, then the usage chunk and [DONE]).`,
        `One connection, one request at a time; ${WARM_UP} warm-up requests per target, then ${ROUNDS} rounds of ${PER_ROUND} requests, the targets alternating round by round.`,
        "TTFT: from sending the request to the first bytes of the answer's body (the proxy's first bytes are the fake's role chunk and first token; Promptline's are the first `delta` event). Total: to the end of the answer.",
        `CPU per chunk: utime + stime of the target's process (/proc/<pid>/stat, CLK_TCK = ${CLK_TCK}) over the measured requests ÷ (requests × ${CHUNKS}).`,
        `Load average at start: ${load0.map((n) => n.toFixed(2)).join(', ')}; at end: ${os
          .loadavg()
          .map((n) => n.toFixed(2))
          .join(', ')}.`,
      ].join('\n'),
    );
    console.log('\n| target | requests | TTFT p50 ms | TTFT p99 ms | total p50 ms | total p99 ms | server CPU µs/chunk | errors |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const [i, t] of targets.entries()) {
      const s = samples[i]!;
      console.log(
        `| ${t.name} | ${s.requests} | ${fmt(percentile(s.ttft, 0.5), 3)} | ${fmt(percentile(s.ttft, 0.99), 3)} | ${fmt(percentile(s.total, 0.5), 3)} | ${fmt(
          percentile(s.total, 0.99),
          3,
        )} | ${fmt(usPerChunk(s), 1)} | ${s.errors} |`,
      );
    }
    const [p, r] = samples as [Sample, Sample];
    const addedP50 = percentile(r.ttft, 0.5) - percentile(p.ttft, 0.5);
    const addedP99 = percentile(r.ttft, 0.99) - percentile(p.ttft, 0.99);
    console.log('\nTargets:\n');
    console.log(
      `- added TTFT at 1 connection ≤ ${TTFT_TARGET_MS} ms over the streaming proxy (median): ${fmt(addedP50, 3)} ms (p99: ${fmt(addedP99, 3)} ms) → ${passMiss(addedP50 <= TTFT_TARGET_MS)}`,
    );
    console.log(
      `- CPU per streamed chunk: Promptline ${fmt(usPerChunk(r), 1)} µs, the proxy ${fmt(usPerChunk(p), 1)} µs (${fmt(usPerChunk(r) / usPerChunk(p))}×)`,
    );
    console.log(
      `- non-streamed /run_prompt at 1 connection, same run: p50 ${fmt(plain.load.p50, 3)} ms (the fake direct: ${fmt(direct.load.p50, 3)} ms), added p50 ${fmt(plain.load.p50 - direct.load.p50, 3)} ms (gateway part's target: < 1 ms), p99 ${fmt(
        plain.load.p99 - direct.load.p99,
        3,
      )} ms, server CPU ${fmt(plain.serverUs, 1)} µs/request, ${plain.load.errors} errors`,
    );
  } finally {
    await Promise.all([fake.stop(), proxy.stop(), pl?.stop()]);
    if (pl) fs.rmSync(pl.dataDir, { recursive: true, force: true });
  }
}
