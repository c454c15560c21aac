import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, browserMissing, launchChromium, screenshot, signedInPage } from '../support/browser.js';
import { behave, FakeOpenAI } from '../support/fakeOpenAI.js';
import { processFixtures, type RunningServer } from '../support/processes.js';
import { timeLimit } from '../support/timeLimits.js';

/**
 * The prompt page's playground (any version, side by side, a model override, JSON inputs), its
 * numbers per version, and a run's page with its outcomes, in a real headless Chromium against the
 * built server. Setup and checks of what was stored go through the public API.
 */
const skip = browserMissing();
const ADMIN = 'pl_a_browser-playground-admin-key-0000000';
const fx = processFixtures(ADMIN);

let server: RunningServer;
let browser: Browser;
let fake: FakeOpenAI | null = null;
const api = apiClient(() => server.origin, ADMIN);

const signedIn = (key = ADMIN) => signedInPage(browser, server.origin, key);
const column = (page: Page, name: 'A' | 'B') => page.locator(`article[data-column="${name}"]`);
const focusedId = (page: Page) => page.evaluate<string | null>('document.activeElement?.id ?? null');

async function openPrompt(page: Page, promptId: string): Promise<void> {
  await page.goto(`${server.origin}/ui/prompts/${promptId}`);
  await page.getByRole('heading', { name: 'Playground' }).waitFor();
}

