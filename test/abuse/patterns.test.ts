import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { behave, FakeOpenAI } from '../support/fakeOpenAI.js';
import { healthDuring } from '../support/healthProbe.js';
import { callServer, startServer, tempDataDir, type RunningServer } from '../support/processes.js';

// Patterns that made JavaScript's backtracking engine stall the event loop (exponential and
// polynomial families the star-height check let through), given in every place a pattern is
// taken, each met by the text that stalled it: the built server answers each right while a probe
// from another process sees /healthz answered at once (docs/management-api.md, "Patterns").
const ADMIN = 'pl_a_abuse-patterns-admin-key-00000000000';
const N = 20_000;
const FAMILIES: Array<{ pattern: string; evil: string }> = [
  { pattern: '^(\\d|\\w)+$', evil: `${'1'.repeat(N)}!` },
  { pattern: '^(a|a)*$', evil: `${'a'.repeat(N)}!` },
  { pattern: '^(a|aa)+$', evil: `${'a'.repeat(N)}!` },
  { pattern: '^(?:a|b|ab)*c$', evil: `${'ab'.repeat(N / 2)}!` },
  { pattern: '(a+)+$', evil: `${'a'.repeat(N)}!` },
  { pattern: '[a-z]+@[a-z]+\\.com', evil: 'a@'.repeat(N / 2) },
  { pattern: '\\s*,\\s*x', evil: `${' '.repeat(N)},` },
  { pattern: '(.*),(.*),(.*),(.*)x', evil: ','.repeat(N) },
  { pattern: 'a*a*a*a*a*a*b', evil: 'a'.repeat(N) },
];

let server: RunningServer;
let dir: string;
let fake: FakeOpenAI;
const call = (path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') => callServer(server.origin, path, ADMIN, body, method);

beforeAll(async () => {
  fake = new FakeOpenAI();
  const { baseURL } = await fake.start();
  dir = tempDataDir();
  server = await startServer({
    PROMPTLINE_DATA_DIR: dir,
    PROMPTLINE_BOOTSTRAP_ADMIN_KEY: ADMIN,
    PROMPTLINE_RATE_LIMIT_PER_MINUTE: '0',
    PROMPTLINE_PROVIDER_FAKE_BASE_URL: baseURL,
  });
  for (const [i, { pattern }] of FAMILIES.entries()) {
    const typed = await call('/prompts', { prompt_id: `typed${i}`, template: 'Code {{code}}', variables: { code: { pattern } } });
    const schema = { type: 'object', properties: { id: { type: 'string', pattern } }, required: ['id'] };
    const structured = await call('/prompts', {
      prompt_id: `structured${i}`,
      template: 'x',
      model: 'fake/m',
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema } },
    });
    const regex = await call('/evaluators', { evaluator_id: `regex${i}`, kind: 'regex', pattern });
    const json = await call('/evaluators', { evaluator_id: `json${i}`, kind: 'json_schema', schema: { type: 'string', pattern } });
    expect([typed.status, structured.status, regex.status, json.status]).toEqual([201, 201, 201, 201]);
  }
  // The echo model answers the rendered prompt: each item's output is a family's text as a JSON string.
  await call('/prompts', { prompt_id: 'echo', template: '"{{{text}}}"' });
  await call('/prompts/echo/versions', { template: '"{{{text}}}" ' });
  await call('/datasets', { dataset_id: 'evil' });
  const items = FAMILIES.map(({ evil }) => ({ inputs: { text: evil } }));
  expect((await call('/datasets/evil/items', { items })).status).toBe(201);
});
afterAll(async () => {
  await server?.stop('SIGKILL');
  await fake?.close();
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
});

/** Rounds of `round` for about `ms` (at least one): the probe (every 20 ms) then takes enough samples for its p99. */
async function repeatFor<T>(ms: number, round: () => Promise<T>): Promise<T[]> {
  const until = performance.now() + ms;
  const results: T[] = [];
  do results.push(await round());
  while (performance.now() < until);
  return results;
}

/** `attack` again and again with /healthz probed from another process: every answer checked, the probe's p99 under 100 ms. */
async function healthyDuring(name: string, attack: () => Promise<void>): Promise<void> {
  const { result: rounds, health } = await healthDuring(server.origin, () => repeatFor(2_000, attack));
  console.log(
    `${name}: ${rounds.length} rounds; /healthz p99 ${health.p99.toFixed(1)} ms, max ${health.max.toFixed(1)} ms (${health.latenciesMs.length} probes)`,
  );
  expect(health.failures).toEqual([]);
  expect(health.p99).toBeLessThan(100);
}

describe('the pattern families that stalled the server', () => {
  it('typed variables through /get_prompt and /run_prompt: each evil value is a 422 pattern mismatch', async () => {
    await healthyDuring('typed variables', async () => {
      for (const [i, { pattern, evil }] of FAMILIES.entries()) {
        for (const route of ['/get_prompt', '/run_prompt']) {
          const res = await call(route, { prompt_id: `typed${i}`, inputs: { code: evil } });
          expect([res.status, res.json.detail[0].type, res.json.detail[0].ctx]).toEqual([422, 'string_pattern_mismatch', { pattern }]);
        }
      }
    });
  });

  it("response_format: the loopback provider's evil answers are checked, each invalid", async () => {
    await healthyDuring('response_format', async () => {
      for (const [i, { pattern, evil }] of FAMILIES.entries()) {
        fake.script([behave.ok({ content: JSON.stringify({ id: evil }) })]);
        const res = await call('/run_prompt', { prompt_id: `structured${i}`, inputs: {} });
        expect([res.status, res.json.output_valid, res.json.output_error]).toEqual([200, false, `/id must match pattern "${pattern}"`]);
      }
    });
  });

  it('regex and json_schema evaluators score an evaluation of the evil outputs: each family fails its own text', async () => {
    const evaluators = FAMILIES.flatMap((_, i) => [`regex${i}`, `json${i}`]);
    await healthyDuring('evaluators during an evaluation', async () => {
      const queued = await call('/evaluations', { prompt_id: 'echo', versions: [2, 1], dataset_id: 'evil', evaluators, concurrency: 4 });
      expect(queued.status).toBe(202);
      const id = queued.json.evaluation_id as string;
      await expect.poll(async () => (await call(`/evaluations/${id}`)).json.status, { interval: 250 }).toBe('completed');
      const items = (await call(`/evaluations/${id}/items?limit=100`)).json.data as Array<Record<string, any>>;
      expect(items).toHaveLength(FAMILIES.length);
      // Each family's own evaluators fail its own text (another family's may match it: ab… holds a b).
      for (const item of items) {
        const i = FAMILIES.findIndex((f) => f.evil === item.inputs.text);
        for (const side of [item.candidate, item.baseline]) {
          for (const evaluator of [`regex${i}`, `json${i}`])
            expect([evaluator, side.scores[evaluator]]).toMatchObject([evaluator, { score: 0, passed: false }]);
        }
      }
    });
  });
});
