import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pct } from '../../src/lib/numbers.js';
import { apiClient, browserMissing, launchChromium, signedInPage } from '../support/browser.js';
import { processFixtures, type RunningServer } from '../support/processes.js';
import { timeLimit } from '../support/timeLimits.js';

/**
 * A bandit's page in Chromium: after a check re-weighted it, the page charts the weights and the
 * probabilities of being best over time and lists the allocation history the API answers.
 */
const skip = browserMissing();
const ADMIN = 'pl_a_browser-bandit-admin-key-00000000000000';
const fx = processFixtures(ADMIN);

let server: RunningServer;
let browser: Browser;
const api = apiClient(() => server.origin, ADMIN);

describe.skipIf(skip !== null)(`a bandit's page in Chromium${skip === null ? '' : ` (skipped: ${skip})`}`, () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());

  it('charts the weights and P(best) over time and lists the allocation history', { timeout: timeLimit({ starts: 1, steps: 19 }) }, async () => {
    server = await fx.serve();
    await api('POST', '/prompts', { prompt_id: 'welcome', template: 'Hello.', labels: ['production'] });
    await api('POST', '/prompts/welcome/versions', { template: 'Hello, friend!' });
    const created = await api('POST', '/experiments', {
      experiment_id: 'bandit',
      prompt_id: 'welcome',
      type: 'bandit',
      variants: [
        { key: 'plain', version: 1 },
        { key: 'warm', version: 2 },
      ],
      metrics: [{ event_type: 'signup', kind: 'success_rate', role: 'primary' }],
    });
    expect(created.status).toBe(201);
    expect((await api('POST', '/experiments/bandit/start')).status).toBe(200);
    for (let i = 0; i < 80; i++) {
      const user = `user-${i}`;
      const variant = (await api('POST', '/get_prompt', { prompt_id: 'welcome', external_user_id: user })).json.variant_assigned as string;
      await api('POST', '/track_outcome', {
        prompt_id: 'welcome',
        external_user_id: user,
        event_type: 'signup',
        is_success: variant === 'warm' ? i % 2 === 0 : i % 10 === 0,
      });
    }
    expect((await api('POST', '/experiments/bandit/check')).json.action).toBe('reweight');
    const history = (await api('GET', '/experiments/bandit')).json.allocation_history as Array<{
      weights: Record<string, number>;
      p_best: Record<string, number> | null;
    }>;
    expect(history).toHaveLength(2);

    const page = await signedInPage(browser, server.origin, ADMIN);
    await page.goto(`${server.origin}/ui/experiments/bandit`);
    await page.getByRole('heading', { name: 'Bandit: weights over time' }).waitFor();
    await page.getByRole('img', { name: 'Share of new users per arm (%)' }).locator('canvas').waitFor();
    await page.getByRole('img', { name: 'Probability of being the best arm (%)' }).locator('canvas').waitFor();
    await page.getByText('Allocation history as a table').click();
    const rows = page.locator('table.bandit-history tbody tr');
    expect(await rows.count()).toBe(2);
    const last = history[1]!;
    expect((await rows.nth(1).locator('td').allTextContents()).slice(1)).toEqual([
      `${pct(last.weights.plain)} (${pct(last.p_best!.plain)})`,
      `${pct(last.weights.warm)} (${pct(last.p_best!.warm)})`,
    ]);
    expect((await rows.nth(0).locator('td').allTextContents()).slice(1)).toEqual(['50.0% (-)', '50.0% (-)']);
    expect(page.problems).toEqual([]);
    await page.close();
  });
});
