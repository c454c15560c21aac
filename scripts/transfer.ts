import type { Browser, BrowserContext, Page } from 'playwright-core';

/**
 * Signs a browser context in as the console's sign-in form does: the session cookie from POST /session,
 * and the page's hint that this browser signed in (web/src/lib/session.ts), so its pages open signed in.
 */
export async function signInContext(context: BrowserContext, origin: string, key: string): Promise<void> {
  const res = await context.request.post(`${origin}/session`, { headers: { 'x-api-key': key } });
  if (res.status() !== 201) throw new Error(`POST /session answered ${res.status()}`);
  await context.addInitScript({ content: "localStorage.setItem('promptline.signedIn', '1')" });
}

/** What the console's files cost a first visit: bytes over the wire (headers and encoded bodies) of each file under /ui/. */
export interface Transfer {
  bytes: number;
  files: { path: string; bytes: number; encoding: string | null }[];
}

/**
 * Opens `url` in a fresh browser context (nothing cached), signed in first with `key` when given
 * (the session cookie, as the sign-in page gets it), waits for `ready` and for the network to go
 * quiet, and adds up what every response of the console's own files (/ui/…) cost on the wire.
 * API answers are left out: they depend on the data, not on how the console is served.
 */
export async function firstLoadTransfer(browser: Browser, url: string, ready: (page: Page) => Promise<unknown>, key?: string): Promise<Transfer> {
  const context = await browser.newContext();
  try {
    if (key !== undefined) await signInContext(context, new URL(url).origin, key);
    const page = await context.newPage();
    const pending: Promise<Transfer['files'][number]>[] = [];
    page.on('requestfinished', (request) => {
      const { pathname } = new URL(request.url());
      if (!pathname.startsWith('/ui/')) return;
      pending.push(
        Promise.all([request.sizes(), request.response()]).then(async ([sizes, response]) => ({
          path: pathname,
          bytes: sizes.responseHeadersSize + sizes.responseBodySize,
          encoding: (await response?.headerValue('content-encoding')) ?? null,
        })),
      );
    });
    await page.goto(url);
    await ready(page);
    await page.waitForLoadState('networkidle');
    const files = await Promise.all(pending);
    return { bytes: files.reduce((sum, file) => sum + file.bytes, 0), files };
  } finally {
    await context.close();
  }
}
