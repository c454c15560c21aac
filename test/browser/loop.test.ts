import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_EXPERIMENT, DEMO_PROMPT, driveDemoTraffic } from '../../scripts/demoExperiment.js';
import { apiClient, browserMissing, launchChromium, screenshot, watchedPage } from '../support/browser.js';
import { processFixtures, type RunningServer } from '../support/processes.js';
import { STEP_MS, timeLimit } from '../support/timeLimits.js';

/**
 * The whole loop a prompt owner walks, in Chromium against the built server on a temporary SQLite
 * file: sign in, create a prompt and a second version, compare them, try the prompt, create and
 * start an experiment, let users arrive through the runtime API, read the results (the same as
 * the JSON API's), stop and ship the winner, and see callers served it.
 */
const skip = browserMissing();
const ADMIN = 'pl_a_browser-loop-admin-key-0000000000000000';
const fx = processFixtures(ADMIN);
/** Results are computed on demand: on a loaded machine the first answer can take seconds. */
const RESULTS = { timeout: STEP_MS };

let server: RunningServer;
let browser: Browser;
const api = apiClient(() => server.origin, ADMIN);

describe.skipIf(skip !== null)(`the prompt owner's whole loop in Chromium${skip === null ? '' : ` (skipped: ${skip})`}`, () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());

  it('edit → test → experiment → read → ship, in the browser only', { timeout: timeLimit({ starts: 1, steps: 59 }) }, async () => {
    server = await fx.serve();
    const page = await watchedPage(browser);
    // Offline by construction: nothing the console loads or calls comes from another origin.
    const elsewhere: string[] = [];
    page.on('request', (r) => !r.url().startsWith(`${server.origin}/`) && !r.url().startsWith('data:') && elsewhere.push(r.url()));

    // Sign in.
    await page.goto(`${server.origin}/`);
    await page.getByLabel('API key').fill(ADMIN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Prompts' }).waitFor();

    // A prompt: a bad id is the API's 422 under the id field, and nothing is made.
    await page.getByRole('button', { name: 'New prompt' }).click();
    await page.getByLabel('Prompt id').fill('not a valid id');
    await page.getByLabel('Template').fill('Write a one-line welcome for {{name}}.');
    await page.getByLabel('Model', { exact: true }).fill('echo/echo');
    await page.getByRole('button', { name: 'Create prompt' }).click();
    await expect.poll(() => page.locator('#new-prompt-id ~ .field-error').textContent()).toMatch(/pattern|match/i);
    expect((await api('GET', '/prompts')).json.data).toEqual([]);
    await page.getByLabel('Prompt id').fill(DEMO_PROMPT);
    await page.getByLabel('Description').fill('The first line a new user reads');
    await page.getByRole('button', { name: 'Create prompt' }).click();
    await page.getByRole('heading', { name: DEMO_PROMPT }).waitFor();
    expect((await api('GET', `/prompts/${DEMO_PROMPT}`)).json).toMatchObject({ latest_version: 1, labels: { production: 1 } });

    // A second version, warmer; then the two compared word by word.
    await page.getByLabel('Template').fill('Write a warm, one-line welcome for {{name}}, who just joined {{team}}.');
    await expect.poll(() => page.getByText(/^Variables:/).textContent()).toBe('Variables: name, team');
    await page.getByLabel('Commit message').fill('warmer, and names the team');
    await page.getByRole('button', { name: 'Create version' }).click();
    await page.getByRole('heading', { name: `${DEMO_PROMPT} v2` }).waitFor();
    await page.goto(`${server.origin}/ui/prompts/${DEMO_PROMPT}`);
    await page.getByRole('heading', { name: 'Compare versions' }).waitFor();
    await expect.poll(() => page.locator('pre.diff ins').allTextContents()).toEqual(expect.arrayContaining(['warm, ']));

    // The playground serves production (v1) and runs it through the echo model.
    await page.getByLabel('name', { exact: true }).fill('Ada');
    await page.getByRole('button', { name: 'Run' }).click();
    await expect.poll(() => page.locator('pre.output').textContent()).toBe('Write a one-line welcome for Ada.');

    // An experiment through the form: v1 (production) against v2 (newest), judged on signups.
    await page.getByRole('link', { name: 'Experiments' }).click();
    await page.getByRole('button', { name: 'New experiment' }).click();
    await page.getByLabel('Prompt', { exact: true }).selectOption(DEMO_PROMPT);
    await page.getByLabel('Variant 1 key').waitFor();
    await page.getByLabel('Experiment id (optional)').fill(DEMO_EXPERIMENT);
    await page.getByLabel('Name').fill('Warmer welcome');
    await page.getByLabel('Variant 2 key').fill('warm');
    await page.getByLabel('Metric 1 event type').fill('signup');
    await page.getByRole('button', { name: 'Add metric' }).click();
    await page.getByLabel('Metric 2 event type').fill('regenerate');
    await page.getByLabel('Metric 2 kind').selectOption('mean');
    await page.getByLabel('Metric 2 better when').selectOption('lower');
    await page.getByRole('button', { name: 'Create experiment' }).click();
    await page.getByRole('heading', { name: /Warmer welcome/ }).waitFor();
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('button', { name: 'Confirm: start' }).click();
    await expect.poll(() => page.locator('h1 .status').textContent(), RESULTS).toBe('running');

    // Users arrive through the runtime API; the page then shows what the results API says.
    const perVariant = await driveDemoTraffic({ origin: server.origin, adminKey: ADMIN }, 300);
    await page.reload();
    const results = (await api('GET', `/experiments/${DEMO_EXPERIMENT}/results`)).json;
    expect(results.variants.map((v: { key: string; users: number }) => [v.key, v.users])).toEqual([
      ['control', perVariant.control],
      ['warm', perVariant.warm],
    ]);
    for (const v of results.variants) {
      await expect.poll(() => page.locator(`table.variants-summary tr[data-variant="${v.key}"] td.users`).textContent(), RESULTS).toBe(String(v.users));
    }
    for (const metric of results.metrics) {
      for (const comparison of metric.comparisons) {
        const row = page.locator(`table.scorecard[data-section="goal"] tr[data-metric="${metric.name}"][data-variant="${comparison.variant}"]`);
        expect(await row.locator('td.verdict').textContent()).toBe(comparison.verdict.replaceAll('_', ' '));
      }
    }
    const [decision] = results.decisions;
    expect(decision).toMatchObject({ variant: 'warm', decision: 'ship' });
    expect(await page.locator('.decisions li[data-variant="warm"]').textContent()).toBe(`Ship warm: ${decision.reason}`);
    await screenshot(page, 'loop-results');

    // Stop and ship the winner; callers are served it from then on.
    await page.getByRole('button', { name: 'Stop and ship…' }).click();
    expect(await page.getByLabel('Winner').inputValue()).toBe('warm');
    await page.getByRole('button', { name: 'Confirm: stop and ship warm' }).click();
    await expect.poll(() => page.locator('h1 .status').textContent(), RESULTS).toBe('stopped');
    const served = await api('POST', '/get_prompt', { prompt_id: DEMO_PROMPT, inputs: { name: 'Grace', team: 'Ops' }, external_user_id: 'someone-new' });
    expect(served.json).toMatchObject({
      prompt_version: 2,
      variant_assigned: null,
      prompt_text: 'Write a warm, one-line welcome for Grace, who just joined Ops.',
    });

    expect(page.problems.filter((p) => !p.includes('422'))).toEqual([]); // the deliberate 422 is logged by the browser
    expect(page.dialogs).toEqual([]);
    expect(elsewhere).toEqual([]);
    await page.close();
  });
});
