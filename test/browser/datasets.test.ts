import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, browserMissing, launchChromium, signedInPage } from '../support/browser.js';
import { processFixtures, type RunningServer } from '../support/processes.js';

/**
 * The console's Datasets and Evaluators pages in a real headless Chromium against the built server:
 * what is made through the API is listed; items pasted as JSONL in the page become a new version.
 */
const skip = browserMissing();
const ADMIN = 'pl_a_browser-datasets-admin-key-0000000000';
const fx = processFixtures(ADMIN);
const EVIL = '<img src=x onerror=alert(1)>';

let server: RunningServer;
let browser: Browser;
const api = apiClient(() => server.origin, ADMIN);

describe.skipIf(skip !== null)(`the Datasets and Evaluators pages in Chromium${skip === null ? '' : ` (skipped: ${skip})`}`, () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());

  it('lists a dataset made through the API, shows its items by version, and adds pasted JSONL as a new version', async () => {
    server = await fx.serve();
    expect((await api('POST', '/datasets', { dataset_id: 'capitals', description: 'capital cities' })).status).toBe(201);
    const items = [
      { inputs: { country: 'France' }, expected: 'Paris' },
      { inputs: { country: EVIL }, expected: EVIL },
    ];
    expect((await api('POST', '/datasets/capitals/items', { items })).status).toBe(201);

    const page = await signedInPage(browser, server.origin, ADMIN);
    await page.getByRole('link', { name: 'Datasets', exact: true }).click();
    await page.getByRole('link', { name: 'capitals' }).click();
    await page.getByRole('heading', { name: 'capitals', level: 1 }).waitFor();
    const rows = page.locator('table.dataset-items tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(1).textContent()).toContain(EVIL); // shown as text, never as markup

    // A bad line is named and nothing is sent.
    await page.getByLabel('Items as JSONL').fill('{"inputs": {"country": "Peru"}, "expected": "Lima"}\n{"expeted": 1}');
    await page.getByRole('button', { name: 'Add items' }).click();
    await page.getByRole('alert').getByText('line 2: unknown field(s) "expeted"').waitFor();
    expect((await api('GET', '/datasets/capitals')).json.latest_version).toBe(1);

    await page.getByLabel('Items as JSONL').fill('{"inputs": {"country": "Peru"}, "expected": "Lima"}\n\n{"inputs": {"country": "Japan"}}');
    await page.getByRole('button', { name: 'Add items' }).click();
    await page.getByRole('status').getByText('Version 2: 2 item(s) added.').waitFor();
    await expect.poll(() => rows.count()).toBe(4);
    expect((await api('GET', '/datasets/capitals')).json).toMatchObject({ latest_version: 2, item_count: 4 });
    // Version 1 still holds its two items.
    await page.getByLabel('Version').selectOption('1');
    await expect.poll(() => rows.count()).toBe(2);
  }, 60_000);

  it('lists the evaluators with their kinds and settings', async () => {
    server = await fx.serve();
    expect((await api('POST', '/evaluators', { evaluator_id: 'short', kind: 'length', max_chars: 200, description: EVIL })).status).toBe(201);
    const page = await signedInPage(browser, server.origin, ADMIN);
    await page.getByRole('link', { name: 'Evaluators', exact: true }).click();
    const row = page.locator('table.evaluators tbody tr').first();
    await row.waitFor();
    const text = await row.textContent();
    expect(text).toContain('short');
    expect(text).toContain('length');
    expect(text).toContain('"max_chars":200');
    expect(text).toContain(EVIL);
  }, 60_000);
});
