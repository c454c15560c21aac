import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIST_FIELD_BYTES } from '../../../src/db/listFields.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';

// GET /runs has a row limit and, since issue 22, a size bound: 100 runs whose inputs are 0.3 MB
// each answered 120 MB. Large fields are left out of the list, named in `truncated`, and whole in
// GET /runs/{run_id}; paging by cursor still visits every run exactly once.
const BIG = 300_000;
const BIG_RUNS = 100;
let t: TestApp;
const big = new Set<string>();
const small = new Set<string>();

beforeAll(async () => {
  t = await startTestApp();
  await givenPrompt(t);
  const run = async (name: string) => {
    const res = await t.request('POST', '/run_prompt', { body: { prompt_id: 'p', inputs: { name } } });
    expect(res.status).toBe(200);
    return res.json.run_id as string;
  };
  // In batches, so each group commit carries several (and the test stays fast on PostgreSQL).
  for (let i = 0; i < BIG_RUNS; i += 10) {
    const ids = await Promise.all(Array.from({ length: 10 }, (_, j) => run(`${String.fromCharCode(97 + j)}${'x'.repeat(BIG)}`)));
    for (const id of ids) big.add(id);
    small.add(await run(`small ${i}`));
  }
}, 300_000);
afterAll(async () => t.cleanup());

describe('GET /runs: bounded in bytes', () => {
  it('100 runs of 0.3 MB inputs: a page well under 1.5 MB, every large field left out and named', async () => {
    const started = performance.now();
    const res = await t.request('GET', '/runs?limit=100&prompt_id=p');
    const ms = performance.now() - started;
    console.log(`[list bytes] GET /runs?limit=100 → ${res.text.length} bytes in ${ms.toFixed(0)} ms`);
    expect(res.status).toBe(200);
    expect(res.text.length).toBeLessThan(1_500_000);
    const rows = res.json.data as Array<Record<string, any>>;
    expect(rows).toHaveLength(100);
    for (const row of rows) {
      if (small.has(row.run_id)) {
        expect(row.truncated).toEqual([]);
        expect(row.output).toBe(`Hi ${row.inputs.name}`);
        continue;
      }
      expect(row.truncated).toEqual(['inputs', 'rendered_prompt', 'messages', 'output']);
      expect([row.inputs, row.rendered_prompt, row.messages, row.output]).toEqual([{}, '', [], '']);
      // The rest of the run is there as usual.
      expect([row.status, row.prompt_id, row.model_used]).toEqual(['ok', 'p', 'echo/echo']);
    }
  });

  it('GET /runs/{run_id} gives the run whole', async () => {
    const id = [...big][3]!;
    const res = await t.request('GET', `/runs/${id}`);
    expect(res.json.inputs.name).toHaveLength(BIG + 1);
    expect(res.json.output).toHaveLength(BIG + 4);
    expect(res.json.rendered_prompt).toBe(res.json.output);
    expect(res.json.messages).toEqual([{ role: 'user', content: res.json.output }]);
    expect(res.json).not.toHaveProperty('truncated');
  });

  it(`a field of exactly ${LIST_FIELD_BYTES} stored bytes is listed whole; one more byte and it is left out`, async () => {
    // The output echoes the rendered prompt "Hi " + name; its stored size is what counts.
    const at = `${'é'.repeat((LIST_FIELD_BYTES - 3) / 2 - 0.5)}x`;
    expect(Buffer.byteLength(`Hi ${at}`)).toBe(LIST_FIELD_BYTES);
    for (const [name, leftOut] of [
      [at, false],
      [`${at}y`, true],
    ] as const) {
      const run = (await t.request('POST', '/run_prompt', { body: { prompt_id: 'p', inputs: { name } } })).json.run_id;
      const listed = (await t.request('GET', '/runs?limit=1')).json.data[0];
      expect(listed.run_id).toBe(run);
      expect([listed.output, listed.truncated.includes('output')]).toEqual([leftOut ? '' : `Hi ${name}`, leftOut]);
      small.add(run);
    }
  });

  it.each([7, 100])('paging by %d visits every run exactly once, filtered or not', async (limit) => {
    for (const filter of ['', '&prompt_id=p', '&status=ok']) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await t.request('GET', `/runs?limit=${limit}${filter}${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.status).toBe(200);
        seen.push(...page.json.data.map((r: { run_id: string }) => r.run_id));
        cursor = page.json.next_cursor;
      } while (cursor !== null);
      expect(seen).toHaveLength(big.size + small.size);
      expect(new Set(seen)).toEqual(new Set([...big, ...small]));
    }
  });
});
