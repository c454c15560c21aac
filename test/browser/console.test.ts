import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, browserMissing, launchChromium, screenshot, signedInPage } from '../support/browser.js';
import { processFixtures, type RunningServer } from '../support/processes.js';
import { timeLimit } from '../support/timeLimits.js';

/**
 * The console in a real headless Chromium, against the built server on a temporary SQLite file,
 * as a prompt owner uses it. Setup goes through the public API; what is checked is what the page shows.
 */
const skip = browserMissing();
const ADMIN = 'pl_a_browser-console-admin-key-00000000000';
const fx = processFixtures(ADMIN);

let server: RunningServer;
let browser: Browser;
const api = apiClient(() => server.origin, ADMIN);

const signedIn = (key: string) => signedInPage(browser, server.origin, key);

describe.skipIf(skip !== null)(`the web console in Chromium${skip === null ? '' : ` (skipped: ${skip})`}`, () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());

  it('signs in with a read or admin key, refuses others with a reason, and signs out', { timeout: timeLimit({ starts: 1, steps: 20 }) }, async () => {
    server = await fx.serve();
    await api('POST', '/prompts', { prompt_id: 'welcome', description: 'greets new users', template: 'Hi {{name}}', labels: ['production'] });
    const runtime = (await api('POST', '/keys', { name: 'rt', role: 'runtime' })).json.key;
    const page = await browser.newPage();
    await page.goto(`${server.origin}/`);
    expect(page.url()).toBe(`${server.origin}/ui/`);
    for (const [key, message] of [
      ['pl_a_not-a-key-at-all-000000000000000', 'This key is not valid'],
      [runtime, 'A runtime key cannot open the console'],
    ]) {
      await page.getByLabel('API key').fill(key!);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toContain(message);
    }
    await screenshot(page, 'sign-in');
    await page.getByLabel('API key').fill(ADMIN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Prompts' }).waitFor();
    // The key is not kept by the page: the browser holds a session cookie no script can read.
    const [cookie] = await page.context().cookies();
    expect(cookie).toMatchObject({ name: 'promptline_session', httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(cookie!.value).not.toContain(ADMIN);
    expect(await page.evaluate('document.cookie')).toBe('');
    // Only a hint that this browser signed in is stored, never the key.
    expect(await page.evaluate('JSON.stringify([Object.values(sessionStorage), Object.entries(localStorage)])')).toBe('[[],[["promptline.signedIn","1"]]]');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.context().cookies()).toEqual([]);
    // Ended on the server too: the old cookie opens nothing.
    const again = await fetch(`${server.origin}/session`, { headers: { cookie: `promptline_session=${cookie!.value}` } });
    expect(again.status).toBe(401);
    await page.close();
  });

  it('lists prompts with their labels and running experiment, searches them, and promotes a version (admin, confirmed)', {
    timeout: timeLimit({ starts: 1, steps: 30 }),
  }, async () => {
    server = await fx.serve();
    await api('POST', '/prompts', { prompt_id: 'welcome', description: 'greets new users', template: 'Hi {{name}}', labels: ['production'] });
    await api('POST', '/prompts/welcome/versions', { template: 'Hello there, {{name}}!', commit_message: 'warmer' });
    await api('POST', '/prompts', { prompt_id: 'summary', template: 'Summarise {{text}}' });
    await api('POST', '/experiments', {
      experiment_id: 'warmth',
      name: 'Warmth test',
      prompt_id: 'welcome',
      variants: [
        { key: 'a', version: 1 },
        { key: 'b', version: 2 },
      ],
    });
    await api('POST', '/experiments/warmth/start');

    const page = await signedIn(ADMIN);
    const rows = page.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    const welcome = page.getByRole('row', { name: /welcome/ });
    await expect.poll(() => welcome.textContent()).toContain('Warmth test'); // the experiments arrive on their own
    expect(await welcome.textContent()).toContain('production → v1');
    expect(await welcome.getByRole('link', { name: 'Warmth test' }).getAttribute('href')).toBe('/ui/experiments/warmth');
    await page.getByLabel('Search').fill('summ');
    await expect.poll(() => rows.count()).toBe(1);
    await screenshot(page, 'prompts');
    await page.getByLabel('Search').fill('');

    await page.getByRole('link', { name: 'welcome' }).click();
    await page.getByRole('heading', { name: 'welcome' }).waitFor();
    expect(page.url()).toBe(`${server.origin}/ui/prompts/welcome`);
    await expect.poll(() => page.locator('.timeline li').count()).toBe(2);
    expect(await page.locator('.timeline li').first().textContent()).toMatch(/^v2 .*warmer/); // newest first
    // Who made each version comes from the audit log (admin keys only); the bootstrap key made both.
    await expect
      .poll(() => page.locator('.timeline li').allTextContents())
      .toEqual([expect.stringContaining('by bootstrap'), expect.stringContaining('by bootstrap')]);
    await page.getByRole('button', { name: 'Promote v2 to production' }).click();
    await screenshot(page, 'prompt');
    await page.getByRole('button', { name: 'Confirm: promote v2' }).click();
    // The production row's version cell: the whole table also holds the move control, whose options name v2 already.
    await expect.poll(() => page.locator('.labels tr[data-label="production"] td').nth(1).textContent()).toBe('v2');
    expect((await api('GET', '/prompts/welcome')).json.labels.production).toBe(2);

    // Every page has its own URL: a version opens directly.
    await page.goto(`${server.origin}/ui/prompts/welcome/versions/2`);
    await page.getByRole('heading', { name: 'welcome v2' }).waitFor();
    expect(await page.locator('pre.template').textContent()).toBe('Hello there, {{name}}!');
    await screenshot(page, 'version');
    expect(page.problems).toEqual([]);
    await page.close();
  });

  it('compares versions word by word, writes a new one with live variables, and tries the prompt in the playground', {
    timeout: timeLimit({ starts: 1, steps: 37 }),
  }, async () => {
    server = await fx.serve();
    await api('POST', '/prompts', { prompt_id: 'welcome', template: 'Write a short welcome for {{name}}.', labels: ['production'] });
    await api('POST', '/prompts/welcome/versions', { template: 'Write a warm welcome for {{name}}!', params: { temperature: 0.2 } });
    const page = await signedIn(ADMIN);
    await page.goto(`${server.origin}/ui/prompts/welcome`);
    await page.getByRole('heading', { name: 'Compare versions' }).waitFor();
    await expect.poll(() => page.locator('pre.diff del').allTextContents()).toEqual(['short', '.']);
    expect(await page.locator('pre.diff ins').allTextContents()).toEqual(['warm', '!']);
    expect(await page.getByRole('row', { name: /params/ }).textContent()).toContain('{"temperature":0.2}');

    // The editor starts from the newest version and names its variables as they are typed.
    await page.getByLabel('Template').fill('Dear {{title}} {{name}}, {{#items}}{{label}}{{/items}}');
    await expect.poll(() => page.getByText(/^Variables:/).textContent()).toBe('Variables: title, name, items');
    await page.getByLabel('Template').fill('{{#open}} never closed');
    await expect.poll(() => page.getByText(/^Template problem:/).count()).toBe(1);
    await page.getByLabel('Template').fill('Dear {{title}} {{name}}');
    // A model whose provider is not configured: the API's 422, shown under the Model field, and nothing made.
    await page.getByLabel('Model', { exact: true }).fill('nowhere/model-x');
    await page.getByLabel('Commit message').fill('formal');
    await page.getByRole('button', { name: 'Create version' }).click();
    const modelError = page.locator('#model ~ .field-error');
    await expect.poll(() => modelError.textContent()).toContain('nowhere');
    expect((await api('GET', '/prompts/welcome')).json.latest_version).toBe(2);
    await screenshot(page, 'version-editor');
    await page.getByLabel('Model', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Create version' }).click();
    await page.getByRole('heading', { name: 'welcome v3' }).waitFor();
    expect(page.url()).toBe(`${server.origin}/ui/prompts/welcome/versions/3`);
    expect(await page.locator('pre.template').textContent()).toBe('Dear {{title}} {{name}}');
    expect((await api('GET', '/prompts/welcome/versions/3')).json).toMatchObject({
      commit_message: 'formal',
      variables: ['title', 'name'],
      params: { temperature: 0.2 },
    });

    // The playground serves what callers get: production (v1).
    await page.goto(`${server.origin}/ui/prompts/welcome`);
    await page.getByLabel('name', { exact: true }).fill('Ada <b>Lovelace</b>');
    await page.getByRole('button', { name: 'Render' }).click();
    await expect.poll(() => page.locator('pre.rendered').textContent()).toBe('Write a short welcome for Ada <b>Lovelace</b>.');
    await page.getByRole('button', { name: 'Run' }).click();
    await expect.poll(() => page.locator('pre.output').textContent()).toBe('Write a short welcome for Ada <b>Lovelace</b>.'); // echo/echo answers with the prompt
    const runLink = page.getByRole('link', { name: /^run_/ });
    const runId = (await runLink.textContent())!;
    expect(await runLink.getAttribute('href')).toBe(`/ui/runs/${runId}`);
    expect((await api('GET', `/runs/${runId}`)).json).toMatchObject({ prompt_id: 'welcome', prompt_version: 1, inputs: { name: 'Ada <b>Lovelace</b>' } });
    expect(await page.locator('main b').count()).toBe(0);
    await screenshot(page, 'playground');
    expect(page.problems.filter((p) => !p.includes('422'))).toEqual([]); // the deliberate 422 is logged by the browser
    await page.close();
  });

  it('a read key sees everything and no editing control', { timeout: timeLimit({ starts: 1, steps: 15 }) }, async () => {
    server = await fx.serve();
    await api('POST', '/prompts', { prompt_id: 'welcome', template: 'Hi {{name}}', labels: ['production'] });
    await api('POST', '/prompts/welcome/versions', { template: 'Hello {{name}}' });
    const read = (await api('POST', '/keys', { name: 'viewer', role: 'read' })).json.key;
    const page = await signedIn(read);
    expect(await page.locator('header').textContent()).toContain('read-only key');
    await page.getByRole('link', { name: 'welcome' }).waitFor();
    expect(await page.getByRole('button', { name: 'New prompt' }).count()).toBe(0);
    await page.getByRole('link', { name: 'welcome' }).click();
    await page.getByRole('heading', { name: 'welcome' }).waitFor();
    await expect.poll(() => page.locator('.timeline li').count()).toBe(2);
    expect(await page.getByRole('button', { name: /Promote/ }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'New version' }).count()).toBe(0);
    await page.getByRole('heading', { name: 'Playground' }).waitFor(); // trying the prompt is reading it
    await page.close();
  });

  it('renders what users wrote as text: a template with <script> and <img onerror> runs nothing', {
    timeout: timeLimit({ starts: 1, steps: 10 }),
  }, async () => {
    server = await fx.serve();
    const evil = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">{{name}}';
    await api('POST', '/prompts', { prompt_id: 'evil', description: '<img src=x onerror="window.__pwned = 3">', template: evil });
    const page = await signedIn(ADMIN);
    await expect.poll(() => page.getByRole('row', { name: /evil/ }).textContent()).toContain('<img src=x onerror=');
    await page.goto(`${server.origin}/ui/prompts/evil/versions/1`);
    await page.getByRole('heading', { name: 'evil v1' }).waitFor();
    expect(await page.locator('pre.template').textContent()).toBe(evil);
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    await page.close();
  });

  it('a key revoked mid-session sends the console back to sign-in', { timeout: timeLimit({ starts: 1, steps: 9 }) }, async () => {
    server = await fx.serve();
    await api('POST', '/prompts', { prompt_id: 'welcome', template: 'Hi' });
    const created = (await api('POST', '/keys', { name: 'temp', role: 'read' })).json;
    const page = await signedIn(created.key);
    await api('DELETE', `/keys/${created.key_id}`);
    await page.getByRole('link', { name: 'welcome' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.context().cookies()).toEqual([]); // the 401 cleared the cookie
    await page.close();
  });
});
