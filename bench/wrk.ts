import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_KEY } from './adminApi.js';

/**
 * wrk (Debian's package) as the load generator: written in C, it needs a fraction of the CPU a
 * Node load generator does, so pinned to one core it leaves the other to the server under test.
 * Bodies vary per request (a counter in wrk's Lua), so a running experiment sees many users.
 */
export interface WrkResult {
  requests: number;
  /** Socket errors, timeouts and non-2xx answers. */
  errors: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface WrkLoad {
  origin: string;
  path: string;
  connections: number;
  seconds: number;
  /** The JSON body, with `{i}` replaced by the request's counter modulo `users` (if present). */
  body: string;
  users?: number;
  /** Each connection waits this long before each request: a steady rate of connections × 1000 / delayMs. */
  delayMs?: number;
  /** The CPU list wrk is pinned to (taskset -c); the server gets the others. */
  cpus: string;
}

/** Refuses to guess without wrk: the figures would not be comparable with another load generator. */
export function requireWrk(): void {
  const probe = spawnSync('wrk', ['-v'], { encoding: 'utf8' });
  if (probe.error) {
    throw new Error('wrk is not installed: `apt-get install -y wrk` (Debian) and run the bench again; it measures only with wrk');
  }
}

/** A Lua string literal (JSON.stringify's escapes are Lua's for ASCII text). */
function luaString(text: string): string {
  if (!/^[\x20-\x7e]*$/.test(text)) throw new Error('wrk bodies must be printable ASCII');
  return JSON.stringify(text);
}

export function wrkScript(load: Pick<WrkLoad, 'path' | 'body' | 'users' | 'delayMs'>): string {
  const [prefix, suffix] = load.body.includes('{i}') ? load.body.split('{i}', 2) : [load.body, undefined];
  const body = suffix === undefined ? luaString(prefix!) : `${luaString(prefix!)} .. (i % ${load.users ?? 1}) .. ${luaString(suffix)}`;
  return `
local i = 0
local headers = { ["Content-Type"] = "application/json", ["X-API-Key"] = ${luaString(ADMIN_KEY)} }
request = function()
  i = i + 1
  return wrk.format("POST", ${luaString(load.path)}, headers, ${body})
end
${load.delayMs === undefined ? '' : `delay = function() return ${load.delayMs} end`}
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("WRKJSON {\\"requests\\":%d,\\"duration_us\\":%d,\\"errors\\":%d,\\"p50_us\\":%d,\\"p99_us\\":%d,\\"max_us\\":%d}\\n",
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
`;
}

export async function runWrk(load: WrkLoad): Promise<WrkResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-wrk-'));
  const script = path.join(dir, 'load.lua');
  fs.writeFileSync(script, wrkScript(load));
  try {
    const args = ['-c', load.cpus, 'wrk', '-t1', `-c${load.connections}`, `-d${load.seconds}s`, '--timeout', '10s', '-s', script, `${load.origin}${load.path}`];
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile('taskset', args, { encoding: 'utf8', maxBuffer: 1 << 20 }, (error, out, err) =>
        error ? reject(new Error(`wrk failed: ${err || error.message}`)) : resolve(out),
      ),
    );
    const line = stdout.split('\n').find((l) => l.startsWith('WRKJSON '));
    if (line === undefined) throw new Error(`wrk printed no summary:\n${stdout}`);
    const r = JSON.parse(line.slice('WRKJSON '.length)) as {
      requests: number;
      duration_us: number;
      errors: number;
      p50_us: number;
      p99_us: number;
      max_us: number;
    };
    return {
      requests: r.requests,
      errors: r.errors,
      rps: r.requests / (r.duration_us / 1e6),
      p50Ms: r.p50_us / 1000,
      p99Ms: r.p99_us / 1000,
      maxMs: r.max_us / 1000,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
