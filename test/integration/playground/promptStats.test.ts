import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';

/** GET /prompts/{id}/stats: per version, over a window, from runs written with known numbers. */
let t: TestApp;
let read: string;
let projectId: string;
let seq = 0;

interface RunSpec {
  prompt?: string;
  version?: number;
  latency?: number;
  status?: 'ok' | 'error';
  source?: 'api' | 'playground';
  at?: string;
  tokens?: [number, number];
  costNano?: number;
}

async function insertRun(spec: RunSpec): Promise<void> {
  const [promptTokens, completionTokens] = spec.tokens ?? [10, 5];
  await t.store.writer.write((tx) =>
    tx.run(
      `INSERT INTO runs (id, project_id, prompt_id, prompt_version, inputs, rendered, model_requested, prompt_tokens, completion_tokens,
        total_tokens, cost_nano_usd, latency_ms, status, attempts, created_at, source)
      VALUES (?, ?, ?, ?, '{}', '[]', 'echo/echo', ?, ?, ?, ?, ?, ?, '[]', ?, ?)`,
      [
        `run_${seq++}`,
        projectId,
        spec.prompt ?? 'p',
        spec.version ?? 1,
        promptTokens,
        completionTokens,
        promptTokens + completionTokens,
        spec.costNano ?? 1500,
        spec.latency ?? 100,
        spec.status ?? 'ok',
        spec.at ?? '2030-01-10T12:00:00.000Z',
        spec.source ?? 'api',
      ],
    ),
  );
}

const stats = (prompt: string, query = '', key: string | null = read) => t.request('GET', `/prompts/${prompt}/stats${query}`, { key });
const WINDOW = '?since=2030-01-10T00:00:00Z&until=2030-01-11T00:00:00Z';

beforeAll(async () => {
  t = await startTestApp();
  read = await t.keyFor('read');
  projectId = (await t.keys.authenticate(read))!.projectId;
  await givenPrompt(t, { prompt_id: 'p', template: 'A {{name}}', versions: ['B {{name}}'] });
});
afterAll(async () => t.cleanup());

describe('latency percentiles are exact nearest-rank (position ceil(p/100 × n) in ascending order)', () => {
  const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
  const vectors: Array<[string, number[], number, number]> = [
    ['one run', [42], 42, 42],
    ['two runs', [9, 3], 3, 9],
    ['three, unsorted', [3, 1, 2], 2, 3],
    ['ties', [7, 7, 7, 1], 7, 7],
    ['1..10', range(10), 5, 10],
    ['1..20', range(20), 10, 19],
    ['1..21', range(21), 11, 20],
    ['1..100', range(100), 50, 95],
    ['1..101, reversed', range(101).reverse(), 51, 96],
  ];
  it.each(vectors)('%s', async (name, latencies, p50, p95) => {
    const prompt = `pct-${name.replace(/[^a-z0-9]+/gi, '-')}`;
    await givenPrompt(t, { prompt_id: prompt, template: 'x' });
    for (const latency of latencies) await insertRun({ prompt, latency });
    // A failed run's latency (time until it failed) is not a latency of an answer: left out of the percentiles.
    await insertRun({ prompt, latency: 1_000_000, status: 'error' });
    const [version] = (await stats(prompt, WINDOW)).json.versions;
    expect([version.runs, version.errors, version.latency_ms_p50, version.latency_ms_p95]).toEqual([latencies.length + 1, 1, p50, p95]);
  });
});

