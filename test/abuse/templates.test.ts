import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/harness.js';

// The reproducers of the hardening report, through the real app: each is answered with a clear
// 4xx, stores nothing, and leaves the server serving.
let t: TestApp;
let runtime: string;
const count = (table: string) => t.sqlite.prepare(`SELECT count(*) FROM ${table}`).pluck().get();
const nest = (n: number, inner = 'x') => `${'{{#a}}'.repeat(n)}${inner}${'{{/a}}'.repeat(n)}`;
const zeros = (n: number) => Array<number>(n).fill(0);

beforeAll(async () => {
  t = await startTestApp();
  runtime = await t.keyFor('runtime');
  await t.request('POST', '/prompts', { body: { prompt_id: 'grid', template: '{{#rows}}{{#cols}}.{{/cols}}{{/rows}}' } });
  await t.request('POST', '/prompts', { body: { prompt_id: 'deep', template: nest(32) } });
  await t.request('POST', '/prompts', { body: { prompt_id: 'items', template: 'Items: {{#items}}{{user}}{{/items}}' } });
  await t.request('POST', '/prompts', { body: { prompt_id: 'echoes', template: '{{x}}'.repeat(5000) } });
  await t.request('POST', '/prompts', {
    body: {
      prompt_id: 'chat',
      messages: [
        { role: 'system', content: '{{x}}{{x}}{{x}}' },
        { role: 'user', content: '{{x}}{{x}}{{x}}' },
      ],
    },
  });
});
afterAll(async () => t.cleanup());

async function expectHealthy(): Promise<void> {
  const res = await t.request('POST', '/get_prompt', { key: runtime, body: { prompt_id: 'grid', inputs: { rows: [1, 2], cols: [1, 2, 3] } } });
  expect(res.json.prompt_text).toBe('......');
}

describe('template bombs are refused by the render budget', () => {
  it.each([
    ['12 000 × 12 000 grid (48 KB body)', 'grid', { rows: zeros(12_000), cols: zeros(12_000) }, 'PROMPTLINE_RENDER_MAX_STEPS'],
    ['32 nested sections over [1, 1]', 'deep', { a: [1, 1] }, 'PROMPTLINE_RENDER_MAX_STEPS'],
    ['1 200 items × a 400 000-character value', 'items', { items: zeros(1200), user: 'u'.repeat(400_000) }, 'PROMPTLINE_RENDER_MAX_BYTES'],
    ['one 200 000-character value written 5 000 times', 'echoes', { x: 'x'.repeat(200_000) }, 'PROMPTLINE_RENDER_MAX_BYTES'],
  ])('/get_prompt: %s → 422 naming the limit', async (_name, promptId, inputs, limit) => {
    const res = await t.request('POST', '/get_prompt', { key: runtime, body: { prompt_id: promptId, inputs } });
    expect(res.status).toBe(422);
    expect(res.json.detail).toHaveLength(1);
    expect(res.json.detail[0]).toMatchObject({ type: 'value_error', loc: ['body', 'inputs'] });
    expect(res.json.detail[0].msg).toContain(limit);
    await expectHealthy();
  });

  it('/run_prompt: an output multiplication is a 422 and no run is stored', async () => {
    const before = count('runs');
    const res = await t.request('POST', '/run_prompt', { key: runtime, body: { prompt_id: 'echoes', inputs: { x: 'y'.repeat(300_000) } } });
    expect(res.status).toBe(422);
    expect(res.json.detail[0].msg).toContain('would exceed 1048576 bytes');
    expect(count('runs')).toBe(before);
  });

  it('the messages of a chat prompt share one budget', async () => {
    const ok = await t.request('POST', '/get_prompt', { key: runtime, body: { prompt_id: 'chat', inputs: { x: 'x'.repeat(150_000) } } });
    expect(ok.status).toBe(200);
    const over = await t.request('POST', '/get_prompt', { key: runtime, body: { prompt_id: 'chat', inputs: { x: 'x'.repeat(180_000) } } });
    expect(over.status).toBe(422);
  });

  it('honours a configured budget', async () => {
    const tight = await startTestApp({ PROMPTLINE_RENDER_MAX_BYTES: '65536', PROMPTLINE_RENDER_MAX_STEPS: '10000' });
    try {
      await tight.request('POST', '/prompts', { body: { prompt_id: 'grid', template: '{{#rows}}{{#cols}}.{{/cols}}{{/rows}}' } });
      const steps = await tight.request('POST', '/get_prompt', { body: { prompt_id: 'grid', inputs: { rows: zeros(100), cols: zeros(100) } } });
      expect(steps.json.detail[0].msg).toBe(
        'Value error, rendering would take more than 10000 steps (PROMPTLINE_RENDER_MAX_STEPS): the inputs repeat sections too often',
      );
      const fits = await tight.request('POST', '/get_prompt', { body: { prompt_id: 'grid', inputs: { rows: zeros(60), cols: zeros(60) } } });
      expect(fits.json.prompt_text).toBe('.'.repeat(3600));
    } finally {
      await tight.cleanup();
    }
  });
});

