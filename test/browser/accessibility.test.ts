import fs from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_EXPERIMENT, DEMO_PROMPT, seedDemo } from '../../scripts/demoExperiment.js';
import { browserMissing, expectAccessible, launchChromium, signInContext } from '../support/browser.js';
import { type RunningServer, startServer, tempDataDir } from '../support/processes.js';
import { timeLimit } from '../support/timeLimits.js';

/**
 * Every page of the console through axe-core (0 serious or critical violations), in the light and
 * the dark colour scheme, on a desktop and on a phone 390 px wide, where no page may scroll sideways
 * (wide tables scroll inside their card). Adding a page to the console is one line in PAGES.
 */
const skip = browserMissing();
const ADMIN = 'pl_a_browser-a11y-admin-key-0000000000000';
const dataDir = tempDataDir();
const PHONE = 390;

let server: RunningServer;
let browser: Browser;
let runId: string;
let webhookId: string;
let evaluationId: string;

interface ConsolePage {
  name: string;
  /** Under /ui; may use what beforeAll made. */
  path: () => string;
  /** The page is drawn (its data loaded) once this resolves. */
  ready: (page: Page) => Promise<unknown>;
}

const heading = (name: string) => (page: Page) => page.getByRole('heading', { name, level: 1 }).waitFor();

const PAGES: ConsolePage[] = [
  { name: 'prompts', path: () => '/prompts', ready: (page) => page.getByRole('link', { name: DEMO_PROMPT, exact: true }).first().waitFor() },
  // Its online evaluators' table is the last part to load.
  { name: 'a prompt', path: () => `/prompts/${DEMO_PROMPT}`, ready: (page) => page.locator('table.online-evaluators tbody tr').first().waitFor() },
  { name: 'a version', path: () => `/prompts/${DEMO_PROMPT}/versions/2`, ready: heading(`${DEMO_PROMPT} v2`) },
  { name: 'experiments', path: () => '/experiments', ready: (page) => page.locator('table.experiments tbody tr').first().waitFor() },
  { name: 'an experiment with results', path: () => `/experiments/${DEMO_EXPERIMENT}`, ready: (page) => page.locator('table.scorecard').first().waitFor() },
  { name: 'runs', path: () => '/runs', ready: (page) => page.locator('table.runs tbody tr').first().waitFor() },
  { name: 'a run', path: () => `/runs/${runId}`, ready: (page) => page.getByRole('heading', { name: 'Online scores' }).waitFor() },
  { name: 'keys', path: () => '/keys', ready: (page) => page.locator('table.keys tbody tr').first().waitFor() },
  { name: 'audit log', path: () => '/audit', ready: (page) => page.locator('table.audit tbody tr').first().waitFor() },
  { name: 'webhooks', path: () => '/webhooks', ready: (page) => page.locator('table.webhooks tbody tr').first().waitFor() },
  { name: 'a webhook', path: () => `/webhooks/${webhookId}`, ready: (page) => page.locator('h1.webhook-title').waitFor() },
  { name: 'datasets', path: () => '/datasets', ready: (page) => page.locator('table.datasets tbody tr').first().waitFor() },
  { name: 'a dataset', path: () => '/datasets/a11y-questions', ready: (page) => page.locator('table.dataset-items tbody tr').first().waitFor() },
  { name: 'evaluators', path: () => '/evaluators', ready: (page) => page.locator('table.evaluators tbody tr').first().waitFor() },
  { name: 'an evaluator', path: () => '/evaluators/short', ready: (page) => page.locator('table.evaluator-versions tbody tr').first().waitFor() },
  { name: 'evaluations', path: () => '/evaluations', ready: (page) => page.locator('table.evaluations tbody tr').first().waitFor() },
  { name: 'an evaluation', path: () => `/evaluations/${evaluationId}`, ready: (page) => page.locator('table.evaluation-items tbody tr').first().waitFor() },
];

const SETTINGS = [
  { colorScheme: 'light', width: 1280 },
  { colorScheme: 'dark', width: 1280 },
  { colorScheme: 'light', width: PHONE },
  { colorScheme: 'dark', width: PHONE },
] as const;

async function contextFor(setting: (typeof SETTINGS)[number], signedIn: boolean): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: setting.width, height: 900 }, colorScheme: setting.colorScheme });
  if (signedIn) await signInContext(context, server.origin, ADMIN);
  return context;
}

