import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pct, range, relPct } from '../../src/lib/numbers.js';
import { apiClient, browserMissing, launchChromium, screenshot, signedInPage } from '../support/browser.js';
import { processFixtures, type RunningServer } from '../support/processes.js';
import { STEP_MS, timeLimit } from '../support/timeLimits.js';

/**
 * The console's Experiments and results pages in a real headless Chromium, against the built server
 * on a temporary SQLite file: set up through the public API, a population driven through the
 * runtime API, and the page checked against what GET /experiments/{id}/results answers.
 */
const skip = browserMissing();
const ADMIN = 'pl_a_browser-experiments-admin-key-000000000';
const fx = processFixtures(ADMIN);

let server: RunningServer;
let browser: Browser;
const api = apiClient(() => server.origin, ADMIN);

const signedIn = (key: string) => signedInPage(browser, server.origin, key);

async function twoVersions(promptId = 'welcome') {
  await api('POST', '/prompts', { prompt_id: promptId, template: 'Hello.', labels: ['production'] });
  await api('POST', `/prompts/${promptId}/versions`, { template: 'Hello, friend!', commit_message: 'warmer' });
}

/**
 * 400 users through /get_prompt, then their outcomes through /track_outcome: "warm" converts
 * 45% of the time, control 20% (deterministic in the user's number), complaints equal in both.
 */
async function drivePopulation(users = 400) {
  const byVariant: Record<string, number> = {};
  for (let start = 0; start < users; start += 25) {
    await Promise.all(
      Array.from({ length: Math.min(25, users - start) }, async (_, j) => {
        const i = start + j;
        const user = `user-${i}`;
        const served = await api('POST', '/get_prompt', { prompt_id: 'welcome', external_user_id: user });
        const variant = served.json.variant_assigned as string;
        byVariant[variant] = (byVariant[variant] ?? 0) + 1;
        const converts = variant === 'warm' ? i % 20 < 9 : i % 20 < 4;
        await api('POST', '/track_outcome', { prompt_id: 'welcome', external_user_id: user, event_type: 'signup', is_success: converts });
        if (i % 10 === 0) await api('POST', '/track_outcome', { prompt_id: 'welcome', external_user_id: user, event_type: 'complaint', is_success: true });
      }),
    );
  }
  return byVariant;
}

/** Results are computed off the request thread: the first answer can take a few seconds on a busy machine. */
const RESULTS = { timeout: STEP_MS };

const cell = (page: Page, section: string, variant: string, column: string) =>
  page.locator(`table.scorecard[data-section="${section}"] tr[data-variant="${variant}"] td.${column}`).first();

