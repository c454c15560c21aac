import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, browserMissing, launchChromium, screenshot, signedInPage, type WatchedPage } from '../support/browser.js';
import { processFixtures, type RunningServer } from '../support/processes.js';
import { timeLimit } from '../support/timeLimits.js';

/**
 * Every label on the prompt page (create, move, delete, promote) and the experiment page's Start,
 * in a real headless Chromium against the built server: each change shows what the impact API says
 * of recent calls (made here with a runtime key) and, when some would fail, waits for a tick.
 */
const skip = browserMissing();
const ADMIN = 'pl_a_browser-labels-admin-key-00000000000000';
const fx = processFixtures(ADMIN);

let server: RunningServer;
let browser: Browser;
let runtimeKey: string;
const api = apiClient(() => server.origin, ADMIN);

/**
 * A server of the test's own (the fixtures stop it after each test), its summary of input names
 * written every 50 ms (5 s by default), and a runtime key for the callers.
 */
async function serve() {
  server = await fx.serve(undefined, { PROMPTLINE_INPUT_SUMMARY_FLUSH_MS: '50' });
  runtimeKey = (await api('POST', '/keys', { name: 'app', role: 'runtime' })).json.key;
}

/** agent: v1 needs name (production), v2 also agent_name, v3 name only; 4 recent calls sent only name. */
async function agentPrompt() {
  await api('POST', '/prompts', { prompt_id: 'agent', template: 'Hi {{name}}', labels: ['production'] });
  await api('POST', '/prompts/agent/versions', { template: 'Hi {{name}}, I am {{agent_name}}' });
  await api('POST', '/prompts/agent/versions', { template: 'Hello {{name}}' });
  await callersSendingOnlyName('agent', 4);
}

