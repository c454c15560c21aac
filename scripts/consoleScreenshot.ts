/**
 * Regenerates the README's console screenshot (docs/console.png): a fresh server on a temporary
 * SQLite file, the demo experiment with real traffic through the runtime API, and the experiment's
 * results page in Debian's chromium. Run with `npm run screenshot`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SERVER_JS, startProcess } from '../bench/processes.js';
import { launchChromium } from './chromium.js';
import { DEMO_EXPERIMENT, seedDemo } from './demoExperiment.js';

const ROOT = path.resolve(path.dirname(SERVER_JS), '../..');
const OUTPUT = path.join(ROOT, 'docs', 'console.png');
const ADMIN = 'pl_a_screenshot-admin-key-0000000000000000';

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-screenshot-'));
  const server = await startProcess(
    SERVER_JS,
    [],
    { PORT: '0', LOG_LEVEL: 'info', PROMPTLINE_DATA_DIR: dataDir, PROMPTLINE_BOOTSTRAP_ADMIN_KEY: ADMIN },
    /Server listening at http:\/\/127\.0\.0\.1:(\d+)/,
  );
  const browser = await launchChromium();
  try {
    await seedDemo({ origin: server.origin, adminKey: ADMIN }, 600);
    const page = await browser.newPage({ viewport: { width: 1280, height: 1100 }, deviceScaleFactor: 1 });
    await page.goto(`${server.origin}/ui/`);
    await page.getByLabel('API key').fill(ADMIN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Prompts' }).waitFor();
    await page.goto(`${server.origin}/ui/experiments/${DEMO_EXPERIMENT}`);
    // Ready when the scorecard and both charts (loaded on first use) are drawn.
    await page.locator('table.scorecard').first().waitFor({ timeout: 60_000 });
    await page.locator('.chart canvas').nth(1).waitFor({ timeout: 60_000 });
    // The results, from their heading down: what a reader of the README wants to see.
    const top = await page.getByRole('heading', { name: 'Results' }).boundingBox();
    await page.evaluate(`window.scrollTo(0, ${Math.max(0, (top?.y ?? 0) - 16)})`);
    await page.screenshot({ path: OUTPUT });
    console.log(`wrote ${path.relative(ROOT, OUTPUT)}`);
  } finally {
    await browser.close();
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