describe.skipIf(skip !== null)(`the playground and a prompt's numbers in Chromium${skip === null ? '' : ` (skipped: ${skip})`}`, () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());
  afterEach(async () => {
    await fake?.close();
    fake = null;
  });

  it('runs two versions side by side, then one version on two models: a playground run, outside the running experiment', {
    timeout: timeLimit({ starts: 1, steps: 38 }),
  }, async () => {
    server = await fx.serve();
    await api('POST', '/prompts', { prompt_id: 'welcome', template: 'Hi {{name}}', labels: ['production'] });
    await api('POST', '/prompts/welcome/versions', { template: 'Hello {{name}}!' });
    expect(
      (
        await api('POST', '/experiments', {
          experiment_id: 'exp',
          prompt_id: 'welcome',
          variants: [
            { key: 'a', version: 1 },
            { key: 'b', version: 2 },
          ],
        })
      ).status,
    ).toBe(201);
    expect((await api('POST', '/experiments/exp/start')).status).toBe(200);
    const variantsOf = async () => (await api('GET', '/experiments/exp/results')).json.variants;
    const before = await variantsOf();

    const page = await signedIn();
    await openPrompt(page, 'welcome');
    // Multi-line inputs: the field is a textarea.
    await page.getByLabel('name', { exact: true }).fill('Ada\nLovelace');
    await page.getByRole('button', { name: 'Compare side by side' }).click();
    expect(await page.getByLabel('Version (column A)').inputValue()).toBe('1'); // what production serves
    expect(await page.getByLabel('Version (column B)').inputValue()).toBe('2');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await expect.poll(() => column(page, 'A').locator('pre.output').textContent()).toBe('Hi Ada\nLovelace');
    await expect.poll(() => column(page, 'B').locator('pre.output').textContent()).toBe('Hello Ada\nLovelace!');
    expect(await focusedId(page)).toBe('playground-results-title');
    for (const name of ['A', 'B'] as const) {
      expect(await column(page, name).locator('[data-fact="cost"]').textContent()).toBe('$0');
      expect(await column(page, name).locator('[data-fact="tokens"]').textContent()).toMatch(/^\d+ in, \d+ out, \d+ in all$/);
      expect(await column(page, name).locator('[data-fact="latency"]').textContent()).toMatch(/^\d+ ms$/);
    }

    // One version, two models: column B overrides the model.
    await page.getByLabel('Version (column B)').selectOption('1');
    await page.getByLabel('Model override (column B)').fill('echo/trial');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await expect.poll(() => column(page, 'B').locator('[data-fact="model"]').textContent()).toBe('echo/trial');
    expect(await column(page, 'A').locator('[data-fact="model"]').textContent()).toBe('echo/echo');
    expect(await column(page, 'B').locator('pre.output').textContent()).toBe('Hi Ada\nLovelace');
    const link = column(page, 'B').getByRole('link', { name: /^run_/ });
    const runId = (await link.textContent())!;
    expect(await link.getAttribute('href')).toBe(`/ui/runs/${runId}`);
    expect((await api('GET', `/runs/${runId}`)).json).toMatchObject({
      source: 'playground',
      prompt_version: 1,
      model_requested: 'echo/trial',
      experiment_id: null,
      variant: null,
      inputs: { name: 'Ada\nLovelace' },
    });
    expect((await api('GET', '/runs?source=playground')).json.data).toHaveLength(4);
    expect((await api('GET', '/runs?experiment_id=exp')).json.data).toEqual([]);
    expect(await variantsOf()).toEqual(before);

    // A bad model is that column's error; the other column still answers.
    await page.getByLabel('Model override (column B)').fill('nowhere/model');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await expect.poll(() => column(page, 'B').getByRole('alert').textContent()).toContain("provider 'nowhere' is not configured");
    expect(await column(page, 'A').locator('pre.output').textContent()).toBe('Hi Ada\nLovelace');
    await screenshot(page, 'playground-side-by-side');
    expect(page.problems.filter((p) => !p.includes('422'))).toEqual([]);
    await page.close();
  });

  it('JSON inputs pass a number and a nested object; invalid JSON is a clear error; a read key renders but cannot run', {
    timeout: timeLimit({ starts: 1, steps: 34 }),
  }, async () => {
    server = await fx.serve();
    await api('POST', '/prompts', { prompt_id: 'order', template: 'Order {{count}} for {{customer.name}} in {{customer.city}}', labels: ['production'] });
    const page = await signedIn();
    await openPrompt(page, 'order');
    await page.getByLabel('JSON inputs (numbers, lists, objects)').check();
    const json = page.getByLabel('Inputs as JSON');
    await json.fill('{"count": 3, "customer": {"name": "Ada", "city": "London"');
    await page.getByRole('button', { name: 'Render' }).click();
    await expect.poll(() => page.locator('#playground-json-error').textContent()).toMatch(/^The inputs are not valid JSON: /);
    expect(await focusedId(page)).toBe('playground-json');
    expect(await page.locator('pre.rendered').count()).toBe(0);
    await json.fill('[1, 2]');
    await page.getByRole('button', { name: 'Render' }).click();
    await expect.poll(() => page.locator('#playground-json-error').textContent()).toContain('must be a JSON object');

    await json.fill('{"count": 3, "customer": {"name": "Ada", "city": "London"}}');
    await page.getByRole('button', { name: 'Render' }).click();
    await expect.poll(() => column(page, 'A').locator('pre.rendered').textContent()).toBe('Order 3 for Ada in London');
    expect(await page.locator('#playground-json-error').count()).toBe(0);
    expect(await focusedId(page)).toBe('playground-results-title');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const link = column(page, 'A').getByRole('link', { name: /^run_/ });
    await link.waitFor();
    expect((await api('GET', `/runs/${await link.textContent()}`)).json.inputs).toEqual({ count: 3, customer: { name: 'Ada', city: 'London' } });
    await page.close();

    const read = (await api('POST', '/keys', { name: 'viewer', role: 'read' })).json.key;
    const reader = await signedIn(read);
    await openPrompt(reader, 'order');
    expect(await reader.getByRole('button', { name: 'Run', exact: true }).count()).toBe(0);
    expect(await reader.getByLabel('Model override (column A)').count()).toBe(0);
    await reader.getByText('Running needs an admin key').waitFor();
    await reader.getByLabel('JSON inputs (numbers, lists, objects)').check();
    await reader.getByLabel('Inputs as JSON').fill('{"count": 1, "customer": {"name": "Bo", "city": "Oslo"}}');
    await reader.getByRole('button', { name: 'Render' }).click();
    await expect.poll(() => column(reader, 'A').locator('pre.rendered').textContent()).toBe('Order 1 for Bo in Oslo');
    await reader.close();
  });

  it("shows a prompt's numbers per version for a known set of runs, the window kept in the URL", { timeout: timeLimit({ starts: 1, steps: 22 }) }, async () => {
    fake = new FakeOpenAI();
    const { baseURL } = await fake.start();
    server = await fx.serve(undefined, { PROMPTLINE_PROVIDER_FAKE_BASE_URL: baseURL, PROMPTLINE_MAX_RETRIES: '0' });
    await api('POST', '/prompts', { prompt_id: 'nums', template: 'One {{x}}', labels: ['production'] });
    for (const x of ['a', 'b', 'c']) expect((await api('POST', '/run_prompt', { prompt_id: 'nums', inputs: { x } })).status).toBe(200);
    await api('POST', '/prompts/nums/versions', { template: 'Two {{x}}', model: 'fake/m', labels: ['production'] });
    fake.script([behave.ok({ content: 'fine', usage: { prompt_tokens: 10, completion_tokens: 4 } }), behave.badRequest()]);
    expect((await api('POST', '/run_prompt', { prompt_id: 'nums', inputs: { x: 'd' } })).status).toBe(200);
    expect((await api('POST', '/run_prompt', { prompt_id: 'nums', inputs: { x: 'e' } })).status).toBe(502);
    // A playground run is not counted.
    expect((await api('POST', '/prompts/nums/versions/1/run', { inputs: { x: 'f' } })).status).toBe(200);

    const page = await signedIn();
    await openPrompt(page, 'nums');
    const rows = () =>
      page.locator('table.numbers tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('th, td')].slice(0, 4).map((c) => c.textContent)));
    await expect.poll(rows).toEqual([
      ['v2', '2', '1', '50.0%'],
      ['v1', '3', '0', '0.0%'],
    ]);
    const v2 = await page.locator('table.numbers tbody tr').first().locator('td').allTextContents();
    expect(v2.slice(5, 8)).toEqual(['10', '4', '14']); // tokens: only the run that answered used any
    expect(page.url()).not.toContain('window=');
    expect(await page.getByLabel('Window').inputValue()).toBe('7d');
    await page.getByLabel('Window').selectOption('24h');
    await expect.poll(() => page.url()).toContain('window=24h');
    await expect.poll(rows).toEqual([
      ['v2', '2', '1', '50.0%'],
      ['v1', '3', '0', '0.0%'],
    ]);
    await screenshot(page, 'prompt-numbers');
    await page.reload();
    await page.getByRole('heading', { name: 'Numbers' }).waitFor();
    expect(await page.getByLabel('Window').inputValue()).toBe('24h');
    await expect.poll(rows).toHaveLength(2);
    await page.close();
  });

  it("shows a run's outcomes and whether it was a playground run", { timeout: timeLimit({ starts: 1, steps: 14 }) }, async () => {
    server = await fx.serve();
    await api('POST', '/prompts', { prompt_id: 'welcome', template: 'Hi {{name}}', labels: ['production'] });
    const served = (await api('POST', '/run_prompt', { prompt_id: 'welcome', inputs: { name: 'Ada' }, external_user_id: 'u1' })).json;
    const trial = (await api('POST', '/prompts/welcome/versions/1/run', { inputs: { name: 'Bo' } })).json;
    for (const body of [
      { event_type: 'signup', is_success: true },
      { event_type: 'rating', numeric_value: 4.5, label: 'stars' },
    ]) {
      expect((await api('POST', '/track_outcome', { prompt_id: 'welcome', prompt_run_id: served.run_id, ...body })).status).toBe(200);
    }
    const page = await signedIn();
    await page.goto(`${server.origin}/ui/runs/${served.run_id}`);
    await page.getByRole('heading', { name: 'Outcomes' }).waitFor();
    const cells = () =>
      page.locator('table.outcomes tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(1).map((c) => c.textContent)));
    await expect.poll(cells).toEqual([
      ['rating', '–', '4.5', 'stars', 'none'],
      ['signup', 'yes', '–', '–', 'none'],
    ]);
    expect(await page.locator('[data-fact="source"]').textContent()).toBe('API (/run_prompt)');

    await page.goto(`${server.origin}/ui/runs/${trial.run_id}`);
    await expect.poll(() => page.locator('[data-fact="source"]').textContent()).toContain('Playground');
    await page.getByText('No outcome names this run.').waitFor();
    await page.close();
  });
});
