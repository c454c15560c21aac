import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixed, pct, pValue, range, relPct } from '../../src/lib/numbers.js';
import { apiClient, browserMissing, launchChromium, signedInPage } from '../support/browser.js';
import { processFixtures, type RunningServer } from '../support/processes.js';
import { STEP_MS, timeLimit } from '../support/timeLimits.js';

/**
 * The experiment pages' bugs, each checked in Chromium against the built server and what
 * GET /experiments/{id}/results answers: the form sends the control it shows, small values keep
 * their digits, the page shows the interval and the p-value the API computed for the chosen
 * settings, exploratory metrics have a toggle kept in the URL, a young experiment is charted by
 * the hour, and the focus follows each action.
 */
const skip = browserMissing();
const ADMIN = 'pl_a_browser-results-admin-key-00000000000';
const fx = processFixtures(ADMIN);

let server: RunningServer;
let browser: Browser;
const api = apiClient(() => server.origin, ADMIN);
/** Results are computed off the request thread: the first answer can take a few seconds on a busy machine. */
const RESULTS = { timeout: STEP_MS };

const cell = (page: Page, section: string, variant: string, column: string, metric?: string) =>
  page
    .locator(`table.scorecard[data-section="${section}"] tr${metric === undefined ? '' : `[data-metric="${metric}"]`}[data-variant="${variant}"] td.${column}`)
    .first();
const headers = (page: Page, section: string) => page.locator(`table.scorecard[data-section="${section}"] thead th`).allTextContents();
/** The id of the element with the focus (this file has no DOM types, hence the cast). */
const focusedId = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id ?? null);

async function twoVersions() {
  await api('POST', '/prompts', { prompt_id: 'welcome', template: 'Hello.', labels: ['production'] });
  await api('POST', '/prompts/welcome/versions', { template: 'Hello, friend!', commit_message: 'warmer' });
}

/**
 * 400 users through the runtime API: "warm" converts 30% of the time, control 20%; everyone spends a
 * few hundred-thousandths of a dollar (warm about 27% more); a tenth complain; a third give a thumbs
 * up, an event type no metric declares.
 */
async function drivePopulation(users = 400) {
  for (let start = 0; start < users; start += 25) {
    await Promise.all(
      Array.from({ length: Math.min(25, users - start) }, async (_, j) => {
        const i = start + j;
        const user = `user-${i}`;
        const variant = (await api('POST', '/get_prompt', { prompt_id: 'welcome', external_user_id: user })).json.variant_assigned as string;
        const track = (body: Record<string, unknown>) => api('POST', '/track_outcome', { prompt_id: 'welcome', external_user_id: user, ...body });
        await track({ event_type: 'signup', is_success: variant === 'warm' ? i % 20 < 6 : i % 20 < 4 });
        const spend = (variant === 'warm' ? 0.0000399 : 0.0000314) * (1 + (i % 7) / 50);
        await track({ event_type: 'spend', numeric_value: spend });
        if (i % 10 === 0) await track({ event_type: 'complaint', is_success: true });
        if (i % 3 === 0) await track({ event_type: 'thumbs', is_success: true });
      }),
    );
  }
}

/** Users first exposed hours ago, written into the server's SQLite file as its own assignments would be. */
function earlierExposures(dataDir: string, experimentId: string, hoursAgo: number[]) {
  const db = new Database(path.join(dataDir, 'promptline.db'));
  try {
    const { project_id: projectId } = db.prepare('SELECT project_id FROM experiments WHERE id = ?').get(experimentId) as { project_id: string };
    const insert = db.prepare(
      'INSERT INTO assignments (project_id, experiment_id, external_user_id, variant, first_seen, last_seen, calls) VALUES (?, ?, ?, ?, ?, ?, 1)',
    );
    for (const [i, hours] of hoursAgo.entries()) {
      const at = new Date(Date.now() - hours * 3_600_000).toISOString();
      for (const variant of ['control', 'warm']) insert.run(projectId, experimentId, `early-${i}-${variant}`, variant, at, at);
    }
  } finally {
    db.close();
  }
}

