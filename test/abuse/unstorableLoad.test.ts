import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthDuring } from '../support/healthProbe.js';
import { testBackend } from '../support/postgres.js';
import { callServer, startServerOnTestBackend, type RunningServer } from '../support/processes.js';

// Two writers sending NUL characters (which PostgreSQL's text cannot hold) while a third sends
// valid outcomes: the NUL requests are refused at validation, cheaply and without a stack trace
// in the log, and the valid writer keeps most of its throughput. Runs on the backend the suite is
// given (PROMPTLINE_TEST_BACKEND=postgres for the case the issue measured).
const ADMIN = 'pl_a_unstorable-load-admin-key-0000000000';
const SECONDS = 4;
/**
 * Each NUL writer's pace: about what each managed against the unfixed server on PostgreSQL (500s
 * with a stack trace took that long), so before and after compare the same attack volume.
 */
const NUL_PER_SECOND = 75;

let server: RunningServer;

beforeAll(async () => {
  server = await startServerOnTestBackend(ADMIN);
  expect((await callServer(server.origin, '/prompts', ADMIN, { prompt_id: 'p', template: 'Hi {{name}}' })).status).toBe(201);
});
afterAll(async () => server?.stop());

/** The status of one POST (the body read, never parsed: a 500 is plain text). */
async function post(path: string, body: unknown): Promise<number> {
  const res = await fetch(`${server.origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': ADMIN },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Sends `body()` to `path` one request after another until `until`; counts answers by status. */
async function writer(path: string, body: () => unknown, until: number): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  while (performance.now() < until) {
    const status = await post(path, body());
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  return statuses;
}

const valid = () => ({ prompt_id: 'p', event_type: 'signup', external_user_id: `u${Math.random()}` });
// NUL where the issue found 500s: a user id, an event type, a metadata value, a run's inputs.
const nulBodies: Array<[string, () => unknown]> = [
  ['/track_outcome', () => ({ prompt_id: 'p', external_user_id: 'u\u0000x' })],
  ['/track_outcome', () => ({ prompt_id: 'p', event_type: 'e\u0000', metadata: { note: '\u0000' } })],
  ['/run_prompt', () => ({ prompt_id: 'p', inputs: { name: 'A' }, external_user_id: '\u0000' })],
];

const okPerSecond = (statuses: Map<number, number>) => (statuses.get(200) ?? 0) / SECONDS;
const errorLines = (log: string) => log.split('\n').filter((line) => /"level":(50|60)/.test(line) || line.includes('"stack"'));

describe(`NUL senders beside a valid writer (${testBackend()})`, () => {
  it('valid throughput holds, NUL requests are 422s, no stack traces, /healthz p99 < 100 ms', async () => {
    const alone = okPerSecond(await writer('/track_outcome', valid, performance.now() + SECONDS * 1000));
    const logBefore = server.output().length;
    const { result, health } = await healthDuring(server.origin, async () => {
      const until = performance.now() + SECONDS * 1000;
      let next = 0;
      const nul = () => nulBodies[next++ % nulBodies.length]!;
      const attackers = [0, 1].map(async () => {
        const statuses = new Map<number, number>();
        while (performance.now() < until) {
          const started = performance.now();
          const [path, body] = nul();
          const status = await post(path, body());
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          const wait = 1000 / NUL_PER_SECOND - (performance.now() - started);
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        }
        return statuses;
      });
      return { valid: await writer('/track_outcome', valid, until), attackers: await Promise.all(attackers) };
    });
    const beside = okPerSecond(result.valid);
    const nulAnswers = new Map<number, number>();
    for (const statuses of result.attackers) for (const [s, n] of statuses) nulAnswers.set(s, (nulAnswers.get(s) ?? 0) + n);
    const stackLines = errorLines(server.output().slice(logBefore));
    console.log(
      `[${testBackend()}] valid writes/s alone ${alone.toFixed(0)}, beside two NUL writers ${beside.toFixed(0)} ` +
        `(${(100 * (1 - beside / alone)).toFixed(0)}% cut); NUL answers ${JSON.stringify([...nulAnswers])}; ` +
        `error/stack log lines ${stackLines.length}; /healthz p50 ${health.p50.toFixed(1)} p99 ${health.p99.toFixed(1)} max ${health.max.toFixed(1)} ms`,
    );
    expect([...nulAnswers.keys()]).toEqual([422]);
    expect(stackLines).toEqual([]);
    expect(result.valid.get(200)).toBe([...result.valid.values()].reduce((a, b) => a + b, 0));
    // Three clients instead of one share the same two cores: some cut is expected; a 500 path with
    // a stack per request (before) cut more.
    expect(beside).toBeGreaterThan(alone * 0.4);
    expect(health.failures).toEqual([]);
    expect(health.p99).toBeLessThan(100);
  });
});