describe('GET /prompts/{id}/stats', () => {
  beforeAll(async () => {
    // Version 1: three served runs in the window (one failed), one the day before, one at `until` (excluded).
    await insertRun({ version: 1, latency: 100, tokens: [10, 5], costNano: 1000, at: '2030-01-10T00:00:00.000Z' });
    await insertRun({ version: 1, latency: 300, tokens: [20, 10], costNano: 2000 });
    await insertRun({ version: 1, latency: 50, status: 'error', tokens: [0, 0], costNano: 0 });
    await insertRun({ version: 1, latency: 1, at: '2030-01-09T23:59:59.999Z' });
    await insertRun({ version: 1, latency: 1, at: '2030-01-11T00:00:00.000Z' });
    // Version 2: one served run; its playground runs are not counted.
    await insertRun({ version: 2, latency: 70, tokens: [1, 2], costNano: 31_400 });
    await insertRun({ version: 2, latency: 9999, source: 'playground', costNano: 5 });
    await insertRun({ version: 2, latency: 9999, source: 'playground', status: 'error' });
  });

  it('sums each version over [since, until), newest version first, without playground runs', async () => {
    const res = await stats('p', WINDOW);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      prompt_id: 'p',
      since: '2030-01-10T00:00:00.000Z',
      until: '2030-01-11T00:00:00.000Z',
      versions: [
        {
          version: 2,
          runs: 1,
          errors: 0,
          error_rate: 0,
          latency_ms_p50: 70,
          latency_ms_p95: 70,
          prompt_tokens: 1,
          completion_tokens: 2,
          total_tokens: 3,
          cost_usd: 0.0000314,
        },
        {
          version: 1,
          runs: 3,
          errors: 1,
          error_rate: 1 / 3,
          latency_ms_p50: 100,
          latency_ms_p95: 300,
          prompt_tokens: 30,
          completion_tokens: 15,
          total_tokens: 45,
          cost_usd: 0.000003,
        },
      ],
    });
    expect(res.text).toContain('"error_rate":0.0,');
  });

  it('answers a version whose runs all failed with no percentiles', async () => {
    await givenPrompt(t, { prompt_id: 'broken', template: 'x' });
    await insertRun({ prompt: 'broken', status: 'error' });
    const [version] = (await stats('broken', WINDOW)).json.versions;
    expect(version).toMatchObject({ runs: 1, errors: 1, error_rate: 1, latency_ms_p50: null, latency_ms_p95: null });
  });

  it('defaults to the 7 days before now, and answers a window with no runs as no versions', async () => {
    const res = await stats('p');
    expect(Date.parse(res.json.until) - Date.parse(res.json.since)).toBe(7 * 86_400_000);
    expect(Math.abs(Date.parse(res.json.until) - Date.now())).toBeLessThan(60_000);
    expect(res.json.versions).toEqual([]);
    const since = (await stats('p', '?until=2030-01-11T00:00:00Z')).json;
    expect(since.since).toBe('2030-01-04T00:00:00.000Z');
    expect(since.versions.map((v: { version: number; runs: number }) => [v.version, v.runs])).toEqual([
      [2, 1],
      [1, 4],
    ]);
  });

  it('refuses an empty, reversed or over-wide window, and bad dates', async () => {
    const detail = async (query: string) => (await stats('p', query)).json.detail[0];
    expect(await detail('?since=2030-01-10T00:00:00Z&until=2030-01-10T00:00:00Z')).toMatchObject({
      loc: ['query', 'since'],
      msg: 'Value error, since must be before until',
    });
    expect(await detail('?since=2030-01-10T00:00:00Z&until=2029-01-10T00:00:00Z')).toMatchObject({ loc: ['query', 'since'] });
    expect(await detail('?since=2029-10-01T00:00:00Z&until=2030-01-10T00:00:00Z')).toMatchObject({
      loc: ['query', 'since'],
      msg: 'Value error, the window may span at most 90 days',
    });
    expect((await stats('p', '?since=2029-10-12T00:00:00Z&until=2030-01-10T00:00:00Z')).status).toBe(200);
    expect((await stats('p', '?since=yesterday')).status).toBe(422);
  });

  it("answers an archived prompt's numbers, 404 for an unknown one, and hides another project's", async () => {
    await givenPrompt(t, { prompt_id: 'old', template: 'x' });
    await insertRun({ prompt: 'old' });
    await t.request('DELETE', '/prompts/old');
    expect((await stats('old', WINDOW)).json.versions).toHaveLength(1);
    expect((await stats('ghost')).json).toEqual({ detail: "Prompt 'ghost' not found" });
    expect((await stats('p', '', await t.keyFor('read', 'other'))).status).toBe(404);
    expect((await stats('p', '', await t.keyFor('runtime'))).status).toBe(403);
    expect((await stats('p', '', null)).status).toBe(422);
  });
});
