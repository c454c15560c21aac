import { Pool } from 'undici';

export interface LoadResult {
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
}

export interface LoadOptions {
  origin: string;
  path: string;
  connections: number;
  durationMs: number;
  headers?: Record<string, string>;
  /** The body of request number i (lets each request carry a different user). */
  body: (i: number) => string;
}

/**
 * A closed-loop load generator with microsecond latencies (autocannon's histogram has 1 ms
 * resolution, too coarse for "adds < 1 ms"). Each connection sends its next request as soon as
 * the previous answer arrived; non-2xx answers count as errors.
 */
export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const pool = new Pool(opts.origin, { connections: opts.connections, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  let sent = 0;
  const headers = { 'content-type': 'application/json', ...opts.headers };
  const end = performance.now() + opts.durationMs;
  const worker = async () => {
    while (performance.now() < end) {
      const body = opts.body(sent++);
      const start = performance.now();
      try {
        const res = await pool.request({ origin: opts.origin, path: opts.path, method: 'POST', headers, body });
        await res.body.arrayBuffer();
        if (res.statusCode >= 300) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - start);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: opts.connections }, worker));
  const elapsed = performance.now() - started;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
  return { requests: latencies.length, errors, rps: (latencies.length / elapsed) * 1000, p50: pct(0.5), p99: pct(0.99) };
}
