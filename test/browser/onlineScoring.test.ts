import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, browserMissing, launchChromium, signedInPage } from '../support/browser.js';
import { processFixtures, type RunningServer } from '../support/processes.js';
import { timeLimit } from '../support/timeLimits.js';

/**
 * Online scoring in the console, in a real headless Chromium against the built server: a prompt's
 * page lists the evaluators attached to it and lets an admin key attach one (the API's 422 under
 * the field it names) and detach it; a run's page shows what the server's own scorer gave it.
 */
const skip = browserMissing();
const ADMIN = 'pl_a_browser-online-scoring-admin-key-000';
const fx = processFixtures(ADMIN);

let server: RunningServer;
let browser: Browser;
const api = apiClient(() => server.origin, ADMIN);

const errorUnder = (id: string) => `#${id} + .field-error`;
const attachedRows = (page: Page) => page.locator('table.online-evaluators tbody tr');

/**
 * The scorer leaves runs alone for five minutes after they are made (one still in flight could land
 * behind them). Here the runs and the attachments are moved twenty minutes back in the server's
 * SQLite file, as if that time had passed; the server's own scorer then scores them on its next pass.
 */
function twentyMinutesLater(dataDir: string) {
  const db = new Database(path.join(dataDir, 'promptline.db'));
  try {
    const earlier = (column: string) => `strftime('%Y-%m-%dT%H:%M:%fZ', ${column}, '-20 minutes')`;
    db.prepare(`UPDATE runs SET created_at = ${earlier('created_at')}`).run();
    db.prepare(`UPDATE online_evaluators SET created_at = ${earlier('created_at')}, cursor_at = ${earlier('cursor_at')}`).run();
  } finally {
    db.close();
  }
}

describe.skipIf(skip !== null)(`online scoring in the console, in Chromium${skip === null ? '' : ` (skipped: ${skip})`}`, () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());

  it("attaches evaluators on the prompt's page (a 422 under Evaluator first), shows a run's scores on its page, and detaches", {
    timeout: timeLimit({ starts: 1, steps: 38 }),
  }, async () => {
    const dataDir = fx.dataDir();
    server = await fx.serve(dataDir);
    // The built-in echo model answers with the rendered prompt: "Hi Ada".
    await api('POST', '/prompts', { prompt_id: 'welcome', template: 'Hi {{name}}', labels: ['production'] });
    for (const body of [
      { evaluator_id: 'greets', kind: 'contains', value: 'Hi' },
      { evaluator_id: 'tiny', kind: 'length', max_chars: 3 },
      { evaluator_id: 'exact', kind: 'exact_match' },
    ]) {
      expect((await api('POST', '/evaluators', body)).status).toBe(201);
    }
    const page = await signedInPage(browser, server.origin, ADMIN);
    await page.getByRole('link', { name: 'welcome' }).click();
    await page.getByRole('heading', { name: 'Online scoring' }).waitFor();
    await page.getByText("No evaluator scores this prompt's live runs.").waitFor();

    // exact_match needs an expected answer, which a live run has not: the API refuses it at evaluator_id.
    await page.getByLabel('Evaluator', { exact: true }).selectOption('exact');
    await page.getByRole('button', { name: 'Attach' }).click();
    await page
      .locator(errorUnder('attach-evaluator'))
      .getByText(/expected/)
      .waitFor();
    // A rate above 1 is named under Sample rate.
    await page.getByLabel('Evaluator', { exact: true }).selectOption('greets');
    await page.getByLabel('Sample rate').fill('1.5');
    await page.getByRole('button', { name: 'Attach' }).click();
    await page.locator(errorUnder('attach-rate')).waitFor();
    expect((await api('GET', '/prompts/welcome/online_evaluators')).json.data).toEqual([]);

    await page.getByLabel('Sample rate').fill('1');
    await page.getByRole('button', { name: 'Attach' }).click();
    await expect.poll(() => attachedRows(page).count()).toBe(1);
    await page.getByLabel('Evaluator', { exact: true }).selectOption('tiny');
    await page.getByLabel('Sample rate').fill('1');
    await page.getByRole('button', { name: 'Attach' }).click();
    await expect.poll(() => attachedRows(page).count()).toBe(2);
    expect(await attachedRows(page).first().textContent()).toContain('100% of runs');
    expect((await api('GET', '/prompts/welcome/online_evaluators')).json.data.map((a: { evaluator_id: string }) => a.evaluator_id).sort()).toEqual([
      'greets',
      'tiny',
    ]);

    const run = await api('POST', '/run_prompt', { prompt_id: 'welcome', inputs: { name: 'Ada' } });
    expect(run.status).toBe(200);
    const runId = run.json.run_id as string;
    await page.goto(`${server.origin}/ui/runs/${runId}`);
    await page.getByRole('heading', { name: 'Online scores' }).waitFor();
    await page.getByText(/No online score/).waitFor(); // not yet: the run is too recent

    twentyMinutesLater(dataDir);
    await expect.poll(async () => (await api('GET', `/runs/${runId}/scores`)).json.data.length).toBe(2);
    await page.reload();
    const scores = page.locator('table.run-scores tbody tr');
    await expect.poll(() => scores.count()).toBe(2);
    const cells = await scores.evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].slice(0, 5).map((td) => td.textContent)));
    expect(cells.sort()).toEqual([
      ['greets', 'v1', '1', 'pass', '–'],
      ['tiny', 'v1', '0', 'fail', '–'],
    ]);

    await page.goto(`${server.origin}/ui/prompts/welcome`);
    await page.getByRole('button', { name: 'Detach tiny' }).click();
    await expect.poll(() => attachedRows(page).count()).toBe(1);
    expect((await api('GET', '/prompts/welcome/online_evaluators')).json.data).toMatchObject([{ evaluator_id: 'greets', sample_rate: 1 }]);
    expect(page.problems.filter((p) => !p.includes('422'))).toEqual([]);
    await page.close();
  });

  it("a read key sees a prompt's online evaluators and a run's scores, and can neither attach nor detach", {
    timeout: timeLimit({ starts: 1, steps: 15 }),
  }, async () => {
    server = await fx.serve();
    await api('POST', '/prompts', { prompt_id: 'welcome', template: 'Hi {{name}}', labels: ['production'] });
    expect((await api('POST', '/evaluators', { evaluator_id: 'greets', kind: 'contains', value: 'Hi' })).status).toBe(201);
    expect((await api('POST', '/prompts/welcome/online_evaluators', { evaluator_id: 'greets', sample_rate: 0.5 })).status).toBe(201);
    const run = await api('POST', '/run_prompt', { prompt_id: 'welcome', inputs: { name: 'Ada' } });
    const read = (await api('POST', '/keys', { name: 'viewer', role: 'read' })).json.key;
    const page = await signedInPage(browser, server.origin, read);
    await page.getByRole('link', { name: 'welcome' }).click();
    await expect.poll(() => attachedRows(page).count()).toBe(1);
    expect(await attachedRows(page).textContent()).toContain('0.5 (50% of runs)');
    expect(await page.getByRole('heading', { name: 'Attach an evaluator' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /Detach/ }).count()).toBe(0);
    await page.goto(`${server.origin}/ui/runs/${run.json.run_id}`);
    await page.getByText(/No online score/).waitFor();
    await page.close();
  });
});