async function expectNoSidewaysScroll(page: Page, where: string): Promise<void> {
  const width = (await page.evaluate('document.scrollingElement.scrollWidth')) as number;
  expect(width, `${where} scrolls sideways at ${PHONE} px`).toBeLessThanOrEqual(PHONE);
}

describe.skipIf(skip !== null)(`the console's accessibility${skip === null ? '' : ` (skipped: ${skip})`}`, () => {
  const SETUP_LIMIT = timeLimit({ starts: 2, steps: 10 }); // Chromium, the server, the demo's traffic and the requests above
  beforeAll(async () => {
    browser = await launchChromium();
    // One server for every check (processFixtures would stop it after each test): the pages only read.
    server = await startServer({ PROMPTLINE_DATA_DIR: dataDir, PROMPTLINE_BOOTSTRAP_ADMIN_KEY: ADMIN });
    await seedDemo({ origin: server.origin, adminKey: ADMIN }, 60);
    // The prompt page with the "managed in Git" notice and its switch.
    const marked = await fetch(`${server.origin}/prompts/${DEMO_PROMPT}`, {
      method: 'PATCH',
      headers: { 'x-api-key': ADMIN, 'content-type': 'application/json' },
      body: JSON.stringify({ managed_in_git: true }),
    });
    expect(marked.status).toBe(200);
    const runs = await fetch(`${server.origin}/runs?limit=1`, { headers: { 'x-api-key': ADMIN } });
    runId = ((await runs.json()) as { data: { run_id: string }[] }).data[0]!.run_id;
    const hook = await fetch(`${server.origin}/webhooks`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.com/hook', events: ['prompt.label_moved'], description: 'ops' }),
    });
    webhookId = ((await hook.json()) as { webhook_id: string }).webhook_id;
    for (const [path, body] of [
      ['/datasets', { dataset_id: 'a11y-questions', description: 'help desk' }],
      ['/datasets/a11y-questions/items', { items: [{ inputs: { question: 'Can I get a refund?' }, expected: 'Within 30 days.' }] }],
      ['/evaluators', { evaluator_id: 'short', kind: 'length', max_chars: 200 }],
      [`/prompts/${DEMO_PROMPT}/online_evaluators`, { evaluator_id: 'short', sample_rate: 0.5 }],
    ] as const) {
      const made = await fetch(`${server.origin}${path}`, {
        method: 'POST',
        headers: { 'x-api-key': ADMIN, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(made.status).toBe(201);
    }
    const evaluation = await fetch(`${server.origin}/evaluations`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt_id: DEMO_PROMPT, versions: [2, 1], dataset_id: 'a11y-questions', evaluators: ['short'] }),
    });
    expect(evaluation.status).toBe(202);
    evaluationId = ((await evaluation.json()) as { evaluation_id: string }).evaluation_id;
  }, SETUP_LIMIT);
  afterAll(async () => {
    await browser?.close();
    await server?.stop('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  for (const setting of SETTINGS) {
    const label = `${setting.colorScheme}, ${setting.width} px`;

    it(`the sign-in page (${label})`, { timeout: timeLimit({ steps: 11 }) }, async () => {
      const context = await contextFor(setting, false);
      const page = await context.newPage();
      await page.goto(`${server.origin}/ui/`);
      await page.getByLabel('API key').waitFor();
      await expectAccessible(page, `sign-in (${label})`);
      // A refused key's message, too.
      await page.getByLabel('API key').fill('pl_a_not-a-key');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').waitFor();
      await expectAccessible(page, `sign-in with an error (${label})`);
      if (setting.width === PHONE) await expectNoSidewaysScroll(page, 'sign-in');
      await context.close();
    });

    // four steps a page
    it(`every page, signed in (${label})`, { timeout: timeLimit({ steps: 3 + 4 * PAGES.length }) }, async () => {
      const context = await contextFor(setting, true);
      const page = await context.newPage();
      for (const consolePage of PAGES) {
        await page.goto(`${server.origin}/ui${consolePage.path()}`);
        await consolePage.ready(page);
        await expectAccessible(page, `${consolePage.name} (${label})`);
        if (setting.width === PHONE) await expectNoSidewaysScroll(page, consolePage.name);
      }
      await context.close();
    });
  }
});
