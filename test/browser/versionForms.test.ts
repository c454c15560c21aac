import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, browserMissing, launchChromium, signedInPage } from '../support/browser.js';
import { processFixtures, type RunningServer } from '../support/processes.js';
import { timeLimit } from '../support/timeLimits.js';

/**
 * The new-prompt and new-version forms in Chromium: an empty template is refused (the API's 422,
 * shown under the field, nothing made), and the errors shown are those of the latest submit only.
 */
const skip = browserMissing();
const ADMIN = 'pl_a_browser-version-forms-admin-key-000000';
const fx = processFixtures(ADMIN);

let server: RunningServer;
let browser: Browser;
const api = apiClient(() => server.origin, ADMIN);

// Adjacent siblings: every field's error follows its control directly (a general sibling would match the next fields' too).
const errorUnder = (control: string) => `${control} + .field-error`;

describe.skipIf(skip !== null)(`the version forms in Chromium${skip === null ? '' : ` (skipped: ${skip})`}`, () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());

  it('refuses an empty template for a new prompt and a blank one for a new version, under the Template field, and makes nothing', {
    timeout: timeLimit({ starts: 1, steps: 20 }),
  }, async () => {
    server = await fx.serve();
    const page = await signedInPage(browser, server.origin, ADMIN);
    await page.getByRole('button', { name: 'New prompt' }).click();
    await page.getByLabel('Prompt id').fill('welcome');
    await page.getByRole('button', { name: 'Create prompt' }).click();
    await expect.poll(() => page.locator(errorUnder('#template')).textContent()).toContain('the template is empty');
    expect((await api('GET', '/prompts')).json.data).toEqual([]);

    await page.getByLabel('Template').fill('Hello {{name}}.');
    await page.getByRole('button', { name: 'Create prompt' }).click();
    await page.getByRole('heading', { name: 'welcome' }).waitFor();
    await page.getByLabel('Template').fill('  \n ');
    await page.getByRole('button', { name: 'Create version' }).click();
    await expect.poll(() => page.locator(errorUnder('#template')).textContent()).toContain('the template is empty');
    expect((await api('GET', '/prompts/welcome')).json.latest_version).toBe(1);

    // A chat version whose every message is empty: the same hole, shown under the messages.
    await page.getByLabel('Chat messages').check();
    await page.getByLabel('Content of message 1').fill('');
    await page.getByRole('button', { name: 'Create version' }).click();
    await expect.poll(() => page.locator('fieldset:has(#content-0) > .field-error').textContent()).toContain("every message's content is empty");
    expect((await api('GET', '/prompts/welcome')).json.latest_version).toBe(1);
    expect(page.problems.filter((p) => !p.includes('422'))).toEqual([]); // the deliberate 422s are logged by the browser
    await page.close();
  });

  it("shows only the latest submit's errors: a fixed template's error goes when the next submit fails on Parameters", {
    timeout: timeLimit({ starts: 1, steps: 15 }),
  }, async () => {
    server = await fx.serve();
    await api('POST', '/prompts', { prompt_id: 'welcome', template: 'Hello {{name}}.', labels: ['production'] });
    const page = await signedInPage(browser, server.origin, ADMIN);
    await page.goto(`${server.origin}/ui/prompts/welcome`);
    await page.getByLabel('Template').fill('Hello {{#user}}');
    await page.getByRole('button', { name: 'Create version' }).click();
    await expect.poll(() => page.locator(errorUnder('#template')).textContent()).toContain('Unclosed section');

    await page.getByLabel('Template').fill('Hello {{user}}');
    await page.getByLabel('Parameters (JSON)').fill('{"temperature": ');
    await page.getByRole('button', { name: 'Create version' }).click();
    await expect.poll(() => page.locator(errorUnder('#params')).textContent()).toContain('Parameters must be a JSON object');
    expect(await page.locator(errorUnder('#template')).count()).toBe(0);
    expect(await page.locator('.field-error').allTextContents()).toEqual(['Parameters must be a JSON object, e.g. {"temperature": 0.2}']);
    expect((await api('GET', '/prompts/welcome')).json.latest_version).toBe(1);
    expect(page.problems.filter((p) => !p.includes('422'))).toEqual([]);
    await page.close();
  });
});
