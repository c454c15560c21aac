import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/modules/webhooks/signature.js';
import { apiClient, browserMissing, launchChromium, screenshot, signedInPage } from '../support/browser.js';
import { processFixtures, type RunningServer } from '../support/processes.js';
import { startReceiver, type Receiver } from '../support/webhookReceiver.js';
import { timeLimit } from '../support/timeLimits.js';

/**
 * The console's Audit log and Webhooks pages (admin keys only) in a real headless Chromium, against
 * the built server on a temporary SQLite file; webhook deliveries go to a real loopback HTTP
 * receiver. Changes are made through the public API or the page; what is checked is what the page
 * shows, and what the API and the receiver say happened.
 */
const skip = browserMissing();
const ADMIN = 'pl_a_browser-audit-webhooks-admin-key-00000';
const fx = processFixtures(ADMIN);
const EVIL = '<img src=x onerror=alert(1)>';

let server: RunningServer;
let browser: Browser;
let receiver: Receiver | null = null;
const api = apiClient(() => server.origin, ADMIN);
const signedIn = (key: string) => signedInPage(browser, server.origin, key);

const auditRows = (page: Page) => page.locator('table.audit tbody tr');
const deliveryRows = (page: Page) => page.locator('table.deliveries tbody tr');
// What has the focus (evaluated in the page, hence strings): its id, else its tag; its text; an attribute.
const focusedId = (page: Page) => page.evaluate<string | null>('document.activeElement && (document.activeElement.id || document.activeElement.tagName)');
const focusedText = (page: Page) => page.evaluate<string | null>('document.activeElement && document.activeElement.textContent');
const focusedAttr = (page: Page, name: string) =>
  page.evaluate<string | null>(`document.activeElement && document.activeElement.getAttribute(${JSON.stringify(name)})`);
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe.skipIf(skip !== null)(`the Audit log and Webhooks pages in Chromium${skip === null ? '' : ` (skipped: ${skip})`}`, () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());
  afterEach(async () => {
    await receiver?.close();
    receiver = null;
  });

  it('lists changes made through the API with who, what and before → after; filters narrow it, stay in the URL and survive a reload; Load more pages on', {
    timeout: timeLimit({ starts: 1, steps: 68 }),
  }, async () => {
    server = await fx.serve();
    expect((await api('POST', '/prompts', { prompt_id: 'welcome', template: 'Hi {{name}}', labels: ['production'] })).status).toBe(201);
    expect((await api('POST', '/prompts/welcome/versions', { template: 'Hello {{name}}' })).status).toBe(201);
    expect((await api('PUT', '/prompts/welcome/labels/production', { version: 2 })).status).toBe(200);
    // A second admin key, named with markup, makes one change of its own.
    const other = (await api('POST', '/keys', { name: `ops ${EVIL}`, role: 'admin' })).json;
    expect((await api('POST', '/prompts', { prompt_id: 'other', template: EVIL }, other.key)).status).toBe(201);
    const logged = (await api('GET', '/audit')).json.data;
    const moved = logged.find((e: { action: string }) => e.action === 'prompt.label_moved');
    expect(moved).toMatchObject({ target_type: 'prompt', target_id: 'welcome', before: { label: 'production', version: 1 }, after: { version: 2 } });

    const page = await signedIn(ADMIN);
    await page.getByRole('link', { name: 'Audit log', exact: true }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    expect(page.url()).toBe(`${server.origin}/ui/audit`);
    await expect.poll(() => auditRows(page).count()).toBe(logged.length);
    expect(await auditRows(page).evaluateAll((rows) => rows.map((r) => r.getAttribute('data-audit-id')))).toEqual(logged.map((e: { id: string }) => e.id));

    // The label move: who (name, prefix, id), what (action, a link to the prompt), before → after.
    const row = page.locator(`tr[data-audit-id="${moved.id}"]`);
    const bootstrap = (await api('GET', '/keys')).json.data.find((k: { name: string }) => k.name === 'bootstrap');
    const who = await row.locator('td').nth(1).textContent();
    expect(who).toContain('bootstrap');
    expect(who).toContain(bootstrap.key_prefix);
    expect(who).toContain(moved.key_id);
    expect(await row.locator('td').nth(2).textContent()).toBe('prompt.label_moved');
    expect(await row.getByRole('link', { name: 'prompt welcome' }).getAttribute('href')).toBe('/ui/prompts/welcome');
    expect(await row.locator('ul.diff li').allTextContents()).toEqual(['version: 1 → 2']);
    expect(await row.locator('ul.diff del').textContent()).toBe('1');
    expect(await row.locator('ul.diff ins').textContent()).toBe('2');
    // The two documents whole, on request.
    expect(await row.locator('details pre').first().isVisible()).toBe(false);
    await row.getByText('Full before and after (JSON)').click();
    expect(await row.locator('details pre').allTextContents()).toEqual([JSON.stringify(moved.before, null, 2), JSON.stringify(moved.after, null, 2)]);
    // A new version reads as its fields added; text users wrote is text.
    const made = page.locator('tr', { has: page.getByRole('link', { name: 'prompt other' }) });
    expect(await made.locator('ul.diff li').first().textContent()).toBe('prompt_id: "other"');
    await made.getByText('Full before and after (JSON)').click();
    expect(await made.locator('details pre').allTextContents()).toEqual([
      '(none: new)',
      JSON.stringify(logged.find((e: { target_id: string }) => e.target_id === 'other').after, null, 2),
    ]);
    expect(await made.locator('details pre').last().textContent()).toContain(`"template": ${JSON.stringify(EVIL)}`);
    expect(await made.locator('td').nth(1).textContent()).toContain(`ops ${EVIL}`);
    expect(await page.locator('main img, main script').count()).toBe(0);
    await screenshot(page, 'audit');

    // Filters narrow the list through the URL; the focus goes to what they found.
    await page.getByLabel('Action', { exact: true }).fill('prompt.label_moved');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.url()).toBe(`${server.origin}/ui/audit?action=prompt.label_moved`);
    await expect.poll(() => auditRows(page).count()).toBe(1);
    await expect.poll(() => focusedText(page)).toBe('1 entry shown, newest first.');
    await page.getByLabel('Target type').selectOption('experiment');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.url()).toBe(`${server.origin}/ui/audit?action=prompt.label_moved&target_type=experiment`);
    await expect.poll(() => page.locator('.empty').textContent()).toBe('No entry matches these filters.');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => page.url()).toBe(`${server.origin}/ui/audit`);
    await page.getByLabel('Key (id)').fill(other.key_id);
    await page.getByLabel('Target id').fill('other');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.url()).toBe(`${server.origin}/ui/audit?target_id=other&key_id=${other.key_id}`);
    await expect.poll(() => auditRows(page).count()).toBe(1);
    expect(await auditRows(page).locator('td').nth(2).textContent()).toBe('prompt.created');

    // The filtered view is a link: a reload keeps it, controls included.
    await page.reload();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    await expect.poll(() => auditRows(page).count()).toBe(1);
    expect(await page.getByLabel('Key (id)').inputValue()).toBe(other.key_id);
    expect(await page.getByLabel('Target id').inputValue()).toBe('other');

    // A UTC time range: nothing happened from tomorrow on; the API's 422 appears under its filter.
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await page.goto(`${server.origin}/ui/audit?since=${tomorrow}T00:00:00Z`);
    await expect.poll(() => page.locator('.empty').textContent()).toBe('No entry matches these filters.');
    expect(await page.getByLabel('Since (UTC)').inputValue()).toBe(`${tomorrow}T00:00`);
    await page.goto(`${server.origin}/ui/audit?until=${tomorrow}T00:00:00Z&action=prompt.version_created`);
    await expect.poll(() => auditRows(page).count()).toBe(1);
    await page.goto(`${server.origin}/ui/audit?since=not-a-time`);
    await expect.poll(() => page.locator('#filter-since ~ .field-error').count()).toBe(1);

    // More than a page: "Load more" follows next_cursor, and the focus goes to the first new row.
    for (let v = 3; v <= 53; v++) expect((await api('POST', '/prompts/welcome/versions', { template: `Hi {{name}} ${v}` })).status).toBe(201);
    await page.goto(`${server.origin}/ui/audit?action=prompt.version_created`);
    await expect.poll(() => auditRows(page).count()).toBe(50);
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => auditRows(page).count()).toBe(52);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    const all = (await api('GET', '/audit?action=prompt.version_created&limit=100')).json.data;
    expect(await auditRows(page).evaluateAll((rows) => rows.map((r) => r.getAttribute('data-audit-id')))).toEqual(all.map((e: { id: string }) => e.id));
    await expect.poll(() => focusedAttr(page, 'data-audit-id')).toBe(all[50].id);

    expect(page.dialogs).toEqual([]);
    expect(page.problems.filter((p) => !p.includes('422'))).toEqual([]); // the deliberate 422 is logged by the browser
    await page.close();
  });

  it('an admin creates an endpoint (its secret shown once), sends a test to a real receiver, sees it in the history, rotates the secret, edits, disables and deletes it', {
    timeout: timeLimit({ starts: 1, steps: 107 }),
  }, async () => {
    receiver = await startReceiver();
    server = await fx.serve(undefined, { PROMPTLINE_WEBHOOKS_ALLOW_PRIVATE: 'on' });
    const page = await signedIn(ADMIN);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByRole('heading', { name: 'Webhooks', exact: true }).waitFor();
    expect(page.url()).toBe(`${server.origin}/ui/webhooks`);
    await expect.poll(() => page.locator('.empty').textContent()).toBe('No webhook endpoints yet.');

    // The API's objections appear under the field they are about, and nothing is made.
    await page.getByLabel('URL').fill(receiver.url());
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await expect.poll(() => page.locator('fieldset.events .field-error').count()).toBe(1);
    await page.getByLabel('URL').fill(`http://user:pw@127.0.0.1:${receiver.port}/hook`);
    await page.getByLabel('prompt.label_moved').check();
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await expect.poll(() => page.locator('#new-webhook-url ~ .field-error').count()).toBe(1);
    expect(await page.locator('fieldset.events .field-error').count()).toBe(0);
    expect((await api('GET', '/webhooks')).json.data).toEqual([]);

    await page.getByLabel('URL').fill(receiver.url());
    await page.getByLabel('experiment.started').check();
    await page.getByLabel('Description (optional)').fill(`ops ${EVIL}`);
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    const secretShown = page.locator('[data-testid="webhook-secret"]');
    await expect.poll(() => secretShown.count()).toBe(1);
    const secret = (await secretShown.textContent())!;
    expect(secret).toMatch(/^whsec_/);
    expect(await focusedId(page)).toBe('new-secret-title');
    expect(await page.locator('.new-key').textContent()).toContain('it will not be shown again');
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Copied');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    const [hook] = (await api('GET', '/webhooks')).json.data;
    expect(hook).toMatchObject({ url: receiver.url(), events: ['prompt.label_moved', 'experiment.started'], description: `ops ${EVIL}`, enabled: true });
    const listed = page.locator(`tr[data-webhook-id="${hook.webhook_id}"]`);
    await expect
      .poll(() => listed.locator('td').allTextContents())
      .toEqual([
        `${receiver.url()}ops ${EVIL}`,
        'prompt.label_movedexperiment.started',
        'enabled',
        expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/),
      ]);
    expect(await page.locator('main img, main script').count()).toBe(0);
    await screenshot(page, 'webhooks');
    // Shown once: hidden, or after a reload, it is gone for good.
    await page.getByRole('button', { name: 'Done: hide the secret' }).click();
    await expect.poll(() => secretShown.count()).toBe(0);
    expect(await focusedId(page)).toBe('endpoints-title');
    await page.reload();
    await expect.poll(() => listed.count()).toBe(1);
    expect(await page.content()).not.toContain(secret);

    // Send test: a signed webhook.test reaches the receiver, and the page says what happened.
    await listed.getByRole('link', { name: receiver.url() }).click();
    await page.getByRole('heading', { name: `Webhook ${receiver.url()}` }).waitFor();
    expect(page.url()).toBe(`${server.origin}/ui/webhooks/${hook.webhook_id}`);
    await expect.poll(() => page.locator('.empty').textContent()).toBe('Nothing sent to this endpoint yet.');
    await page.getByRole('button', { name: 'Send test' }).click();
    await expect.poll(() => page.getByTestId('test-outcome').textContent()).toMatch(/^Delivered: the receiver answered HTTP 204 at /);
    expect(await focusedId(page)).toBe('SECTION');
    expect(receiver.received).toHaveLength(1);
    const first = receiver.received[0]!;
    expect(first.json).toMatchObject({ type: 'webhook.test', target: { type: 'webhook', id: hook.webhook_id } });
    expect(verifySignature(secret, String(first.headers['promptline-signature']), first.body, nowSeconds())).toBe(true);
    // The history shows it: status, attempts, the receiver's answer, and the payload as sent.
    await expect.poll(() => deliveryRows(page).count()).toBe(1);
    const [delivery] = (await api('GET', `/webhooks/${hook.webhook_id}/deliveries`)).json.data;
    expect(delivery).toMatchObject({ event_type: 'webhook.test', status: 'delivered', attempts: 1, last_status_code: 204 });
    await expect
      .poll(() => deliveryRows(page).locator('td').allTextContents())
      .toEqual([
        expect.stringMatching(/ UTC$/),
        'webhook.test',
        'delivered',
        '1',
        'HTTP 204',
        expect.stringMatching(/ UTC$/),
        expect.stringMatching(/ UTC$/),
        expect.stringContaining('Payload'),
      ]);
    await deliveryRows(page).getByText('Payload').click();
    expect(JSON.parse((await deliveryRows(page).locator('pre').textContent())!)).toEqual(first.json);

    // The history's status filter is in the URL and survives a reload.
    await page.getByLabel('Delivery status').selectOption('failed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.url()).toBe(`${server.origin}/ui/webhooks/${hook.webhook_id}?status=failed`);
    await expect.poll(() => page.locator('.empty').textContent()).toBe('No delivery matches this filter.');
    await page.reload();
    await expect.poll(() => page.locator('.empty').textContent()).toBe('No delivery matches this filter.');
    expect(await page.getByLabel('Delivery status').inputValue()).toBe('failed');
    await page.getByLabel('Delivery status').selectOption('delivered');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => deliveryRows(page).count()).toBe(1);

    // Rotate secret: asked first; the new secret is shown once and signs the next delivery, the old one no more.
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await focusedId(page)).toBe('BUTTON');
    expect(await focusedText(page)).toBe('Rotate secret');
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('button', { name: 'Confirm: rotate the secret' }).click();
    await expect.poll(() => secretShown.count()).toBe(1);
    const rotated = (await secretShown.textContent())!;
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    expect(await focusedId(page)).toBe('new-secret-title');
    await page.getByRole('button', { name: 'Send test' }).click();
    await expect.poll(() => receiver!.received.length).toBe(2);
    const second = receiver.received[1]!;
    expect(verifySignature(rotated, String(second.headers['promptline-signature']), second.body, nowSeconds())).toBe(true);
    expect(verifySignature(secret, String(second.headers['promptline-signature']), second.body, nowSeconds())).toBe(false);
    await expect.poll(() => deliveryRows(page).count()).toBe(2);
    await page.getByRole('button', { name: 'Done: hide the secret' }).click();
    expect(await focusedText(page)).toBe('Send test');

    // Edit: the form starts from the endpoint; a 422 stays under its field; a save is said, and kept.
    await page.getByRole('button', { name: 'Edit' }).click();
    expect(await focusedId(page)).toBe('edit-webhook-title');
    expect(await page.getByLabel('URL').inputValue()).toBe(receiver.url());
    await page.getByLabel('URL').fill('ftp://example.com/hook');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('#edit-webhook-url ~ .field-error').count()).toBe(1);
    await page.getByLabel('URL').fill(receiver.url('/hook2'));
    await page.getByLabel('Description (optional)').fill('the ops channel');
    await page.getByLabel('experiment.started').uncheck();
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('.notice').textContent()).toBe('Saved.');
    expect(await focusedText(page)).toBe('Saved.');
    expect((await api('GET', `/webhooks/${hook.webhook_id}`)).json).toMatchObject({
      url: receiver.url('/hook2'),
      events: ['prompt.label_moved'],
      description: 'the ops channel',
    });
    expect(await page.locator('.facts').textContent()).toContain('the ops channel');

    // Disable: no more events are queued; the page and the list say so.
    await page.getByRole('button', { name: 'Disable' }).click();
    await expect.poll(() => page.locator('.notice').textContent()).toMatch(/^Disabled: /);
    expect((await api('GET', `/webhooks/${hook.webhook_id}`)).json.enabled).toBe(false);
    await expect.poll(() => page.locator('.facts .status').textContent()).toBe('disabled');
    expect(await page.getByRole('button', { name: 'Enable' }).count()).toBe(1);
    await screenshot(page, 'webhook');

    // Every change to the endpoint is in the audit log, and no secret is.
    const audit = (await api('GET', `/audit?target_type=webhook&target_id=${hook.webhook_id}`)).json.data;
    expect(audit.map((e: { action: string }) => e.action)).toEqual(['webhook.updated', 'webhook.updated', 'webhook.secret_rotated', 'webhook.created']);
    await page.goto(`${server.origin}/ui/audit?target_type=webhook`);
    await expect.poll(() => auditRows(page).count()).toBe(audit.length);
    expect(await page.locator('main').textContent()).not.toContain(rotated);
    expect(await auditRows(page).first().locator('ul.diff').textContent()).toContain('enabled: true → false');
    expect(
      await auditRows(page)
        .first()
        .getByRole('link', { name: `webhook ${hook.webhook_id}` })
        .getAttribute('href'),
    ).toBe(`/ui/webhooks/${hook.webhook_id}`);

    // Delete: asked first; then the list says so, and the endpoint is gone.
    await page.goto(`${server.origin}/ui/webhooks/${hook.webhook_id}`);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Confirm: delete the endpoint' }).click();
    await expect.poll(() => page.url()).toBe(`${server.origin}/ui/webhooks`);
    await expect
      .poll(() => page.locator('.notice').textContent())
      .toBe(`Deleted the endpoint ${receiver.url('/hook2')}, with its queued deliveries and their history.`);
    expect(await focusedAttr(page, 'class')).toBe('notice');
    await expect.poll(() => page.locator('.empty').textContent()).toBe('No webhook endpoints yet.');
    expect((await api('GET', `/webhooks/${hook.webhook_id}`)).status).toBe(404);

    expect(page.dialogs).toEqual([]);
    expect(page.problems.filter((p) => !p.includes('422'))).toEqual([]); // the deliberate 422s are logged by the browser
    await page.close();
  });

  it('a read key sees neither link, and a deep link to either page says it is for admin keys only, with no controls', {
    timeout: timeLimit({ starts: 1, steps: 11 }),
  }, async () => {
    server = await fx.serve();
    const hook = (await api('POST', '/webhooks', { url: 'https://example.com/hook', events: ['prompt.label_moved'] })).json;
    const read = (await api('POST', '/keys', { name: 'viewer', role: 'read' })).json.key;
    const page = await signedIn(read);
    const asked: string[] = [];
    page.on('request', (r) => asked.push(new URL(r.url()).pathname));
    expect(await page.getByRole('navigation').getByRole('link').allTextContents()).toEqual([
      'Prompts',
      'Experiments',
      'Runs',
      'Datasets',
      'Evaluators',
      'Evaluations',
    ]);
    for (const [path, title] of [
      ['/ui/audit', 'Audit log'],
      ['/ui/webhooks', 'Webhooks'],
      [`/ui/webhooks/${hook.webhook_id}`, 'Webhook'],
    ]) {
      await page.goto(`${server.origin}${path}`);
      await page.getByRole('heading', { name: title, exact: true }).waitFor();
      expect(await page.locator('main .notice').textContent()).toMatch(/^Admin keys only: /);
      expect(await page.locator('main button, main input, main select, main form, main table').count()).toBe(0);
      expect(await page.getByRole('alert').count()).toBe(0);
    }
    // Each load asks GET /keys to learn the role (a read key's 403 is logged by the browser); the pages ask the API nothing.
    expect(page.problems.filter((p) => !p.includes('403'))).toEqual([]);
    expect(asked.filter((p) => p.startsWith('/audit') || p.startsWith('/webhooks'))).toEqual([]);
    await page.close();
  });
});
