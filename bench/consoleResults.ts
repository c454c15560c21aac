/**
 * The console's results page at scale: the experiment of bench/results.ts (100 000 exposed users,
 * 1 000 000 outcomes, 200 000 runs; two goal metrics, a cost guardrail, CUPED on) opened in
 * Chromium against the built server. Reports the time from navigation to the scorecard being
 * visible, as a ratio to the 2 s target, and how much of it is the results API call.
 *
 *   npm run bench -- console
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CHROMIUM, launchChromium } from '../scripts/chromium.js';
import { signInContext } from '../scripts/transfer.js';
import { startPromptlineProcess } from './processes.js';
import { ADMIN_KEY, benchApp, seededExperiment } from './results.js';

const TARGET_MS = 2000;
const LOADS = Number(process.env.BENCH_LOADS ?? 7);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * Runs in the page (a function, not a string: the console's CSP forbids eval): the page's clock,
 * which counts from the start of the navigation, at the first frame the scorecard has a size.
 * This file has no DOM types, hence the casts.
 */
function scorecardVisibleAt(): number | false {
  const page = globalThis as unknown as { document: { querySelector(s: string): { getBoundingClientRect(): { height: number } } | null } };
  const table = page.document.querySelector('table.scorecard');
  return table !== null && table.getBoundingClientRect().height > 0 ? performance.now() : false;
}

/** The experiment and its population, written with the app itself, which is then closed. */
async function seeded(dataDir: string): Promise<string> {
  const { app, projectId } = await benchApp(dataDir);
  try {
    const seeding = performance.now();
    const experimentId = await seededExperiment(app, projectId);
    console.log(`console results bench: 100000 users seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
    return experimentId;
  } finally {
    await app.close();
  }
}

export async function main(): Promise<void> {
  console.log('\n## The console: an experiment results page at 100 000 users\n');
  if (!fs.existsSync(CHROMIUM)) {
    console.log(`skipped: ${CHROMIUM} not found (apt-get install chromium)`);
    return;
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-bench-console-'));
  const experimentId = await seeded(dataDir);
  const child = await startPromptlineProcess({ PROMPTLINE_DATA_DIR: dataDir, LOG_LEVEL: 'silent', PROMPTLINE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY });
  const browser = await launchChromium();
  try {
    const context = await browser.newContext();
    // Signed in as the console signs in: the session cookie, and the page's hint that this browser has one.
    await signInContext(context, child.origin, ADMIN_KEY);
    const url = `${child.origin}/ui/experiments/${experimentId}`;
    const totals: number[] = [];
    const apis: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      const page = await context.newPage();
      await page.goto(url, { waitUntil: 'commit' });
      const visible = await (await page.waitForFunction(scorecardVisibleAt, undefined, { polling: 'raf', timeout: 120_000 })).jsonValue();
      const api = (await page.evaluate(
        "performance.getEntriesByType('resource').filter((e) => /\\/experiments\\/[^/]+\\/results/.test(e.name)).map((e) => e.responseEnd - e.startTime)",
      )) as number[];
      totals.push(visible as number);
      apis.push(Math.max(...api));
      console.log(
        `  load ${i + 1}: scorecard visible after ${(visible as number).toFixed(0)} ms, results API call ${Math.max(...api).toFixed(0)} ms (${api.length} call)`,
      );
      await page.close();
    }
    const warm = totals.slice(1);
    const warmApi = apis.slice(1);
    console.log(
      `first load ${totals[0]!.toFixed(0)} ms (API ${apis[0]!.toFixed(0)} ms); median of the ${warm.length} later loads ${median(warm).toFixed(0)} ms, of which the API call ${median(warmApi).toFixed(0)} ms (${((median(warmApi) / median(warm)) * 100).toFixed(0)}%)`,
    );
    console.log(`median page ${(median(warm) / TARGET_MS).toFixed(2)} of the 2 s target (must stay below 1.00)`);
  } finally {
    await browser.close();
    await child.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
