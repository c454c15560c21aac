import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { CHROMIUM } from '../../scripts/chromium.js';
import { ROOT } from './processes.js';

export { launchChromium } from '../../scripts/chromium.js';

/**
 * Whether browser tests can run here. Without chromium they are skipped with this reason, except
 * where PROMPTLINE_REQUIRE_BROWSER=1 (CI sets it) makes a missing browser a failure.
 */
export function browserMissing(): string | null {
  if (fs.existsSync(CHROMIUM)) return null;
  const reason = `${CHROMIUM} not found: install Debian's chromium (apt-get install chromium) to run the browser tests`;
  if (process.env.PROMPTLINE_REQUIRE_BROWSER === '1') throw new Error(reason);
  return reason;
}

/** A screenshot for CI's artefacts (test-results/, never committed). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = path.join(ROOT, 'test-results', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}
