import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, browserMissing, launchChromium, signedInPage } from '../support/browser.js';
import { processFixtures, type RunningServer } from '../support/processes.js';
import { timeLimit } from '../support/timeLimits.js';

/**
 * The "Evaluate" action of a version and the evaluation's page, in a real headless Chromium against
 * the built server: the echo model answers with the prompt, so version 2 (which says "please")
 * passes a contains evaluator on every item and version 1 on none.
 */
const skip = browserMissing();
const ADMIN = 'pl_a_browser-evaluations-admin-key-0000000';
const fx = processFixtures(ADMIN);

let server: RunningServer;
let browser: Browser;
const api = apiClient(() => server.origin, ADMIN);

describe.skipIf(skip !== null)(`evaluations in the console${skip === null ? '' : ` (skipped: ${skip})`}`, () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());

  it('starts an evaluation from a version page, shows its progress, the comparison and the items side by side', {
    timeout: timeLimit({ starts: 1, steps: 22 }),
  }, async () => {
    server = await fx.serve();
    expect((await api('POST', '/prompts', { prompt_id: 'ask', template: 'Tell me about {{country}}', model: 'echo/echo' })).status).toBe(201);
    expect((await api('POST', '/prompts/ask/versions', { template: 'Tell me about {{country}}, please', model: 'echo/echo' })).status).toBe(201);
    expect((await api('POST', '/datasets', { dataset_id: 'countries' })).status).toBe(201);
    const items = ['France', 'Peru', 'Japan', 'Chile', 'Kenya', 'Norway'].map((country) => ({ inputs: { country } }));
    expect((await api('POST', '/datasets/countries/items', { items })).status).toBe(201);
    expect((await api('POST', '/evaluators', { evaluator_id: 'polite', kind: 'contains', value: 'please' })).status).toBe(201);

    const page = await signedInPage(browser, server.origin, ADMIN);
    await page.goto(`${server.origin}/ui/prompts/ask/versions/2`);
    await page.getByRole('heading', { name: 'Evaluate' }).waitFor();
    await page.getByLabel('Baseline version').selectOption('1');
    await page.getByLabel('Dataset').selectOption('countries');
    await page.getByRole('checkbox', { name: 'polite (contains)' }).check();
    await page.getByRole('button', { name: 'Start evaluation' }).click();
    await page.getByRole('heading', { name: /^Evaluation / }).waitFor();
    expect(page.url()).toMatch(/\/ui\/evaluations\/[^/]+$/u);

    const row = page.locator('table.comparison tbody tr').first();
    await expect.poll(() => page.getByText(/^completed: 12 of 12 done/u).count()).toBe(1);
    await expect.poll(() => row.textContent()).toContain('polite v1');
    const text = (await row.textContent()) ?? '';
    expect(text).toContain('1.000'); // the candidate passes every item
    expect(text).toContain('6 / 0 / 0'); // wins / ties / losses
    expect(text).toContain('better');

    const itemRows = page.locator('table.evaluation-items tbody tr');
    await expect.poll(() => itemRows.count()).toBe(6);
    const first = (await itemRows.first().textContent()) ?? '';
    expect(first).toContain('please');
    expect(first).toContain('polite: pass');
    expect(first).toContain('polite: fail');

    // The list links to it.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Evaluations', exact: true }).click();
    await expect.poll(() => page.locator('table.evaluations tbody tr').count()).toBe(1);
    expect(await page.locator('table.evaluations tbody tr').first().textContent()).toContain('completed');
  });
});
