import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, browserMissing, launchChromium, screenshot, signedInPage } from '../support/browser.js';
import { behave, FakeOpenAI } from '../support/fakeOpenAI.js';
import { processFixtures, type RunningServer } from '../support/processes.js';
import { writeTempJson } from '../support/tempJson.js';
import { timeLimit } from '../support/timeLimits.js';

/**
 * The console's Runs and Keys pages in a real headless Chromium, against the built server on a
 * temporary SQLite file. Runs are made through the public API (the built-in echo provider, and a
 * fake OpenAI-compatible one for prices, retries and failures); what is checked is what the page shows.
 */
const skip = browserMissing();
const ADMIN = 'pl_a_browser-runs-keys-admin-key-000000000';
const fx = processFixtures(ADMIN);
const EVIL = '<script>alert(1)</script><img src=x onerror=alert(1)>';

let server: RunningServer;
let browser: Browser;
let fake: FakeOpenAI | null = null;
const api = apiClient(() => server.origin, ADMIN);

const signedIn = (key: string) => signedInPage(browser, server.origin, key);

/** A server with echo (the default model) and `fake/m`, priced at $0.01 / $0.02 per million tokens. */
async function serveWithRuns() {
  fake = new FakeOpenAI();
  const { baseURL } = await fake.start();
  server = await fx.serve(undefined, {
    PROMPTLINE_PROVIDER_FAKE_BASE_URL: baseURL,
    PROMPTLINE_MAX_RETRIES: '1',
    PROMPTLINE_PRICES_FILE: writeTempJson({ 'fake/m': { input: 0.01, output: 0.02 } }),
  });
  await api('POST', '/prompts', { prompt_id: 'welcome', template: 'Hi {{name}}', labels: ['production'] });
  await api('POST', '/prompts', { prompt_id: 'paid', template: 'Summarise {{doc}}', model: 'fake/m', labels: ['production'] });
  const run = async (body: unknown, status = 200) => {
    const res = await api('POST', '/run_prompt', body);
    expect(res.status).toBe(status);
    return res.json;
  };
  const evil = await run({ prompt_id: 'welcome', inputs: { name: EVIL }, external_user_id: `u-${EVIL}` });
  const ada = await run({ prompt_id: 'welcome', inputs: { name: 'Ada' }, external_user_id: 'u-1' });
  fake.script([behave.serverError(), behave.ok({ content: 'A short summary', usage: { prompt_tokens: 10, completion_tokens: 5 } })]);
  const retried = await run({ prompt_id: 'paid', inputs: { doc: 'a long text' }, external_user_id: 'u-1' });
  fake.script([behave.badRequest()]);
  await run({ prompt_id: 'paid', inputs: { doc: 'another text' }, external_user_id: 'u-2' }, 502);
  return { evil, ada, retried };
}

const rowsOf = (page: Page) => page.locator('table.runs tbody tr');
const cellsOf = (page: Page, table: string) =>
  page.locator(`${table} tbody tr`).evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));

