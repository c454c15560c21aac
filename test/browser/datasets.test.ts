import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, browserMissing, launchChromium, signedInPage } from '../support/browser.js';
import { processFixtures, type RunningServer } from '../support/processes.js';
import { timeLimit } from '../support/timeLimits.js';

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

  it('lists a dataset made through the API, shows its items by version, and adds pasted JSONL as a new version', {
    timeout: timeLimit({ starts: 1, steps: 20 }),
  }, async () => {
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
  });

  it('lists the evaluators with their kinds and settings', { timeout: timeLimit({ starts: 1, steps: 6 }) }, async () => {
    server = await fx.serve();
    expect((await api('POST', '/evaluators', { evaluator_id: 'short', kind: 'length', max_chars: 200, description: EVIL })).status).toBe(201);
    const page = await signedInPage(browser, server.origin, ADMIN);
    await page.getByRole('link', { name: 'Evaluators', exact: true }).click();
    const row = page.locator('table.evaluators tbody tr').first();
    await row.waitFor();
    const text = await row.textContent();
    expect(text).toContain('short');
    expect(text).toContain('length');
    expect(text).toContain('max_chars: 200');
    expect(text).toContain(EVIL);
  });

  it("adds pasted or uploaded CSV as a new version, with the CLI's columns; a bad line is named and nothing is sent", {
    timeout: timeLimit({ starts: 1, steps: 19 }),
  }, async () => {
    server = await fx.serve();
    expect((await api('POST', '/datasets', { dataset_id: 'capitals' })).status).toBe(201);
    const page = await signedInPage(browser, server.origin, ADMIN);
    await page.goto(`${server.origin}/ui/datasets/capitals`);
    await page.getByRole('heading', { name: 'Add items' }).waitFor();
    await page.getByRole('radio', { name: 'CSV' }).check();

    // Line 3 has a cell too many, line 4 an expected_json that is not JSON: both named, nothing sent.
    const bad = ['inputs.country,expected_json,metadata.region', 'France,"""Paris""",europe', 'Peru,"""Lima""",south,america', 'Japan,{Tokyo,asia'];
    await page.getByLabel('Items as CSV').fill(bad.join('\n'));
    await page.getByRole('button', { name: 'Add items' }).click();
    const problems = page.getByRole('alert');
    await problems.getByText('line 3: 4 cells, the header has 3').waitFor();
    await problems.getByText(/^line 4: expected_json is not JSON/).waitFor();
    expect((await api('GET', '/datasets/capitals')).json.latest_version).toBe(0);

    // A file's name says its format: a .csv file is read as CSV whatever was chosen.
    await page.getByRole('radio', { name: 'JSONL' }).check();
    const csv = 'inputs.country,expected,metadata.region\r\n"Korea, South",Seoul,asia\r\n"Côte d\'Ivoire","Yamoussoukro\nand Abidjan",\r\n';
    await page.getByLabel('Or a .jsonl or .csv file').setInputFiles({ name: 'capitals.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    // A textarea's value has its line breaks as \n.
    await expect.poll(() => page.getByLabel('Items as CSV').inputValue()).toBe(csv.replaceAll('\r\n', '\n'));
    await page.getByRole('button', { name: 'Add items' }).click();
    await page.getByRole('status').getByText('Version 1: 2 item(s) added.').waitFor();
    const rows = page.locator('table.dataset-items tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    const items = (await api('GET', '/datasets/capitals/items?version=1')).json.data as { inputs: unknown; expected: unknown; metadata: unknown }[];
    expect(items.map((i) => [i.inputs, i.expected, i.metadata])).toEqual([
      [{ country: 'Korea, South' }, 'Seoul', { region: 'asia' }],
      [{ country: "Côte d'Ivoire" }, 'Yamoussoukro\nand Abidjan', { region: '' }],
    ]);
    await page.close();
  });

  it('a read key sees the datasets and their items, and cannot make one or add items', { timeout: timeLimit({ starts: 1, steps: 14 }) }, async () => {
    server = await fx.serve();
    expect((await api('POST', '/datasets', { dataset_id: 'capitals' })).status).toBe(201);
    expect((await api('POST', '/datasets/capitals/items', { items: [{ inputs: { country: 'France' }, expected: 'Paris' }] })).status).toBe(201);
    const read = (await api('POST', '/keys', { name: 'viewer', role: 'read' })).json.key;
    const page = await signedInPage(browser, server.origin, read);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Datasets' }).click();
    await page.getByRole('link', { name: 'capitals' }).click();
    await page.locator('table.dataset-items tbody tr').first().waitFor();
    expect(await page.getByRole('heading', { name: 'Add items' }).count()).toBe(0);
    expect(await page.locator('form').count()).toBe(0);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Datasets' }).click();
    await page.locator('table.datasets tbody tr').first().waitFor();
    expect(await page.getByRole('heading', { name: 'New dataset' }).count()).toBe(0);
    await page.close();
  });
});
