import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, browserMissing, launchChromium, signedInPage } from '../support/browser.js';
import { processFixtures, type RunningServer } from '../support/processes.js';
import { timeLimit } from '../support/timeLimits.js';

/**
 * The console's evaluator pages in a real headless Chromium against the built server: an
 * evaluator of any kind made in the "New evaluator" form, the API's 422 shown under the field it
 * names, an evaluator's page with its versions, a new version and archiving; a read key edits nothing.
 */
const skip = browserMissing();
const ADMIN = 'pl_a_browser-evaluators-admin-key-00000000';
const fx = processFixtures(ADMIN);

let server: RunningServer;
let browser: Browser;
const api = apiClient(() => server.origin, ADMIN);

/** The message right under a control (FieldError follows its input). */
const errorUnder = (id: string) => `#${id} + .field-error`;
/** A link of the console's main navigation (a page's crumbs may carry the same name). */
const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });

describe.skipIf(skip !== null)(`the evaluator pages in Chromium${skip === null ? '' : ` (skipped: ${skip})`}`, () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());

  it('makes a contains evaluator in the form and opens its page; a refused pattern is named under Pattern and nothing is stored', {
    timeout: timeLimit({ starts: 1, steps: 27 }),
  }, async () => {
    server = await fx.serve();
    const page = await signedInPage(browser, server.origin, ADMIN);
    await nav(page, 'Evaluators').click();
    await page.getByRole('heading', { name: 'New evaluator' }).waitFor();

    // A pattern the linear-time engine cannot run (a back-reference): the API's 422 names `pattern`.
    await page.getByLabel('Evaluator id').fill('slow');
    await page.getByLabel('Kind').selectOption('regex');
    await page.getByLabel(/^Pattern/).fill('(a)\\1');
    await page.getByRole('button', { name: 'Create evaluator' }).click();
    const patternError = page.locator(errorUnder('new-evaluator-pattern'));
    await patternError.waitFor();
    expect(await patternError.textContent()).not.toBe('');
    expect((await api('GET', '/evaluators/slow')).status).toBe(404);

    // An id the API refuses is named under the id.
    await page.getByLabel('Evaluator id').fill('has space');
    await page.getByLabel(/^Pattern/).fill('^ok');
    await page.getByRole('button', { name: 'Create evaluator' }).click();
    await page.locator(errorUnder('new-evaluator-id')).waitFor();
    expect(await page.locator(errorUnder('new-evaluator-pattern')).count()).toBe(0); // only the latest answer's errors
    expect((await api('GET', '/evaluators')).json.data).toEqual([]);

    await page.getByLabel('Evaluator id').fill('thanks');
    await page.getByLabel('Description').fill('says thanks');
    await page.getByLabel('Kind').selectOption('contains');
    await page.getByLabel(/^Text to find/).fill('thanks');
    await page.getByLabel('Case-sensitive').uncheck();
    await page.getByRole('button', { name: 'Create evaluator' }).click();
    await page.getByRole('heading', { name: 'thanks', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/ui/evaluators/thanks');
    const settings = await page.locator('dl.evaluator-settings').textContent();
    expect(settings).toContain('value');
    expect(settings).toContain('thanks');
    expect((await api('GET', '/evaluators/thanks')).json).toMatchObject({
      kind: 'contains',
      description: 'says thanks',
      latest_version: { version: 1, settings: { value: 'thanks', case_sensitive: false } },
    });
    expect(page.problems.filter((p) => !p.includes('422'))).toEqual([]); // the deliberate 422s are logged by the browser
    await page.close();
  });

  it('makes a judge on a prompt version with a rubric and a 1-5 scale; a missing rubric is named under Rubric', {
    timeout: timeLimit({ starts: 1, steps: 19 }),
  }, async () => {
    server = await fx.serve();
    await api('POST', '/prompts', { prompt_id: 'judge', template: 'Rate {{output}} by {{rubric}}', labels: ['production'] });
    await api('POST', '/prompts/judge/versions', { template: 'Score {{output}} against {{rubric}}' });
    const page = await signedInPage(browser, server.origin, ADMIN);
    await page.goto(`${server.origin}/ui/evaluators`);
    await page.getByLabel('Evaluator id').fill('polite');
    await page.getByLabel('Kind').selectOption('llm_judge');
    await page.getByLabel('Judge prompt', { exact: true }).selectOption('judge');
    await page.getByLabel('Judge prompt version').selectOption('version:2');
    await page.getByLabel('Scale').selectOption('1-5');
    await page.getByRole('button', { name: 'Create evaluator' }).click();
    await page.locator(errorUnder('new-evaluator-rubric')).waitFor();
    expect((await api('GET', '/evaluators/polite')).status).toBe(404);

    await page.getByLabel(/^Rubric/).fill('Is the answer polite?');
    await page.getByRole('button', { name: 'Create evaluator' }).click();
    await page.getByRole('heading', { name: 'polite', level: 1 }).waitFor();
    expect((await api('GET', '/evaluators/polite')).json.latest_version).toMatchObject({
      scale: '1-5',
      settings: { prompt_id: 'judge', version: 2, label: null, scale: '1-5', rubric: 'Is the answer polite?' },
    });
    expect(await page.locator('dl.facts').first().textContent()).toContain('1 to 5');
    await page.close();
  });

  it('edits an evaluator as a new version (a 422 under its field first), lists its versions, and archives it', {
    timeout: timeLimit({ starts: 1, steps: 28 }),
  }, async () => {
    server = await fx.serve();
    expect((await api('POST', '/evaluators', { evaluator_id: 'short', kind: 'length', max_chars: 200 })).status).toBe(201);
    const page = await signedInPage(browser, server.origin, ADMIN);
    await nav(page, 'Evaluators').click();
    await page.getByRole('link', { name: 'short' }).click();
    await page.getByRole('heading', { name: 'short', level: 1 }).waitFor();
    const rows = page.locator('table.evaluator-versions tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    // The form starts from the latest settings.
    expect(await page.locator('#evaluator-version-max_chars').inputValue()).toBe('200');

    await page.locator('#evaluator-version-min_chars').fill('300');
    await page.getByRole('button', { name: 'Create version' }).click();
    await page.locator(errorUnder('evaluator-version-max_chars')).getByText('max_chars is below min_chars').waitFor();
    expect((await api('GET', '/evaluators/short/versions')).json.data).toHaveLength(1);

    await page.locator('#evaluator-version-min_chars').fill('10');
    await page.getByRole('button', { name: 'Create version' }).click();
    await page.getByRole('status').getByText('Version 2 created.').waitFor();
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.first().textContent()).toContain('min_chars: 10, max_chars: 200');
    expect(await page.getByRole('heading', { name: 'Settings of v2' }).count()).toBe(1);

    await page.getByRole('button', { name: 'Archive short' }).click();
    await page.getByRole('button', { name: 'Archive it' }).click();
    await page.locator('[data-state="archived"]').waitFor();
    expect(await page.getByRole('heading', { name: 'New version' }).count()).toBe(0);
    expect((await api('GET', '/evaluators/short')).json.archived_at).not.toBeNull();
    // The list leaves it out unless asked.
    await nav(page, 'Evaluators').click();
    await page.getByText('No evaluators yet.').waitFor();
    await page.getByLabel('Show archived evaluators').check();
    await page.getByRole('link', { name: 'short' }).waitFor();
    expect(page.problems.filter((p) => !p.includes('422'))).toEqual([]);
    await page.close();
  });

  it('a read key sees evaluators, their settings and versions, and no control that edits', { timeout: timeLimit({ starts: 1, steps: 16 }) }, async () => {
    server = await fx.serve();
    expect((await api('POST', '/evaluators', { evaluator_id: 'short', kind: 'length', max_chars: 200 })).status).toBe(201);
    const read = (await api('POST', '/keys', { name: 'viewer', role: 'read' })).json.key;
    const page = await signedInPage(browser, server.origin, read);
    await nav(page, 'Evaluators').click();
    await page.getByRole('link', { name: 'short' }).click();
    await page.getByRole('heading', { name: 'short', level: 1 }).waitFor();
    await page.locator('table.evaluator-versions tbody tr').first().waitFor();
    expect(await page.locator('dl.evaluator-settings').textContent()).toContain('200');
    expect(await page.locator('form').count()).toBe(0);
    expect(await page.getByRole('button', { name: /Archive/ }).count()).toBe(0);
    await nav(page, 'Evaluators').click();
    await page.locator('table.evaluators tbody tr').first().waitFor();
    expect(await page.getByRole('heading', { name: 'New evaluator' }).count()).toBe(0);
    expect(await page.locator('form').count()).toBe(0);
    await page.close();
  });
});
