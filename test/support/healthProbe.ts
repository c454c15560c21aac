import { spawn } from 'node:child_process';

/** What a health probe saw while an attack ran: each answer's latency, and the probes that failed. */
export interface HealthReport {
  /** Latency of every answered probe, in ms, in the order they were sent. */
  latenciesMs: number[];
  /** Probes that got no 200 (status, or the error's code) before their own 5 s timeout. */
  failures: string[];
  p50: number;
  p99: number;
  max: number;
}

// The probe runs in a process of its own: the test process is busy sending the attack, and a
// probe on its event loop would measure the test's own delays, not the server's.
const PROBE_SCRIPT = `
const [origin, path, everyMs] = process.argv.slice(1);
const latencies = [];
const failures = [];
let stopping = false;
process.stdin.on('data', () => { stopping = true; });
(async () => {
  while (!stopping) {
    const started = performance.now();
    try {
      const res = await fetch(origin + path, { signal: AbortSignal.timeout(5000) });
      await res.arrayBuffer();
      if (res.status === 200) latencies.push(performance.now() - started);
      else failures.push(String(res.status));
    } catch (error) {
      failures.push(String(error?.cause?.code ?? error?.name ?? error));
    }
    if (latencies.length + failures.length === 1) process.stdout.write('ready\\n');
    const waited = Number(everyMs) - (performance.now() - started);
    if (waited > 0) await new Promise((r) => setTimeout(r, waited));
  }
  process.stdout.write(JSON.stringify({ latencies, failures }) + '\\n');
})();
`;

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/**
 * Probes `origin`'s `/healthz` (or `path`) every `everyMs` from a separate process while `attack`
 * runs, and reports what the probe saw. The abuse suite asserts on it: an attack that stalls the
 * event loop or takes every connection shows up here as a slow or failed health check, which is
 * what a load balancer would see.
 */
export async function healthDuring<T>(
  origin: string,
  attack: () => Promise<T>,
  { path = '/healthz', everyMs = 20 }: { path?: string; everyMs?: number } = {},
): Promise<{ result: T; health: HealthReport }> {
  const child = spawn(process.execPath, ['-e', PROBE_SCRIPT, origin, path, String(everyMs)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // The attack starts once the probe has had its first answer: its connection is then open
  // before the attack's (a probe that starts late on a loaded machine would otherwise meet the
  // attack's full connection table, which is not what it is there to measure).
  for (const until = performance.now() + 10_000; !out.includes('ready\n') && performance.now() < until; ) await new Promise((r) => setTimeout(r, 10));
  let result: T;
  try {
    result = await attack();
  } finally {
    child.stdin.end('stop\n');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
  }
  const report = out.split('\n').find((line) => line.startsWith('{')) ?? '{"latencies":[],"failures":["probe died"]}';
  const { latencies, failures } = JSON.parse(report) as { latencies: number[]; failures: string[] };
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    result,
    health: { latenciesMs: latencies, failures, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted.at(-1) ?? Number.NaN },
  };
}
