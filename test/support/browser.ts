import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ROOT } from './processes.js';

/** Debian's chromium: `.ci/run` installs it (apt-get install chromium); no browser is downloaded. */
export const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

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

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
}

/** A screenshot for CI's artefacts (test-results/, never committed). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = path.join(ROOT, 'test-results', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}
