import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type HealthReport, healthDuring } from '../support/healthProbe.js';
import { cliAsync, processFixtures } from '../support/processes.js';

/**
 * A key guesser behind the same proxy address as a legitimate application: past the address's
 * budget of failed keys (30 a minute, the default) the guesser gets 429, and the application's
 * valid key still gets 200 — also after every cached key is dropped (on SQLite, any commit by
 * another process, here the CLI shipping an experiment's winner to production, drops them all).
 * The built server, in a process of its own, with the attack measured by a /healthz probe.
 */
const ADMIN = 'pl_a_abuse-key-throttle-admin-key-0000000000';
const { serve, dataDir } = processFixtures(ADMIN);

const SHARED = '203.0.113.50'; // the proxy address the guesser and the application share
const ELSEWHERE = '198.51.100.1'; // the admin, and a client that never guessed

describe('the failed-key throttle never refuses a valid key', () => {
  it('an application behind a guesser keeps 200 before and after a label move, and a revoked key is refused at once', async () => {
    const dir = dataDir();
    const server = await serve(dir, { PROMPTLINE_TRUST_PROXY: 'loopback' });
    const call = async (path: string, key: string, from: string, body?: unknown, method = 'POST') => {
      const res = await fetch(`${server.origin}${path}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-api-key': key, 'x-forwarded-for': from },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, json: text ? JSON.parse(text) : undefined };
    };
    const admin = (path: string, body?: unknown, method = 'POST') => call(path, ADMIN, ELSEWHERE, body, method);

    // The application serves `hello`; the experiment (and so the label the CLI moves) is on `greet`,
    // so the application's calls write nothing that would wait on the CLI's write lock.
    expect((await admin('/prompts', { prompt_id: 'hello', template: 'Hello {{name}}' })).status).toBe(201);
    expect((await admin('/prompts', { prompt_id: 'greet', template: 'Hello {{name}}', labels: ['production'] })).status).toBe(201);
    expect((await admin('/prompts/greet/versions', { template: 'Hi {{name}}!' })).status).toBe(201);
    const experiment = {
      experiment_id: 'tone',
      prompt_id: 'greet',
      variants: [
        { key: 'v1', version: 1 },
        { key: 'v2', version: 2 },
      ],
    };
    expect((await admin('/experiments', experiment)).status).toBe(201);
    expect((await admin('/experiments/tone/start')).status).toBe(200);
    const created = await admin('/keys', { name: 'app', role: 'runtime' });
    const appKey = created.json.key as string;

    const appCall = (from = SHARED, prompt = 'hello') => call('/get_prompt', appKey, from, { prompt_id: prompt, inputs: { name: 'Ada' } });
    // The application has been running: its key is in the server's cache when the guessing starts.
    expect((await appCall()).status).toBe(200);
    const guesses = new Map<number, number>();
    /**
     * Two guessers send random keys from the shared address for 5 s (at most 2 000 each) while the
     * application makes `calls` calls from it; what /healthz saw meanwhile is measured.
     */
    const underAttack = (calls: number) =>
      healthDuring(server.origin, async () => {
        let done = false;
        const until = performance.now() + 5_000;
        const guesser = async () => {
          for (let sent = 0; (!done || performance.now() < until) && sent < 2_000; sent++) {
            const res = await call('/get_prompt', `pl_r_${randomBytes(32).toString('base64url')}`, SHARED, { prompt_id: 'greet' });
            guesses.set(res.status, (guesses.get(res.status) ?? 0) + 1);
          }
        };
        const guessing = Promise.all([guesser(), guesser()]);
        // The application starts once the address is throttled.
        while ((guesses.get(429) ?? 0) === 0) await new Promise((resolve) => setTimeout(resolve, 5));
        const statuses: number[] = [];
        for (let i = 0; i < calls; i++) statuses.push((await appCall()).status);
        done = true;
        await guessing;
        return statuses;
      });
    const count = (statuses: number[]) => JSON.stringify(Object.fromEntries([...new Set(statuses)].map((s) => [s, statuses.filter((x) => x === s).length])));
    const figures = (health: HealthReport) =>
      `/healthz p50 ${health.p50.toFixed(1)} ms, p99 ${health.p99.toFixed(1)} ms, max ${health.max.toFixed(1)} ms, ${health.failures.length} failed of ${health.latenciesMs.length + health.failures.length}`;

    const before = await underAttack(20);
    // An admin ships v2 to production from the CLI: another process's commit, so the server drops
    // every key it cached (SQLite's data_version says that something changed, not what).
    const shipped = await cliAsync(['experiments', 'stop', 'tone', '--winner', 'v2', '--ship', '--override', '--reason', 'no traffic in this test'], {
      PROMPTLINE_DATA_DIR: dir,
      LOG_LEVEL: 'silent',
    });
    expect([shipped.status, shipped.stderr]).toEqual([0, '']);
    const after = await underAttack(150);

    console.log(
      `guesser ${JSON.stringify(Object.fromEntries(guesses))}; application before the move ${count(before.result)} (${figures(before.health)}), ` +
        `after it ${count(after.result)} (${figures(after.health)})`,
    );
    // The throttle still works against the guesser: its budget of 401s (plus what refilled), the rest 429.
    expect(guesses.get(401) ?? 0).toBeLessThanOrEqual(40);
    expect(guesses.get(429) ?? 0).toBeGreaterThan(100);
    expect(before.result).toEqual(Array(20).fill(200));
    expect(after.result).toEqual(Array(150).fill(200));
    const served = await appCall(SHARED, 'greet');
    expect([served.status, served.json.prompt_version]).toEqual([200, 2]);
    for (const { health } of [before, after]) {
      expect(health.failures).toEqual([]);
      expect(health.p99).toBeLessThan(100);
    }

    // Revocation bites on the next request: 401 from an address that never guessed, and no 200
    // from the guesser's (an invalid key there spends the exhausted budget: 429).
    expect((await admin(`/keys/${created.json.key_id}`, undefined, 'DELETE')).status).toBe(204);
    expect((await appCall(ELSEWHERE)).status).toBe(401);
    expect((await appCall()).status).toBe(429);
  });
});
