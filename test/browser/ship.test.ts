import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, browserMissing, launchChromium, signedInPage } from '../support/browser.js';
import { processFixtures, type RunningServer } from '../support/processes.js';
import { STEP_MS, timeLimit } from '../support/timeLimits.js';

/**
 * The ship dialog in Chromium: it offers first the winner the results decide to ship, with that
 * decision and its reason; a winner they do not back turns the dialog into an override that asks
 * for a reason and the experiment id typed back, and sends both. A draft offers no Stop at all.
 */
const skip = browserMissing();
const ADMIN = 'pl_a_browser-ship-dialog-admin-key-0000000000';
const fx = processFixtures(ADMIN);

let server: RunningServer;
let browser: Browser;
const api = apiClient(() => server.origin, ADMIN);
const RESULTS = { timeout: STEP_MS };

async function experiment(id: string, start: boolean) {
  await api('POST', '/prompts', { prompt_id: 'welcome', template: 'Hello.', labels: ['production'] });
  await api('POST', '/prompts/welcome/versions', { template: 'Hello, friend!' });
  const variants = [
    { key: 'control', version: 1 },
    { key: 'warm', version: 2 },
  ];
  const created = await api('POST', '/experiments', {
    experiment_id: id,
    prompt_id: 'welcome',
    variants,
    primary_metric: { event_type: 'signup', kind: 'success_rate' },
  });
  expect(created.status).toBe(201);
  if (start) expect((await api('POST', `/experiments/${id}/start`)).status).toBe(200);
}

/** 240 users: "warm" converts 45% of the time, control 20% (by each user's rank in their variant). */
async function warmWins() {
  const ranks: Record<string, number> = {};
  for (let start = 0; start < 240; start += 24) {
    await Promise.all(
      Array.from({ length: 24 }, async (_, j) => {
        const user = `user-${start + j}`;
        const variant = (await api('POST', '/get_prompt', { prompt_id: 'welcome', external_user_id: user })).json.variant_assigned as string;
        const rank = (ranks[variant] ?? 0) + 1;
        ranks[variant] = rank;
        const converts = variant === 'warm' ? rank % 20 < 9 : rank % 20 < 4;
        await api('POST', '/track_outcome', { prompt_id: 'welcome', external_user_id: user, event_type: 'signup', is_success: converts });
      }),
    );
  }
}

/** Whether the focused element is inside (or is) the element `selector` names. */
const focusedIn = (page: Page, selector: string) =>
  page.evaluate(`document.activeElement !== document.body && document.activeElement?.closest(${JSON.stringify(selector)}) !== null`);

describe.skipIf(skip !== null)(`the ship dialog in Chromium${skip === null ? '' : ` (skipped: ${skip})`}`, () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());

  it("pre-selects the decision's winner with its reason, and ships against it only as an override with a reason and the id typed back", {
    timeout: timeLimit({ starts: 1, steps: 26 }),
  }, async () => {
    server = await fx.serve();
    await experiment('warmth', true);
    await warmWins();
    const decision = (await api('GET', '/experiments/warmth/results')).json.decisions[0];
    expect(decision).toMatchObject({ variant: 'warm', decision: 'ship' });

    const page = await signedInPage(browser, server.origin, ADMIN);
    await page.goto(`${server.origin}/ui/experiments/warmth`);
    await page.getByRole('button', { name: 'Stop and ship…' }).click();
    await expect.poll(() => page.getByLabel('Winner').inputValue(), RESULTS).toBe('warm');
    await expect.poll(() => page.locator('.ship-decision').textContent(), RESULTS).toBe(`Ship (warm): ${decision.reason}`);
    expect(await focusedIn(page, '.ship-dialog')).toBe(true);
    expect(await page.getByLabel('Reason for the override').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Confirm: stop and ship warm' }).isEnabled()).toBe(true);

    // Keeping control goes against warm's "ship": an override, asked for its reason and the id.
    await page.getByLabel('Winner').selectOption('control');
    await expect.poll(() => page.locator('.ship-decision').textContent()).toBe(`Ship (warm): ${decision.reason}`);
    const confirm = page.getByRole('button', { name: 'Confirm: override and ship control' });
    expect(await confirm.isDisabled()).toBe(true);
    await page.getByLabel('Reason for the override').fill('The warm wording is not approved by legal yet.');
    expect(await confirm.isDisabled()).toBe(true);
    await page.getByLabel(/Type the experiment id/).fill('warmt');
    expect(await confirm.isDisabled()).toBe(true);
    await page.getByLabel(/Type the experiment id/).fill('warmth');
    await confirm.click();

    await expect
      .poll(() => page.locator('.actions [role="status"]').textContent(), RESULTS)
      .toBe('The experiment is stopped and its winner shipped. Production now serves v1.');
    expect(await focusedIn(page, '.actions [role="status"]')).toBe(true);
    expect((await api('GET', '/experiments/warmth')).json).toMatchObject({ status: 'stopped', winner: 'control', shipped_version: 1 });
    const audited = (await api('GET', '/audit?target_id=warmth&action=experiment.stopped')).json.data[0];
    expect(audited.after).toMatchObject({ override: true, reason: 'The warm wording is not approved by legal yet.' });
    expect(page.problems).toEqual([]);
    await page.close();
  });

  it('offers only Start on a draft: it served nobody, so there is nothing to stop or ship', { timeout: timeLimit({ starts: 1, steps: 10 }) }, async () => {
    server = await fx.serve();
    await experiment('draft-one', false);
    const page = await signedInPage(browser, server.origin, ADMIN);
    await page.goto(`${server.origin}/ui/experiments/draft-one`);
    await page.getByRole('button', { name: 'Start' }).waitFor();
    expect(await page.locator('.actions .toolbar button').allTextContents()).toEqual(['Start']);
    // Once paused (after running), stopping is offered again.
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('button', { name: 'Confirm: start' }).click();
    await expect.poll(() => page.locator('.actions .toolbar button').allTextContents(), RESULTS).toEqual(['Pause', 'Stop', 'Stop and ship…']);
    expect(page.problems).toEqual([]);
    await page.close();
  });
});