describe('template shapes are limited when a version is created', () => {
  it.each([
    ['POST /prompts, 3 556 nested sections', 'POST', '/prompts', { prompt_id: 'd1', template: nest(3556) }, ['body', 'template']],
    ['POST /prompts, 33 nested sections', 'POST', '/prompts', { prompt_id: 'd2', template: nest(33) }, ['body', 'template']],
    ['POST /prompts/{id}/versions, 3 756 nested sections', 'POST', '/prompts/grid/versions', { template: nest(3756) }, ['body', 'template']],
    ['a deep chat message', 'POST', '/prompts/grid/versions', { messages: [{ role: 'user', content: nest(40) }] }, ['body', 'messages', 0, 'content']],
  ])('%s → 422, nothing stored', async (_name, method, url, body, loc) => {
    const versions = count('prompt_versions');
    const prompts = count('prompts');
    const res = await t.request(method, url, { body });
    expect(res.status).toBe(422);
    expect(res.json.detail[0]).toMatchObject({ type: 'value_error', loc, msg: 'Value error, sections nest deeper than 32 levels' });
    expect([count('prompt_versions'), count('prompts')]).toEqual([versions, prompts]);
  });

  it('refuses a version whose templates together exceed 200 000 characters', async () => {
    const messages = Array.from({ length: 3 }, () => ({ role: 'user', content: 'x'.repeat(70_000) }));
    const res = await t.request('POST', '/prompts/grid/versions', { body: { messages } });
    expect(res.status).toBe(422);
    expect(res.json.detail[0].msg).toBe('Value error, templates must total at most 200000 characters (got 210000)');
  });

  it('refuses a template whose own text is more than one render may write', async () => {
    const tight = await startTestApp({ PROMPTLINE_RENDER_MAX_BYTES: '65536' });
    try {
      const res = await tight.request('POST', '/prompts', { body: { prompt_id: 'big', template: 'é'.repeat(40_000) } });
      expect(res.json.detail[0].msg).toBe('Value error, templates hold 80000 bytes of text, more than one render may write (65536)');
    } finally {
      await tight.cleanup();
    }
  });

  it('a version stored before these rules answers a clear 409 at run time, never a 500', async () => {
    await t.request('POST', '/prompts', { body: { prompt_id: 'legacy' } });
    const project = t.sqlite.prepare("SELECT id FROM projects WHERE name = 'default'").pluck().get();
    t.sqlite
      .prepare(`INSERT INTO prompt_versions (project_id, prompt_id, version, template, params, fallbacks, variables, created_at)
      VALUES (?, 'legacy', 1, ?, '{}', '[]', '["a"]', '2026-01-01T00:00:00.000Z')`)
      .run(project, nest(3525));
    const res = await t.request('POST', '/get_prompt', { key: runtime, body: { prompt_id: 'legacy', inputs: { a: [1] } } });
    expect(res.status).toBe(409);
    expect(res.json.detail).toBe("Prompt 'legacy' version 1 cannot be served (sections nest deeper than 32 levels): create a new version");
    await expectHealthy();
  });
});
