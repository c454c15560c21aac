import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, browserMissing, launchChromium, signedInPage, type WatchedPage } from '../support/browser.js';
import { processFixtures, type RunningServer } from '../support/processes.js';
import { timeLimit } from '../support/timeLimits.js';

/**
 * A prompt managed in Git in Chromium: an admin marks it with the switch, the page then says so,
 * and creating a version or moving a label there waits for a confirmation that names the conflict
 * the next `promptline prompts diff` will show. A read key sees the notice, not the switch.
 */
const skip = browserMissing();
const ADMIN = 'pl_a_browser-managed-git-admin-key-0000000';
const fx = processFixtures(ADMIN);

let server: RunningServer;
let browser: Browser;
const api = apiClient(() => server.origin, ADMIN);

const focusedTestId = (page: WatchedPage) => page.evaluate<string | null>("document.activeElement?.getAttribute('data-testid') ?? null");

describe.skipIf(skip !== null)(`managed in Git in Chromium${skip === null ? '' : ` (skipped: ${skip})`}`, () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());

  it('the switch marks the prompt; a new version and a label move then ask for a confirmation first', {
    timeout: timeLimit({ starts: 1, steps: 39 }),
  }, async () => {
    server = await fx.serve();
    await api('POST', '/prompts', { prompt_id: 'welcome', template: 'Hello {{name}}.', labels: ['production'] });
    const page = await signedInPage(browser, server.origin, ADMIN);
    await page.goto(`${server.origin}/ui/prompts/welcome`);
    await page.getByRole('heading', { name: 'welcome' }).waitFor();
    expect(await page.getByTestId('git-notice').count()).toBe(0);

    await page.getByLabel(/Managed in Git/).check();
    await page.getByTestId('git-notice').waitFor();
    expect(await page.getByTestId('git-notice').textContent()).toContain('a change made here will show as a conflict in the next promptline prompts diff');
    await page.getByRole('link', { name: 'Prompts' }).first().click();
    await page.getByText('(managed in Git)').waitFor();
    await page.getByRole('link', { name: 'welcome', exact: true }).click();
    await page.getByRole('heading', { name: 'welcome' }).waitFor();
    await expect.poll(async () => (await api('GET', '/prompts/welcome')).json.managed_in_git).toBe(true);

    // A new version: held until confirmed; Cancel makes nothing.
    await page.getByLabel('Template').fill('Hi {{name}}!');
    await page.getByRole('button', { name: 'Create version' }).click();
    await page.getByTestId('git-confirm').waitFor();
    await expect.poll(() => focusedTestId(page)).toBe('git-confirm');
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByTestId('git-confirm').count()).toBe(0);
    expect((await api('GET', '/prompts/welcome')).json.latest_version).toBe(1);
    await page.getByRole('button', { name: 'Create version' }).click();
    await page.getByRole('button', { name: 'Create the version anyway' }).click();
    await page.getByRole('heading', { name: 'welcome v2' }).waitFor();
    expect((await api('GET', '/prompts/welcome')).json.latest_version).toBe(2);

    // Promote v2: the label confirmation carries the same warning.
    await page.goto(`${server.origin}/ui/prompts/welcome`);
    await page.getByRole('button', { name: 'Promote v2 to production' }).click();
    await page.getByTestId('git-warning').waitFor();
    expect(await page.getByTestId('git-warning').textContent()).toContain('promptline prompts diff');
    await page.getByRole('button', { name: 'Confirm: promote v2' }).click();
    await expect.poll(async () => (await api('GET', '/prompts/welcome')).json.labels.production).toBe(2);

    // Unmarked: no notice, and a version is created at once.
    await page.getByLabel(/Managed in Git/).uncheck();
    await expect.poll(() => page.getByTestId('git-notice').count()).toBe(0);
    await page.getByLabel('Template').fill('Hey {{name}}');
    await page.getByRole('button', { name: 'Create version' }).click();
    await page.getByRole('heading', { name: 'welcome v3' }).waitFor();
    expect(page.problems).toEqual([]);
    await page.close();
  });

  it('a read key sees the notice but no switch', { timeout: timeLimit({ starts: 1, steps: 9 }) }, async () => {
    server = await fx.serve();
    await api('POST', '/prompts', { prompt_id: 'welcome', template: 'Hello {{name}}.' });
    await api('PATCH', '/prompts/welcome', { managed_in_git: true });
    const reader = (await api('POST', '/keys', { name: 'reader', role: 'read' })).json.key;
    const page = await signedInPage(browser, server.origin, reader);
    await page.goto(`${server.origin}/ui/prompts/welcome`);
    await page.getByTestId('git-notice').waitFor();
    expect(await page.getByLabel(/Managed in Git/).count()).toBe(0);
    expect(page.problems).toEqual([]);
    await page.close();
  });
});
