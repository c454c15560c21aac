/**
 * Regenerates the README's console screenshots: a fresh server on a temporary SQLite file, the demo
 * experiment with real traffic through the runtime API, then in Debian's chromium the experiment's
 * results page (docs/console.png) and the prompt's page with its numbers and the playground running
 * two versions side by side (docs/console-prompt.png). Run with `npm run screenshot`.
 */
import path from 'node:path';
import { SERVER_JS } from '../bench/processes.js';
import { withConsoleServer } from './consoleServer.js';
import { DEMO_EXPERIMENT, DEMO_PROMPT, seedDemo } from './demoExperiment.js';

const ROOT = path.resolve(path.dirname(SERVER_JS), '../..');
const RESULTS_PNG = path.join(ROOT, 'docs', 'console.png');
const PROMPT_PNG = path.join(ROOT, 'docs', 'console-prompt.png');
const ADMIN = 'pl_a_screenshot-admin-key-0000000000000000';

await withConsoleServer(ADMIN, async (origin, browser) => {
  await seedDemo({ origin: origin, adminKey: ADMIN }, 600);
  const page = await browser.newPage({ viewport: { width: 1280, height: 1100 }, deviceScaleFactor: 1 });
  await page.goto(`${origin}/ui/`);
  await page.getByLabel('API key').fill(ADMIN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Prompts' }).waitFor();
  await page.goto(`${origin}/ui/experiments/${DEMO_EXPERIMENT}`);
  // Ready when the scorecard and both charts (loaded on first use) are drawn.
  await page.locator('table.scorecard').first().waitFor({ timeout: 60_000 });
  await page.locator('.chart canvas').nth(1).waitFor({ timeout: 60_000 });
  // The results, from their heading down: what a reader of the README wants to see.
  const top = await page.getByRole('heading', { name: 'Results' }).boundingBox();
  await page.evaluate(`window.scrollTo(0, ${Math.max(0, (top?.y ?? 0) - 16)})`);
  await page.screenshot({ path: RESULTS_PNG });
  console.log(`wrote ${path.relative(ROOT, RESULTS_PNG)}`);

  // The prompt's page: its numbers per version, and both versions run side by side.
  await page.goto(`${origin}/ui/prompts/${DEMO_PROMPT}`);
  await page.getByRole('heading', { name: 'Playground' }).waitFor();
  await page.getByRole('button', { name: 'Compare side by side' }).click();
  await page.getByLabel('name', { exact: true }).fill('Ada');
  await page.getByLabel('team', { exact: true }).fill('the data team');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.locator('article[data-column="B"] pre.output').waitFor({ timeout: 60_000 });
  // From the numbers down to both columns' answers (Run moved the focus, and the scroll, to them).
  await page.setViewportSize({ width: 1280, height: 1400 });
  await page.getByRole('heading', { name: 'Numbers' }).evaluate((heading) => heading.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: PROMPT_PNG });
  console.log(`wrote ${path.relative(ROOT, PROMPT_PNG)}`);
});