describe.skipIf(skip !== null)(`the Runs and Keys pages in Chromium${skip === null ? '' : ` (skipped: ${skip})`}`, () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());
  afterEach(async () => {
    await fake?.close();
    fake = null;
  });

  it('lists runs, filters them by prompt, user, status and time through the URL, keeps them on reload, and pages on', {
    timeout: timeLimit({ steps: 49 }),
  }, async () => {
    await serveWithRuns();
    const page = await signedIn(ADMIN);
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    expect(page.url()).toBe(`${server.origin}/ui/runs`);
    await expect.poll(() => rowsOf(page).count()).toBe(4);
    // Newest first; what users wrote is text, never markup.
    const cells = await cellsOf(page, 'table.runs');
    expect(cells.map((c) => [c[1], c[3], c[4], c[5]])).toEqual([
      ['paid v1', 'u-2', 'error', 'fake/m'],
      ['paid v1', 'u-1', 'ok', 'fake/m'],
      ['welcome v1', 'u-1', 'ok', 'echo/echo'],
      ['welcome v1', `u-${EVIL}`, 'ok', 'echo/echo'],
    ]);
    expect(cells[1]![7]).toBe('$0.0000002'); // 10 × $0.01 + 5 × $0.02 per million tokens: no exponent, not $0
    expect(await page.locator('main img, main script').count()).toBe(0);
    await screenshot(page, 'runs');

    await page.getByLabel('Prompt').fill('paid');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.url()).toBe(`${server.origin}/ui/runs?prompt_id=paid`);
    await expect.poll(() => rowsOf(page).count()).toBe(2);
    await page.getByLabel('Status').selectOption('error');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.url()).toBe(`${server.origin}/ui/runs?prompt_id=paid&status=error`);
    await expect.poll(() => rowsOf(page).count()).toBe(1);
    expect(await rowsOf(page).textContent()).toContain('u-2');

    await page.reload();
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    await expect.poll(() => rowsOf(page).count()).toBe(1);
    expect(await page.getByLabel('Prompt').inputValue()).toBe('paid');
    expect(await page.getByLabel('Status').inputValue()).toBe('error');

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => page.url()).toBe(`${server.origin}/ui/runs`);
    await page.getByLabel('User (external_user_id)').fill('u-1');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.url()).toBe(`${server.origin}/ui/runs?external_user_id=u-1`);
    await expect.poll(() => rowsOf(page).count()).toBe(2);
    expect((await cellsOf(page, 'table.runs')).map((c) => c[1])).toEqual(['paid v1', 'welcome v1']);

    // Times are typed in UTC and sent as UTC; nothing was made tomorrow, and everything before it.
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('Since (UTC)').fill(`${tomorrow}T00:00`);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.url()).toBe(`${server.origin}/ui/runs?since=${encodeURIComponent(`${tomorrow}T00:00:00Z`)}`);
    await expect.poll(() => page.locator('.empty').textContent()).toBe('No run matches these filters.');
    await page.goto(`${server.origin}/ui/runs?until=${tomorrow}T00:00:00Z&prompt_id=welcome`);
    await expect.poll(() => rowsOf(page).count()).toBe(2);
    expect(await page.getByLabel('Until (UTC, not included)').inputValue()).toBe(`${tomorrow}T00:00`);
    // The API's 422 about a filter is shown under that filter.
    await page.goto(`${server.origin}/ui/runs?since=not-a-time`);
    await expect.poll(() => page.locator('#filter-since ~ .field-error').count()).toBe(1);
    expect(await rowsOf(page).count()).toBe(0);

    // More than a page: "Load more" follows next_cursor.
    for (let i = 0; i < 52; i++)
      expect((await api('POST', '/run_prompt', { prompt_id: 'welcome', inputs: { name: `n${i}` }, external_user_id: 'bulk' })).status).toBe(200);
    await page.goto(`${server.origin}/ui/runs?external_user_id=bulk`);
    await expect.poll(() => rowsOf(page).count()).toBe(50);
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => rowsOf(page).count()).toBe(52);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    expect(await page.getByText(/runs shown/).textContent()).toBe('52 runs shown, newest first.');
    expect(new Set(await rowsOf(page).evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-id')))).size).toBe(52);

    expect(page.dialogs).toEqual([]);
    expect(page.problems.filter((p) => !p.includes('422'))).toEqual([]); // the deliberate 422 is logged by the browser
    await page.close();
  });

  it("shows a run as the API stores it: inputs, rendered prompt, output, every attempt, tokens and cost; a missing run is the API's 404", {
    timeout: timeLimit({ steps: 38 }),
  }, async () => {
    const { evil, retried } = await serveWithRuns();
    const page = await signedIn(ADMIN);
    await page.goto(`${server.origin}/ui/runs?prompt_id=paid&status=ok`);
    await page.getByRole('link', { name: `, run ${retried.run_id}` }).click(); // the time, named with the run
    await page.getByRole('heading', { name: `Run ${retried.run_id}` }).waitFor();
    expect(page.url()).toBe(`${server.origin}/ui/runs/${retried.run_id}`);
    const stored = (await api('GET', `/runs/${retried.run_id}`)).json;
    expect(stored).toMatchObject({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, token_cost_usd: 2e-7, cost_known: true });
    expect(
      await page
        .locator('table.inputs tbody tr')
        .evaluateAll((rows) => rows.map((r) => [r.querySelector('th')?.textContent, r.querySelector('pre')?.textContent])),
    ).toEqual(Object.entries(stored.inputs));
    expect(await page.locator('pre.rendered').textContent()).toBe(stored.rendered_prompt);
    expect(await page.locator('pre.output').textContent()).toBe(stored.output);
    expect(await page.locator('[data-fact="tokens"]').textContent()).toBe(
      `${stored.prompt_tokens} in, ${stored.completion_tokens} out, ${stored.total_tokens} in all`,
    );
    expect(await page.locator('[data-fact="cost"]').textContent()).toBe('$0.0000002');
    expect(await page.locator('[data-fact="latency"]').textContent()).toBe(`${stored.latency_ms} ms`);
    expect(await cellsOf(page, 'table.attempts')).toEqual(
      stored.attempts.map((a: { model: string; attempt: number; status: number; error: string | null; latency_ms: number }, i: number) => [
        String(i + 1),
        a.model,
        String(a.attempt),
        String(a.status),
        a.error ?? '–',
        `${a.latency_ms} ms`,
      ]),
    );
    expect(stored.attempts.map((a: { status: number }) => a.status)).toEqual([500, 200]);
    expect(await page.getByRole('link', { name: 'paid v1' }).getAttribute('href')).toBe('/ui/prompts/paid/versions/1');
    await screenshot(page, 'run');

    // What users wrote is shown as text: the script and the onerror handler do nothing.
    await page.goto(`${server.origin}/ui/runs/${evil.run_id}`);
    await page.getByRole('heading', { name: `Run ${evil.run_id}` }).waitFor();
    expect(await page.locator('table.inputs pre').textContent()).toBe(EVIL);
    expect(await page.locator('pre.output').textContent()).toBe(`Hi ${EVIL}`);
    expect(await page.locator('.run-facts').textContent()).toContain(`u-${EVIL}`);
    expect(await page.locator('main img, main script').count()).toBe(0);

    // A failed run: the error, no output, and the attempt that failed.
    const failed = (await api('GET', '/runs?status=error')).json.data[0];
    await page.goto(`${server.origin}/ui/runs/${failed.run_id}`);
    await expect.poll(() => page.locator('.run-error pre').textContent()).toBe(failed.error);
    expect(await page.locator('main').textContent()).toContain('No output: the run failed.');
    expect((await cellsOf(page, 'table.attempts')).map((c) => [c[1], c[3], c[4]])).toEqual(
      failed.attempts.map((a: { model: string; status: number; error: string }) => [a.model, String(a.status), a.error]),
    );
    expect(failed.attempts.map((a: { status: number }) => a.status)).toEqual([400]);
    await screenshot(page, 'run-failed');

    // A run of an experiment links to the experiment.
    await api('POST', '/prompts/welcome/versions', { template: 'Hello {{name}}' });
    await api('POST', '/experiments', {
      experiment_id: 'warmth',
      prompt_id: 'welcome',
      variants: [
        { key: 'a', version: 1 },
        { key: 'b', version: 2 },
      ],
    });
    await api('POST', '/experiments/warmth/start');
    const inExperiment = (await api('POST', '/run_prompt', { prompt_id: 'welcome', inputs: { name: 'Bo' }, external_user_id: 'u-9' })).json;
    await page.goto(`${server.origin}/ui/runs/${inExperiment.run_id}`);
    await expect.poll(() => page.getByRole('link', { name: 'warmth' }).getAttribute('href')).toBe('/ui/experiments/warmth');
    expect(await page.locator('.run-facts').textContent()).toContain(`variant ${inExperiment.variant_assigned}`);

    const missing = await api('GET', '/runs/run_does-not-exist');
    expect(missing.status).toBe(404);
    await page.goto(`${server.origin}/ui/runs/run_does-not-exist`);
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(missing.json.detail);

    expect(page.dialogs).toEqual([]);
    expect(page.problems.filter((p) => !p.includes('404'))).toEqual([]); // the deliberate 404 is logged by the browser
    await page.close();
  });

  it('an admin creates a key (shown once, copied), uses it, and revokes it after confirming; its own key cannot be revoked here', {
    timeout: timeLimit({ starts: 1, steps: 46 }),
  }, async () => {
    server = await fx.serve();
    const page = await signedIn(ADMIN);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
    await page.getByRole('link', { name: 'Keys', exact: true }).click();
    await page.getByRole('heading', { name: 'Keys', exact: true }).waitFor();
    expect(page.url()).toBe(`${server.origin}/ui/keys`);
    const bootstrap = page.getByRole('row', { name: /bootstrap/ });
    await expect.poll(() => bootstrap.textContent()).toContain('signed in with this key');
    expect(await bootstrap.getByRole('button').count()).toBe(0);

    // The API's 422 about the expiry is shown under the Expires field, and nothing is made.
    await page.getByLabel('Name').fill('too late');
    await page.getByLabel('Expires (UTC, optional)').fill('2020-01-01T00:00');
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => page.locator('#key-expires ~ .field-error').textContent()).toContain('expires_at must be in the future');
    expect((await api('GET', '/keys')).json.data).toHaveLength(1);

    const name = 'viewer <b>bot</b>';
    await page.getByLabel('Name').fill(name);
    await page.getByLabel('Role').selectOption('read');
    await page.getByLabel('Expires (UTC, optional)').fill('');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = page.locator('code.secret');
    await expect.poll(() => secret.count()).toBe(1);
    const key = (await secret.textContent())!;
    expect(key).toMatch(/^pl_v_/);
    expect(await page.locator('.new-key').textContent()).toContain('it will not be shown again');
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Copied');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);
    const row = page.getByRole('row', { name: /viewer/ });
    await expect.poll(() => row.locator('td').first().textContent()).toBe(name);
    expect(await page.locator('main b').count()).toBe(0);
    const listed = (await api('GET', '/keys')).json.data.find((k: { name: string }) => k.name === name);
    expect(await row.textContent()).toContain(listed.key_prefix);
    expect(await row.textContent()).toContain(listed.key_id);
    await screenshot(page, 'keys');

    // The new key works against the API; once hidden (or after a reload) it is not shown again.
    expect((await api('GET', '/prompts', undefined, key)).status).toBe(200);
    await page.getByRole('button', { name: 'Done: hide the key' }).click();
    await expect.poll(() => secret.count()).toBe(0);
    await page.reload();
    await page.getByRole('heading', { name: 'Keys', exact: true }).waitFor();
    await expect.poll(() => row.count()).toBe(1);
    expect(await page.content()).not.toContain(key);

    // Revoking asks first; Cancel leaves the key working.
    await row.getByRole('button', { name: `Revoke ${name}` }).click();
    expect(await row.textContent()).toContain('Are you sure?');
    await row.getByRole('button', { name: 'Cancel' }).click();
    expect(await row.getByRole('button', { name: /^Confirm/ }).count()).toBe(0);
    expect((await api('GET', '/prompts', undefined, key)).status).toBe(200);
    await row.getByRole('button', { name: `Revoke ${name}` }).click();
    await row.getByRole('button', { name: `Confirm: revoke ${name}` }).click();
    await expect.poll(() => row.locator('td').nth(7).textContent()).toMatch(/^revoked \d{4}-\d{2}-\d{2} /);
    expect(await row.getByRole('button').count()).toBe(0);
    expect((await api('GET', '/prompts', undefined, key)).status).toBe(401);

    expect(page.dialogs).toEqual([]);
    expect(page.problems.filter((p) => !p.includes('422'))).toEqual([]); // the deliberate 422 is logged by the browser
    await page.close();
  });

  it('a read key sees runs but no Keys link, and /ui/keys says only admin keys manage keys, with no controls', {
    timeout: timeLimit({ starts: 1, steps: 12 }),
  }, async () => {
    server = await fx.serve();
    await api('POST', '/prompts', { prompt_id: 'welcome', template: 'Hi {{name}}' });
    await api('POST', '/run_prompt', { prompt_id: 'welcome', inputs: { name: 'Ada' } });
    const read = (await api('POST', '/keys', { name: 'viewer', role: 'read' })).json.key;
    const page = await signedIn(read);
    expect(await page.getByRole('navigation').getByRole('link').allTextContents()).toEqual([
      'Prompts',
      'Experiments',
      'Runs',
      'Datasets',
      'Evaluators',
      'Evaluations',
    ]);
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await expect.poll(() => rowsOf(page).count()).toBe(1);
    await page.goto(`${server.origin}/ui/keys`);
    await expect.poll(() => page.locator('main').textContent()).toContain('Only admin keys manage keys.');
    expect(await page.locator('main button, main input, main select, main form').count()).toBe(0);
    // Signing in asks GET /keys to learn the role: a read key's 403 is logged by the browser.
    expect(page.problems.filter((p) => !p.includes('403'))).toEqual([]);
    await page.close();
  });
});
