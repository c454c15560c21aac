import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/harness.js';
import { givenPrompt } from '../support/fixtures.js';
import { healthDuring } from '../support/healthProbe.js';
import { callServer, startServer, tempDataDir, type RunningServer } from '../support/processes.js';

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
  await givenPrompt(t, { prompt_id: 'grid', template: '{{#rows}}{{#cols}}.{{/cols}}{{/rows}}' });
  await givenPrompt(t, { prompt_id: 'deep', template: nest(32) });
  await givenPrompt(t, { prompt_id: 'items', template: 'Items: {{#items}}{{user}}{{/items}}' });
  await givenPrompt(t, { prompt_id: 'echoes', template: '{{x}}'.repeat(5000) });
  await givenPrompt(t, {
    prompt_id: 'chat',
    messages: [
      { role: 'system', content: '{{x}}{{x}}{{x}}' },
      { role: 'user', content: '{{x}}{{x}}{{x}}' },
    ],
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
      await givenPrompt(tight, { prompt_id: 'grid', template: '{{#rows}}{{#cols}}.{{/cols}}{{/rows}}' });
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

describe('a 422 for many missing variables is bounded, whatever the inputs weigh', () => {
  // The built server in a process of its own, so the /healthz probe measures its event loop and
  // /proc tells its peak memory.
  const ADMIN = 'pl_a_abuse-templates-admin-key-0000000000';
  const pad = 'x'.repeat(900_000);
  const vars = (n: number) => Array.from({ length: n }, (_, i) => `{{v${i}}}`).join(' ');
  // The whole answer: at most 32 KiB of items, plus `{"detail":` and `}`.
  const ANSWER_MAX_BYTES = 32_768 + 12;
  let server: RunningServer;
  let dir: string;

  beforeAll(async () => {
    dir = tempDataDir();
    server = await startServer({ PROMPTLINE_DATA_DIR: dir, PROMPTLINE_BOOTSTRAP_ADMIN_KEY: ADMIN });
    for (const n of [50, 500, 5000]) {
      const created = await callServer(server.origin, '/prompts', ADMIN, { prompt_id: `vars${n}`, template: vars(n) });
      expect(created.status).toBe(201);
    }
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  // Each body is written once: the test process should spend its CPU sending, not serialising.
  const bodies = new Map<string, Buffer>();
  const bodyFor = (promptId: string) => {
    if (!bodies.has(promptId)) bodies.set(promptId, Buffer.from(JSON.stringify({ prompt_id: promptId, inputs: { pad } })));
    return bodies.get(promptId)!;
  };

  /** One /get_prompt with every variable missing and a 900 000-character `inputs.pad`: status, body bytes, ms. */
  async function missingAll(promptId: string): Promise<{ status: number; bytes: Buffer; ms: number }> {
    const body = bodyFor(promptId);
    const started = performance.now();
    const res = await fetch(`${server.origin}/get_prompt`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': ADMIN },
      body,
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    return { status: res.status, bytes, ms: performance.now() - started };
  }

  /** The items say, in order, which variables are missing, and a last one how many were left out if any were. */
  function expectBoundedMissing(answer: { status: number; bytes: Buffer }, variables: number): void {
    expect(answer.status).toBe(422);
    expect(answer.bytes.length).toBeLessThanOrEqual(ANSWER_MAX_BYTES);
    const detail = JSON.parse(answer.bytes.toString()).detail as Array<Record<string, any>>;
    const shown = detail.filter((item) => item.type === 'missing');
    expect(shown.length).toBeGreaterThan(10);
    shown.forEach((_, i) => {
      expect(detail[i]).toStrictEqual({
        type: 'missing',
        loc: ['body', 'inputs', `v${i}`],
        msg: 'Field required',
        input: { pad: `${'x'.repeat(1000)}…[truncated: 899000 more characters]` },
      });
    });
    if (shown.length === variables) {
      expect(detail).toHaveLength(variables);
      return;
    }
    expect(detail).toHaveLength(shown.length + 1);
    expect(detail.at(-1)).toStrictEqual({
      type: 'too_many_errors',
      loc: [],
      msg: `${variables - shown.length} more errors left out of this answer`,
      input: null,
      ctx: { omitted: variables - shown.length },
    });
  }

  /**
   * Rounds of `round` for about `ms` (at least one), `pauseMs` apart: the same attack again and
   * again, so that the probe (every 20 ms) takes enough samples for its p99 to mean something.
   */
  async function repeatFor<T>(ms: number, pauseMs: number, round: () => Promise<T>): Promise<T[]> {
    const until = performance.now() + ms;
    const results: T[] = [];
    for (;;) {
      results.push(await round());
      if (performance.now() >= until) return results;
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  }

  it.each([500, 5000])(
    '%d missing variables and a 900 KB input, again and again: each a 422 of at most 32 KiB, /healthz unaffected',
    async (n) => {
      const { result: answers, health } = await healthDuring(server.origin, () => repeatFor(2_000, 20, () => missingAll(`vars${n}`)));
      const meanMs = answers.reduce((sum, a) => sum + a.ms, 0) / answers.length;
      console.log(
        `${n} missing variables: ${answers[0]!.status}, ${answers[0]!.bytes.length} bytes, first in ${answers[0]!.ms.toFixed(0)} ms, ` +
          `${answers.length} answers in ${meanMs.toFixed(1)} ms on average; /healthz p99 ${health.p99.toFixed(1)} ms, max ${health.max.toFixed(1)} ms (${health.latenciesMs.length} probes)`,
      );
      for (const answer of answers) expectBoundedMissing(answer, n);
      expect(health.failures).toEqual([]);
      expect(health.p99).toBeLessThan(100);
    },
    120_000,
  );

  it('16 requests at once with 50 missing variables each, again and again: bounded answers and bounded memory', async () => {
    const rssBefore = memoryOf(server).rssMb;
    const { result: rounds, health } = await healthDuring(server.origin, () =>
      repeatFor(2_000, 100, async () => {
        const started = performance.now();
        const answers = await Promise.all(Array.from({ length: 16 }, () => missingAll('vars50')));
        return { answers, ms: performance.now() - started };
      }),
    );
    const { peakMb } = memoryOf(server);
    const first = rounds[0]!;
    const total = first.answers.reduce((sum, a) => sum + a.bytes.length, 0);
    console.log(
      `16 × 50 missing variables: ${total} bytes in all (${first.answers[0]!.bytes.length} each), first round in ${first.ms.toFixed(0)} ms, ${rounds.length} rounds; ` +
        `server RSS ${rssBefore} MB before, peak ${peakMb} MB; /healthz p99 ${health.p99.toFixed(1)} ms, max ${health.max.toFixed(1)} ms (${health.latenciesMs.length} probes)`,
    );
    for (const round of rounds) for (const answer of round.answers) expectBoundedMissing(answer, 50);
    expect(peakMb - rssBefore).toBeLessThan(200);
    expect(health.failures).toEqual([]);
    expect(health.p99).toBeLessThan(100);
  });
});

/** The server child's resident memory now and at its peak (Linux /proc), in MB. */
function memoryOf(server: RunningServer): { rssMb: number; peakMb: number } {
  const status = fs.readFileSync(`/proc/${server.process.pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]);
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) };
}