describe.skipIf(skip !== null)(`the experiment pages in Chromium${skip === null ? '' : ` (skipped: ${skip})`}`, () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());

  it('sends the control the form shows after its key is renamed, and focuses the new experiment', {
    timeout: timeLimit({ starts: 1, steps: 16 }),
  }, async () => {
    server = await fx.serve();
    await twoVersions();
    const page = await signedInPage(browser, server.origin, ADMIN);
    await page.goto(`${server.origin}/ui/experiments`);
    await page.getByRole('button', { name: 'New experiment' }).click();
    await expect.poll(() => focusedId(page)).toBe('new-experiment-title');
    await page.getByLabel('Prompt', { exact: true }).selectOption('welcome');
    await page.getByLabel('Experiment id (optional)').fill('renamed');
    await page.getByLabel('Variant 1 key').fill('current');
    const control = page.getByLabel('Control', { exact: true });
    expect(await control.locator('option:checked').textContent()).toBe('current');
    await page.getByLabel('Metric 1 event type').fill('signup');
    await page.getByRole('button', { name: 'Create experiment' }).click();
    await page.getByRole('heading', { level: 1, name: /renamed/ }).waitFor();
    expect((await api('GET', '/experiments/renamed')).json).toMatchObject({ control: 'current', variants: [{ key: 'current' }, { key: 'treatment' }] });
    await expect.poll(() => focusedId(page)).toBe('experiment-title');
    expect(page.problems).toEqual([]);
    await page.close();
  });

  it('shows what the API computed for the chosen settings: digits, Bayesian interval, one p-value, exploratory metrics, hourly charts', {
    timeout: timeLimit({ starts: 1, steps: 43 }),
  }, async () => {
    const dataDir = fx.dataDir();
    server = await fx.serve(dataDir);
    await twoVersions();
    await api('POST', '/experiments', {
      experiment_id: 'tuned',
      name: 'Tuned',
      prompt_id: 'welcome',
      variants: [
        { key: 'control', version: 1 },
        { key: 'warm', version: 2 },
      ],
      metrics: [
        { event_type: 'signup', kind: 'success_rate', role: 'primary' },
        { event_type: 'complaint', kind: 'success_rate', role: 'secondary', direction: 'lower' },
        { event_type: 'spend', kind: 'mean', role: 'guardrail', direction: 'lower' },
      ],
    });
    expect((await api('POST', '/experiments/tuned/start')).status).toBe(200);
    earlierExposures(dataDir, 'tuned', [3, 2]);
    await drivePopulation();
    const results = async (query = '') => (await api('GET', `/experiments/tuned/results${query}`)).json;

    const page = await signedInPage(browser, server.origin, ADMIN);
    await page.goto(`${server.origin}/ui/experiments/tuned`);
    const flat = await results();
    await expect.poll(() => cell(page, 'goal', 'warm', 'lift').textContent(), RESULTS).toBe(pct(flat.metrics[0].comparisons[0].relative.lift, true));

    // 4. Small values keep their digits: the guardrail's means, $0.0000314 against $0.0000399, not 0.0000 twice.
    const spend = flat.guardrails[0];
    for (const v of spend.variants) {
      // The value, then the ratio it is made of (sum over users) below it.
      const shown = await cell(page, 'guardrail', v.key, 'value').textContent();
      expect(shown).toBe(`${fixed(v.value)}${fixed(v.sum)} / ${v.n}`);
      expect(fixed(v.value)).toMatch(/^0\.0000[1-9]\d\d$/);
    }

    // 5. The proper prior: the Bayesian interval (and chance to win) the API computed under it.
    const flatCredible = range(flat.metrics[0].comparisons[0].bayes.ci, relPct);
    expect(await cell(page, 'goal', 'warm', 'credible').textContent()).toBe(flatCredible);
    await page.getByRole('checkbox', { name: /Proper prior/ }).check();
    await expect.poll(() => page.url()).toContain('prior=proper');
    const proper = (await results('?prior=proper')).metrics[0].comparisons[0];
    await expect.poll(() => cell(page, 'goal', 'warm', 'credible').textContent(), RESULTS).toBe(range(proper.bayes.ci, relPct));
    expect(range(proper.bayes.ci, relPct)).not.toBe(flatCredible);
    expect(await cell(page, 'goal', 'warm', 'chance').textContent()).toBe(pct(proper.bayes.chance_to_win));
    expect(await headers(page, 'goal')).toContain('95% credible interval (proper prior)');

    // 6. Sequential: one p-value, the one the verdict sentence reads, labelled as adjusted.
    await page.getByRole('checkbox', { name: /Sequential/ }).check();
    await expect.poll(() => page.url()).toContain('sequential=true');
    const sequential = (await results('?prior=proper&sequential=true')).metrics[0].comparisons[0];
    expect(sequential.verdict_p_kind).toBe('sequential_holm_adjusted');
    expect(sequential.verdict_p_value).toBe(sequential.p_value_adjusted);
    expect(pValue(sequential.p_value_adjusted)).not.toBe(pValue(sequential.sequential.p_value)); // two goal metrics: Holm moves it
    await expect.poll(() => cell(page, 'goal', 'warm', 'p', 'signup:success_rate').textContent(), RESULTS).toBe(pValue(sequential.verdict_p_value));
    expect(await headers(page, 'goal')).toContain('p (sequential, Holm-adjusted)');
    expect(sequential.verdict_text).toContain(`sequential Holm-adjusted p=${Number(sequential.verdict_p_value.toFixed(3))}`);
    expect(await page.locator('.verdicts').first().textContent()).toContain(sequential.verdict_text);

    // 7. Exploratory metrics: a toggle, kept in the URL, passed to the API and to the CSV.
    const exploring = page.getByRole('checkbox', { name: /Exploratory metrics/ });
    expect(await exploring.isChecked()).toBe(false);
    expect(await page.locator('table.scorecard[data-section="exploratory"]').count()).toBe(0);
    await page.goto(`${server.origin}/ui/experiments/tuned?explore=true`);
    await expect.poll(() => page.locator('table.scorecard[data-section="exploratory"] tr[data-metric="thumbs:success_rate"]').count(), RESULTS).toBe(2);
    expect(await exploring.isChecked()).toBe(true);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    const csv = await (await fetch(`${server.origin}/experiments/tuned/results?explore=true&format=csv`, { headers: { 'x-api-key': ADMIN } })).text();
    expect(fs.readFileSync((await download.path())!, 'utf8')).toBe(csv);
    expect(csv).toContain('thumbs');
    await exploring.uncheck();
    await expect.poll(() => page.url()).toContain('explore=false');
    await expect.poll(() => page.locator('table.scorecard[data-section="exploratory"]').count(), RESULTS).toBe(0);

    // Charts: a young experiment is counted by the hour, so its first day has more than one point per series.
    const young = await results();
    expect(young.timeseries_granularity).toBe('hour');
    expect(young.timeseries.length).toBeGreaterThanOrEqual(3);
    await expect.poll(() => page.locator('.chart canvas').count(), RESULTS).toBe(2);
    const table = page.locator('.charts details').first();
    await table.locator('summary').click();
    expect(await table.locator('thead th').first().textContent()).toBe('Hour (UTC)');
    const rows = await table.locator('tbody th').allTextContents();
    expect(rows).toHaveLength(young.timeseries.length);
    expect(rows[0]).toBe(`${young.timeseries[0].start.slice(0, 10)} ${young.timeseries[0].start.slice(11, 16)}`);
    expect(await page.locator('.charts figcaption').first().textContent()).toContain('by hour (UTC)');
    expect(page.problems).toEqual([]);
    await page.close();
  });
});