describe.skipIf(skip !== null)(`the Experiments pages in Chromium${skip === null ? '' : ` (skipped: ${skip})`}`, () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());

  it('creates an experiment through the form, runs it, reads its results as the API does, and ships the winner', {
    timeout: timeLimit({ starts: 1, steps: 72 }),
  }, async () => {
    server = await fx.serve();
    await twoVersions();
    const page = await signedIn(ADMIN);
    await page.getByRole('link', { name: 'Experiments' }).click();
    await page.getByRole('heading', { name: 'Experiments' }).waitFor();
    await page.getByRole('button', { name: 'New experiment' }).click();
    await page.getByLabel('Prompt', { exact: true }).selectOption('welcome');
    await page.getByLabel('Variant 1 key').waitFor();
    expect(await page.getByLabel('Variant 1 version').inputValue()).toBe('1'); // production
    expect(await page.getByLabel('Variant 2 version').inputValue()).toBe('2'); // newest
    await page.getByLabel('Experiment id (optional)').fill('warmth');
    await page.getByLabel('Name').fill('Warmth test');
    await page.getByLabel('Hypothesis').fill('A warmer greeting gets more signups.');
    await page.getByLabel('Variant 2 key').fill('warm');
    await page.getByLabel('Variant 2 weight').fill('0');
    await page.getByLabel('Metric 1 event type').fill('signup');
    await page.getByRole('button', { name: 'Add metric' }).click();
    await page.getByLabel('Metric 2 event type').fill('complaint');
    await page.getByLabel('Metric 2 role').selectOption('guardrail');
    await page.getByLabel('Metric 2 better when').selectOption('lower');

    // A weight of 0: the API's 422, next to the weight it is about, and nothing created.
    await page.getByRole('button', { name: 'Create experiment' }).click();
    const weightError = page.locator('.variant-row').nth(1).locator('.field-error');
    await expect.poll(() => weightError.count()).toBe(1);
    expect(await weightError.textContent()).toMatch(/0/);
    expect((await api('GET', '/experiments')).json.data).toEqual([]);
    await screenshot(page, 'experiment-new');

    await page.getByLabel('Variant 2 weight').fill('1');
    await page.getByRole('button', { name: 'Create experiment' }).click();
    await page.getByRole('heading', { name: /Warmth test/ }).waitFor();
    expect(page.url()).toBe(`${server.origin}/ui/experiments/warmth`);
    expect((await api('GET', '/experiments/warmth')).json).toMatchObject({
      status: 'draft',
      variants: [
        { key: 'control', version: 1, weight: 0.5 },
        { key: 'warm', version: 2, weight: 0.5 },
      ],
      metrics: [
        { event_type: 'signup', kind: 'success_rate', role: 'primary', direction: 'higher' },
        { event_type: 'complaint', kind: 'success_rate', role: 'guardrail', direction: 'lower' },
      ],
    });

    // Start, asked twice.
    await page.getByRole('button', { name: 'Start' }).click();
    expect((await api('GET', '/experiments/warmth')).json.status).toBe('draft');
    await page.getByRole('button', { name: 'Confirm: start' }).click();
    await expect.poll(() => page.locator('h1 .status').textContent(), RESULTS).toBe('running');
    expect((await api('GET', '/experiments/warmth')).json.status).toBe('running');

    const served = await drivePopulation();
    await page.reload();
    const api0 = (await api('GET', '/experiments/warmth/results')).json;
    expect(api0.variants.map((v: { users: number }) => v.users)).toEqual([served.control, served.warm]);
    for (const v of api0.variants) {
      await expect.poll(() => page.locator(`table.variants-summary tr[data-variant="${v.key}"] td.users`).textContent(), RESULTS).toBe(String(v.users));
    }
    const [signup] = api0.metrics;
    const warm = signup.comparisons[0];
    expect(await cell(page, 'goal', 'warm', 'lift').textContent()).toBe(pct(warm.relative.lift, true));
    expect(await cell(page, 'goal', 'warm', 'interval').textContent()).toBe(range(warm.relative.ci, relPct));
    expect(await cell(page, 'goal', 'warm', 'verdict').textContent()).toBe(warm.verdict.replaceAll('_', ' '));
    expect(warm.verdict).toBe('better');
    expect(await cell(page, 'goal', 'control', 'lift').textContent()).toBe('(control)');
    const guard = api0.guardrails[0].comparisons[0];
    expect(await cell(page, 'guardrail', 'warm', 'verdict').textContent()).toBe(guard.verdict.replaceAll('_', ' '));
    const decision = api0.decisions[0];
    expect(decision).toMatchObject({ variant: 'warm', decision: 'ship' });
    expect(await page.locator('.decisions li[data-variant="warm"]').textContent()).toBe(`Ship warm: ${decision.reason}`);
    await expect.poll(() => page.locator('.chart canvas').count(), RESULTS).toBe(2); // uPlot, loaded on first use
    expect(await page.locator('details table').first().locator('tbody tr').count()).toBe(api0.timeseries.length);
    await screenshot(page, 'experiment-results');

    // Toggles go to the URL and to the API; the numbers follow.
    await page.getByRole('checkbox', { name: /Sequential/ }).check();
    await expect.poll(() => page.url()).toContain('?sequential=true');
    const seq = (await api('GET', '/experiments/warmth/results?sequential=true')).json.metrics[0].comparisons[0];
    await expect.poll(() => cell(page, 'goal', 'warm', 'interval').textContent(), RESULTS).toBe(range(seq.sequential.ci, relPct));
    expect(range(seq.sequential.ci, relPct)).not.toBe(range(warm.relative.ci, relPct));
    await page.getByRole('checkbox', { name: /CUPED/ }).check();
    await expect.poll(() => page.url()).toContain('sequential=true&cuped=true');
    const cuped = (await api('GET', '/experiments/warmth/results?sequential=true&cuped=true')).json;
    await expect.poll(() => page.locator('.generated').textContent(), RESULTS).toContain('CUPED on');
    expect(await cell(page, 'goal', 'warm', 'lift').textContent()).toBe(pct(cuped.metrics[0].comparisons[0].relative.lift, true));
    await page.reload(); // the toggles live in the URL
    expect(await page.getByRole('checkbox', { name: /Sequential/ }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: /CUPED/ }).isChecked()).toBe(true);

    // The CSV is the API's, with the same toggles, under the API's filename.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('warmth-results.csv');
    const csv = await (
      await fetch(`${server.origin}/experiments/warmth/results?sequential=true&cuped=true&format=csv`, { headers: { 'x-api-key': ADMIN } })
    ).text();
    expect(fs.readFileSync((await download.path())!, 'utf8')).toBe(csv);

    // Stop and ship the winner, asked twice: production moves to the winner's version.
    await page.getByRole('button', { name: 'Stop and ship…' }).click();
    expect(await page.getByLabel('Winner').inputValue()).toBe('warm'); // what the results say to ship
    await page.getByRole('button', { name: 'Confirm: stop and ship warm' }).click();
    await expect.poll(() => page.locator('h1 .status').textContent(), RESULTS).toBe('stopped');
    expect(await page.getByRole('button', { name: /Start|Pause|Stop/ }).count()).toBe(0);
    expect((await api('GET', '/experiments/warmth')).json).toMatchObject({ status: 'stopped', winner: 'warm', shipped_version: 2 });
    expect((await api('POST', '/get_prompt', { prompt_id: 'welcome', external_user_id: 'someone-new' })).json).toMatchObject({
      prompt_version: 2,
      variant_assigned: null,
    });
    await expect.poll(() => page.locator('.facts').textContent()).toContain('production → v2');
    expect(page.problems.filter((p) => !p.includes('422'))).toEqual([]); // the deliberate 422 is logged by the browser
    await page.close();
  });

  it("shows the API's 409 when another experiment already runs on the prompt, and lists experiments by status", {
    timeout: timeLimit({ starts: 1, steps: 17 }),
  }, async () => {
    server = await fx.serve();
    await twoVersions();
    const variants = [
      { key: 'a', version: 1 },
      { key: 'b', version: 2 },
    ];
    await api('POST', '/experiments', { experiment_id: 'first', name: 'First', prompt_id: 'welcome', variants });
    await api('POST', '/experiments', { experiment_id: 'second', name: 'Second', prompt_id: 'welcome', variants });
    await api('POST', '/experiments/first/start');
    const page = await signedIn(ADMIN);
    await page.goto(`${server.origin}/ui/experiments`);
    await expect.poll(() => page.locator('h2').allTextContents()).toEqual(['running (1)', 'draft (1)']);
    await page.getByLabel('Status').selectOption('draft');
    await expect.poll(() => page.locator('table.experiments tbody tr').allTextContents()).toEqual([expect.stringContaining('Second')]);
    await screenshot(page, 'experiments');
    await page.getByRole('link', { name: 'Second' }).click();
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('button', { name: 'Confirm: start' }).click();
    await expect.poll(() => page.locator('.actions [role="alert"]').textContent(), RESULTS).toMatch(/first|running/i);
    expect((await api('GET', '/experiments/second')).json.status).toBe('draft');
    await page.close();
  });

  it('a read key sees experiments and results, and no create or action control', { timeout: timeLimit({ starts: 1, steps: 16 }) }, async () => {
    server = await fx.serve();
    await twoVersions();
    await api('POST', '/experiments', {
      experiment_id: 'exp',
      name: 'Read me',
      prompt_id: 'welcome',
      variants: [
        { key: 'a', version: 1 },
        { key: 'b', version: 2 },
      ],
    });
    await api('POST', '/experiments/exp/start');
    const read = (await api('POST', '/keys', { name: 'viewer', role: 'read' })).json.key;
    const page = await signedIn(read);
    await page.goto(`${server.origin}/ui/experiments`);
    await page.getByRole('link', { name: 'Read me' }).waitFor();
    expect(await page.getByRole('button', { name: 'New experiment' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Read me' }).click();
    await page.getByRole('heading', { name: 'Results' }).waitFor();
    await expect.poll(() => page.locator('table.variants-summary tbody tr').count(), RESULTS).toBe(2);
    expect(await page.getByRole('heading', { name: 'Actions' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /Start|Pause|Stop|Resume/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Download CSV' }).count()).toBe(1); // reading results is reading
    await page.close();
  });

  it('renders what users wrote as text: a name with <script> and a hypothesis with <img onerror> run nothing', {
    timeout: timeLimit({ starts: 1, steps: 13 }),
  }, async () => {
    server = await fx.serve();
    await twoVersions();
    const name = '<script>window.__pwned = 1</script>Evil';
    const hypothesis = '<img src=x onerror="window.__pwned = 2">';
    await api('POST', '/experiments', {
      experiment_id: 'evil',
      name,
      hypothesis,
      prompt_id: 'welcome',
      variants: [
        { key: 'a', version: 1 },
        { key: 'b', version: 2 },
      ],
    });
    const page = await signedIn(ADMIN);
    await page.goto(`${server.origin}/ui/experiments`);
    await expect.poll(() => page.locator('table.experiments tbody tr').first().textContent()).toContain(name);
    await page.goto(`${server.origin}/ui/experiments/evil`);
    await expect.poll(() => page.locator('h1').textContent()).toContain(name);
    expect(await page.locator('.hypothesis').textContent()).toBe(hypothesis);
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.locator('main script').count()).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    await page.close();
  });
});
