import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, browserMissing, expectAccessible, launchChromium, signedInPage } from '../support/browser.js';
import { processFixtures, type RunningServer } from '../support/processes.js';
import { STEP_MS, timeLimit } from '../support/timeLimits.js';

/**
 * A rollout's page in Chromium: a running one shows its ramp with the current step and its checks;
 * one whose guardrail got worse shows the rollback banner with the reason, and the check that rolled
 * it back with the guardrail's figures. Set up through the public API; checks asked for with
 * POST /experiments/{id}/check (what the scheduler does every hour).
 */
const skip = browserMissing();
const ADMIN = 'pl_a_browser-rollout-admin-key-0000000000000';
const fx = processFixtures(ADMIN);

let server: RunningServer;
let browser: Browser;
const api = apiClient(() => server.origin, ADMIN);
const SHOWN = { timeout: STEP_MS };

async function rollout(id: string, promptId: string, extra: Record<string, unknown> = {}) {
  await api('POST', '/prompts', { prompt_id: promptId, template: 'Hello.', labels: ['production'] });
  await api('POST', `/prompts/${promptId}/versions`, { template: 'Hello, friend!' });
  const created = await api('POST', '/experiments', { experiment_id: id, prompt_id: promptId, type: 'rollout', candidate_version: 2, ...extra });
  expect(created.status).toBe(201);
  expect((await api('POST', `/experiments/${id}/start`)).status).toBe(200);
}

/** 200 users: the candidate's users are happy 20% of the time, production's 80% (by rank in their variant). */
async function unhappyCandidate(promptId: string) {
  const ranks: Record<string, number> = {};
  for (let start = 0; start < 200; start += 25) {
    await Promise.all(
      Array.from({ length: 25 }, async (_, j) => {
        const user = `user-${start + j}`;
        const variant = (await api('POST', '/get_prompt', { prompt_id: promptId, external_user_id: user })).json.variant_assigned as string;
        const rank = (ranks[variant] ?? 0) + 1;
        ranks[variant] = rank;
        const happy = variant === 'candidate' ? rank % 10 < 2 : rank % 10 < 8;
        await api('POST', '/track_outcome', { prompt_id: promptId, external_user_id: user, event_type: 'thumbs', is_success: happy });
      }),
    );
  }
}

describe.skipIf(skip !== null)(`a rollout's page in Chromium${skip === null ? '' : ` (skipped: ${skip})`}`, () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());

  it('shows a running rollout: its ramp with the current step, and the check that held it', { timeout: timeLimit({ starts: 1, steps: 10 }) }, async () => {
    server = await fx.serve();
    await rollout('steady', 'greeting');
    expect((await api('POST', '/experiments/steady/check')).json.action).toBe('hold');
    const page = await signedInPage(browser, server.origin, ADMIN);
    await page.goto(`${server.origin}/ui/experiments/steady`);
    const current = page.locator('.rollout-steps li[aria-current="step"]');
    await expect.poll(() => current.textContent(), SHOWN).toMatch(/^5% — at least 100 users and 60 minutes · began .+ UTCcurrent$/);
    expect(await page.locator('.rollout-steps li').count()).toBe(4);
    await expect.poll(() => page.locator('table.rollout-checks tbody tr').first().textContent(), SHOWN).toMatch(/\(asked for\)hold1 \(5%\)0/);
    expect(await page.locator('.banner').count()).toBe(0);
    await expectAccessible(page);
  });

  it('shows the banner of a rollout its guardrail rolled back, with the reason and the figures of that check', {
    timeout: timeLimit({ starts: 1, steps: 12 }),
  }, async () => {
    server = await fx.serve();
    await rollout('unhappy', 'welcome', {
      metrics: [{ event_type: 'thumbs', kind: 'success_rate', role: 'guardrail' }],
      steps: [{ percent: 100, min_users: 100000, min_minutes: 0 }],
    });
    await unhappyCandidate('welcome');
    const check = (await api('POST', '/experiments/unhappy/check')).json;
    expect(check).toMatchObject({ action: 'rollback', status: 'rolled_back' });

    const page = await signedInPage(browser, server.origin, ADMIN);
    await page.goto(`${server.origin}/ui/experiments/unhappy`);
    const banner = page.getByRole('alert');
    await expect.poll(() => banner.textContent(), SHOWN).toBe(`Rolled back. ${check.reason} Production still serves v1.`);
    expect(await page.locator('h1 .status').textContent()).toBe('rolled_back');
    const row = page.locator('table.rollout-checks tbody tr.check-rollback');
    await expect.poll(() => row.locator('li.error').textContent(), SHOWN).toMatch(/^thumbs:success_rate: 0\.8\d* vs 0\.2\d* \[-[\d.]+, -[\d.]+\] — worse$/);
    expect(await row.locator('td').last().textContent()).toBe(check.reason);
    // Stopped for good: no action is offered.
    expect(await page.getByRole('button', { name: 'Pause' }).count()).toBe(0);
    await expectAccessible(page);
  });
});
