import fs from 'node:fs';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { CHROMIUM, launchChromium as launch } from '../../scripts/chromium.js';
import { ROOT } from './processes.js';
import { withStartSlot } from './startSlots.js';
import { STEP_MS } from './timeLimits.js';
import { executableMissing } from './tools.js';

export { firstLoadTransfer, signInContext } from '../../scripts/transfer.js';

/**
 * Whether browser tests can run here. Without chromium they are skipped with this reason, except
 * where PROMPTLINE_REQUIRE_TOOLS=1 (CI sets it) makes a missing browser a failure (./tools.ts).
 */
export function browserMissing(): string | null {
  return executableMissing(CHROMIUM, "install Debian's chromium (apt-get install chromium) to run the browser tests");
}

/**
 * Debian's Chromium, launched holding a start slot (./startSlots.ts) like any other process start.
 * Every page of its contexts (`browser.newPage()` makes one too) waits STEP_MS for an action, a
 * navigation or an element, not Playwright's 30 s: a console page took longer than that to show
 * its first element on a 2-core machine at a load of 20.
 */
export async function launchChromium(): Promise<Browser> {
  const browser = await withStartSlot('Chromium', launch);
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    context.setDefaultTimeout(STEP_MS);
    return context;
  };
  return browser;
}

/** A screenshot for CI's artefacts (test-results/, never committed). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = path.join(ROOT, 'test-results', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}

/** The public API as a browser test's setup calls it: status and JSON, never a throw. */
export function apiClient(origin: () => string, adminKey: string) {
  return async (method: string, path: string, body?: unknown, key = adminKey) => {
    const res = await fetch(`${origin()}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json().catch(() => null)) as any };
  };
}

/** A page that keeps what went wrong in it: console errors, uncaught exceptions, and dialogs (dismissed). */
export interface WatchedPage extends Page {
  problems: string[];
  dialogs: string[];
}

export async function watchedPage(browser: Browser): Promise<WatchedPage> {
  // A context of its own (closed with the page), so `page.context().newPage()` opens another tab of the same browser.
  const context = await browser.newContext();
  const page = (await context.newPage()) as WatchedPage;
  // When the whole browser closes, its contexts close with it: closing this one again then rejects,
  // and that is no failure (left unhandled, it would fail the run after every test passed).
  page.on('close', () => context.close().catch(() => undefined));
  page.problems = [];
  page.dialogs = [];
  page.on('console', (m) => m.type() === 'error' && page.problems.push(m.text()));
  page.on('pageerror', (e) => page.problems.push(e.message));
  page.on('dialog', (d) => {
    page.dialogs.push(d.message());
    d.dismiss().catch(() => undefined); // the page may be closing: the dialog goes with it
  });
  return page;
}

/**
 * The console signed in with `key` through its sign-in form, on the Prompts page. Each page is a
 * browser context of its own, so its session cookie is its own: pages of one test do not share a
 * sign-in unless they come from `page.context().newPage()`.
 */
export async function signedInPage(browser: Browser, origin: string, key: string): Promise<WatchedPage> {
  const page = await watchedPage(browser);
  await page.goto(`${origin}/ui/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Prompts' }).waitFor();
  return page;
}

/**
 * Fails on any serious or critical accessibility violation axe-core finds on the page as it is now
 * (WCAG 2.x A and AA rules and axe's best practices), naming each rule and the elements it found.
 */
export async function expectAccessible(page: Page, where = page.url()): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(serious, `accessibility violations on ${where}`).toEqual([]);
}
