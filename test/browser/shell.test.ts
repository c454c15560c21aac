import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, browserMissing, firstLoadTransfer, launchChromium, signedInPage } from '../support/browser.js';
import { processFixtures, type RunningServer } from '../support/processes.js';
import { timeLimit } from '../support/timeLimits.js';

/**
 * The console's shell in Chromium: one sign-in per browser (deep links in a new tab), keyboard use
 * (skip link, focus on the key field and on each new page's heading), lists whose filters live in
 * the URL, and how its files travel (compressed).
 */
const skip = browserMissing();
const ADMIN = 'pl_a_browser-shell-admin-key-000000000000';
const fx = processFixtures(ADMIN);

let server: RunningServer;
let browser: Browser;
const api = apiClient(() => server.origin, ADMIN);

const focused = () => `document.activeElement && (document.activeElement.id || document.activeElement.textContent)`;

describe.skipIf(skip !== null)(`the console's shell in Chromium${skip === null ? '' : ` (skipped: ${skip})`}`, () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());

  it('signs in once per browser: a deep link in a new tab opens signed in; signed out, it opens after sign-in', {
    timeout: timeLimit({ starts: 1, steps: 17 }),
  }, async () => {
    server = await fx.serve();
    await api('POST', '/prompts', { prompt_id: 'welcome', template: 'Hi {{name}}', labels: ['production'] });
    const page = await signedInPage(browser, server.origin, ADMIN);
    const tab = await page.context().newPage();
    await tab.goto(`${server.origin}/ui/prompts/welcome`);
    await tab.getByRole('heading', { name: 'welcome', level: 1 }).waitFor();
    expect(await tab.getByLabel('API key').count()).toBe(0);
    await page.close();

    // A browser with no session: the deep link asks for the key, then shows what it names, focused.
    const fresh = await browser.newPage();
    await fresh.goto(`${server.origin}/ui/prompts/welcome`);
    await fresh.getByLabel('API key').waitFor();
    expect(await fresh.evaluate(focused())).toBe('api-key');
    await fresh.keyboard.type(ADMIN);
    await fresh.keyboard.press('Enter');
    await fresh.getByRole('heading', { name: 'welcome', level: 1 }).waitFor();
    expect(new URL(fresh.url()).pathname).toBe('/ui/prompts/welcome');
    await expect.poll(() => fresh.evaluate(focused())).toBe('prompt-title');
    await fresh.close();
  });

  it('by keyboard: the skip link comes first and leads to the content; each page change moves focus to its heading', {
    timeout: timeLimit({ starts: 1, steps: 17 }),
  }, async () => {
    server = await fx.serve();
    await api('POST', '/prompts', { prompt_id: 'welcome', template: 'Hi {{name}}' });
    const page = await signedInPage(browser, server.origin, ADMIN);
    await page.reload();
    await page.getByRole('heading', { name: 'Prompts' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(focused())).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(focused())).toBe('main');
    await page.getByRole('link', { name: 'Experiments' }).click();
    await expect.poll(() => page.evaluate(focused())).toBe('experiments-title');
    await page.getByRole('link', { name: 'Runs' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(focused())).toBe('runs-title');
    await page.goBack();
    await expect.poll(() => page.evaluate(focused())).toBe('experiments-title');
    await page.close();
  });

  it('keeps the Prompts search and the Experiments filters in the URL, through a reload', { timeout: timeLimit({ starts: 1, steps: 24 }) }, async () => {
    server = await fx.serve();
    await api('POST', '/prompts', { prompt_id: 'welcome', template: 'Hi {{name}}' });
    await api('POST', '/prompts', { prompt_id: 'summary', template: 'Sum {{text}}' });
    await api('POST', '/experiments', {
      experiment_id: 'warmth',
      name: 'Warmth',
      prompt_id: 'welcome',
      variants: [
        { key: 'a', version: 1 },
        { key: 'b', version: 1 },
      ],
    });
    const page = await signedInPage(browser, server.origin, ADMIN);
    await page.getByLabel('Search').fill('summ');
    await expect.poll(() => new URL(page.url()).search).toBe('?q=summ');
    await page.reload();
    await page.getByRole('link', { name: 'summary' }).waitFor();
    expect(await page.getByLabel('Search').inputValue()).toBe('summ');
    expect(await page.getByRole('link', { name: 'welcome' }).count()).toBe(0);

    await page.goto(`${server.origin}/ui/experiments`);
    await page.getByRole('link', { name: 'Warmth' }).waitFor();
    await page.getByLabel('Status').selectOption('running');
    await page.getByLabel('Search').fill('warm');
    await expect.poll(() => new URL(page.url()).search).toBe('?status=running&q=warm');
    await expect.poll(() => page.getByRole('link', { name: 'Warmth' }).count()).toBe(0); // a draft, not running
    await page.reload();
    await page.getByRole('heading', { name: 'Experiments' }).waitFor();
    expect(await page.getByLabel('Status').inputValue()).toBe('running');
    expect(await page.getByLabel('Search').inputValue()).toBe('warm');
    await page.getByLabel('Status').selectOption('all');
    await page.getByRole('link', { name: 'Warmth' }).waitFor();
    expect(new URL(page.url()).search).toBe('?q=warm');
    await page.close();
  });

  it('sends its files compressed on the first load', { timeout: timeLimit({ starts: 1, steps: 2 }) }, async () => {
    server = await fx.serve();
    const transfer = await firstLoadTransfer(browser, `${server.origin}/ui/prompts`, (page) => page.getByRole('heading', { name: 'Prompts' }).waitFor(), ADMIN);
    console.log(`first load of /ui/prompts: ${transfer.bytes} bytes over the wire in ${transfer.files.length} files`);
    expect(transfer.files.length).toBeGreaterThanOrEqual(3);
    expect(transfer.files.map((f) => [f.path, f.encoding])).toEqual(transfer.files.map((f) => [f.path, 'br']));
  });
});