/** `calls` calls to /get_prompt that send only `name` and no user id, then waits until the summary has them. */
async function callersSendingOnlyName(promptId: string, calls: number) {
  for (let i = 0; i < calls; i++) expect((await api('POST', '/get_prompt', { prompt_id: promptId, inputs: { name: `n${i}` } }, runtimeKey)).status).toBe(200);
  // The summary is written on a timer: wait (outside a test's expect.poll) until the API counts them.
  for (let tries = 0; (await api('GET', `/prompts/${promptId}/versions/1/impact`)).json.calls !== calls; tries++) {
    if (tries === 200) throw new Error(`the impact of ${promptId} never counted ${calls} calls`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The focused element as `tag` or `tag[role]` (evaluated in the page, as a string: the tests have no DOM types). */
const focused = (page: WatchedPage) =>
  page.evaluate<string | null>(
    "(() => { const el = document.activeElement; if (el === null) return null; const role = el.getAttribute('role'); return el.tagName.toLowerCase() + (role === null ? '' : '[' + role + ']'); })()",
  );

describe.skipIf(skip !== null)(`labels and Start in Chromium${skip === null ? '' : ` (skipped: ${skip})`}`, () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());

  it('creates, moves and deletes a label, each confirmed, with the impact shown and a tick required when calls would fail', {
    timeout: timeLimit({ starts: 1, steps: 36 }),
  }, async () => {
    await serve();
    await agentPrompt();
    const page = await signedInPage(browser, server.origin, ADMIN);
    await page.goto(`${server.origin}/ui/prompts/agent`);
    await page.getByRole('heading', { name: 'agent' }).waitFor();
    expect(await page.locator('tr[data-label="production"]').textContent()).toContain('v1');

    // Create staging on v3: nothing new is needed, so no tick.
    await page.getByLabel('New label').fill('Bad Label');
    expect(await page.getByRole('button', { name: 'Create label…' }).isDisabled()).toBe(true);
    await page.getByLabel('New label').fill('staging');
    await page.getByLabel('On version').selectOption('3');
    await page.getByRole('button', { name: 'Create label…' }).click();
    await expect.poll(() => focused(page)).toBe('fieldset');
    await page.getByTestId('impact').waitFor();
    expect(await page.getByTestId('impact').textContent()).toContain("'staging' points at no version yet. In the last 24 h: 4 calls, 4 without a user id.");
    expect(await page.getByLabel(/I understand/).count()).toBe(0);
    await page.getByRole('button', { name: 'Confirm: create staging on v3' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('staging now points at v3.');
    expect(await focused(page)).toBe('p[status]');
    expect((await api('GET', '/prompts/agent')).json.labels).toEqual({ production: 1, staging: 3 });

    // Move staging to v2, which needs agent_name that no caller sends: the tick is required.
    await page.getByLabel('Version for staging').selectOption('2');
    await page.getByRole('button', { name: 'Move staging…' }).click();
    await page.getByTestId('impact').waitFor();
    expect(await page.getByTestId('impact').getByRole('alert').textContent()).toBe(
      '4 of 4 calls in the last 24 h sent no agent_name: version 2 would answer them 422',
    );
    const confirmMove = page.getByRole('button', { name: 'Confirm: move staging to v2' });
    expect(await confirmMove.isDisabled()).toBe(true);
    await screenshot(page, 'label-move-impact');
    await page.getByLabel('I understand 4 calls would fail').check();
    await confirmMove.click();
    await expect.poll(async () => (await api('GET', '/prompts/agent')).json.labels.staging).toBe(2);
    await expect.poll(() => page.getByRole('status').textContent()).toBe('staging now points at v2.');

    // Delete staging.
    await page.getByRole('button', { name: 'Delete staging…' }).click();
    await expect.poll(() => focused(page)).toBe('fieldset');
    await page.getByRole('button', { name: 'Confirm: delete staging' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Label staging deleted.');
    expect((await api('GET', '/prompts/agent')).json.labels).toEqual({ production: 1 });
    expect(await page.locator('tr[data-label="staging"]').count()).toBe(0);
    expect(page.problems).toEqual([]);
  });

  it('says what Promote does to the traffic of a running experiment, and requires the tick', { timeout: timeLimit({ starts: 1, steps: 17 }) }, async () => {
    await serve();
    await agentPrompt();
    await api('POST', '/experiments', {
      experiment_id: 'greeting',
      prompt_id: 'agent',
      variants: [
        { key: 'a', version: 1 },
        { key: 'b', version: 3 },
      ],
    });
    expect((await api('POST', '/experiments/greeting/start')).status).toBe(200);
    const page = await signedInPage(browser, server.origin, ADMIN);
    await page.goto(`${server.origin}/ui/prompts/agent`);
    await page.getByTestId('running-experiment').waitFor();
    expect(await page.getByTestId('running-experiment').textContent()).toContain('Experiment greeting is running on this prompt');
    await page.getByRole('button', { name: 'Promote v2 to production' }).click();
    await page.getByTestId('experiment-traffic').waitFor();
    expect(await page.getByTestId('experiment-traffic').textContent()).toBe(
      "Experiment greeting is running on this prompt and covers every user: they keep getting their variant's version, so v2 is served to nobody until the experiment is paused or stopped. Calls without external_user_id are refused (422) while it runs.",
    );
    const confirm = page.getByRole('button', { name: 'Confirm: promote v2' });
    expect(await confirm.isDisabled()).toBe(true);
    await page.getByLabel('I understand 4 calls would fail').check();
    await confirm.click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('production now points at v2.');
    expect(await focused(page)).toBe('p[status]');
    expect((await api('GET', '/prompts/agent')).json.labels.production).toBe(2);
    expect(page.problems).toEqual([]);
  });

  it("shows Start the impact of each variant's version and waits for the tick", { timeout: timeLimit({ starts: 1, steps: 17 }) }, async () => {
    await serve();
    await api('POST', '/prompts', { prompt_id: 'bot', template: 'Hi {{name}}', labels: ['production'] });
    await api('POST', '/prompts/bot/versions', { template: 'Hi {{name}} {{tone}}' });
    await callersSendingOnlyName('bot', 3);
    await api('POST', '/experiments', {
      experiment_id: 'tone',
      prompt_id: 'bot',
      variants: [
        { key: 'a', version: 1 },
        { key: 'b', version: 2 },
      ],
    });
    const page = await signedInPage(browser, server.origin, ADMIN);
    await page.goto(`${server.origin}/ui/experiments/tone`);
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByTestId('start-impact').waitFor();
    await expect.poll(() => focused(page)).toBe('legend'); // the confirmation's, which says what Start does
    await expect
      .poll(() => page.getByTestId('start-impact').locator('li').allTextContents())
      .toEqual([
        'a (v1): needs no input that production (v1) does not; 3 calls in the last 24 h.',
        'b (v2): 3 of 3 calls in the last 24 h sent no tone: version 2 would answer them 422',
      ]);
    expect(await page.getByTestId('start-impact').textContent()).toContain(
      '3 of 3 calls in the last 24 h sent no external_user_id: while the experiment runs, such calls answer 422.',
    );
    const confirm = page.getByRole('button', { name: 'Confirm: start' });
    expect(await confirm.isDisabled()).toBe(true);
    await page.getByLabel('I understand at least 3 calls would fail').check();
    await confirm.click();
    await expect.poll(async () => (await api('GET', '/experiments/tone')).json.status).toBe('running');
    expect(page.problems).toEqual([]);
  });
});
