import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { SERVER_JS, startProcess } from '../bench/processes.js';
import { launchChromium } from './chromium.js';

/**
 * The built server on a temporary SQLite file with a known admin key, and Debian's chromium, for
 * the scripts that look at the console (`npm run screenshot`, `npm run transfer`); both are gone
 * once `work` ends, however it ends.
 */
export async function withConsoleServer(adminKey: string, work: (origin: string, browser: Browser) => Promise<void>): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-console-'));
  const server = await startProcess(
    SERVER_JS,
    [],
    { PORT: '0', LOG_LEVEL: 'info', PROMPTLINE_DATA_DIR: dataDir, PROMPTLINE_BOOTSTRAP_ADMIN_KEY: adminKey },
    /Server listening at http:\/\/127\.0\.0\.1:(\d+)/,
  );
  const browser = await launchChromium();
  try {
    await work(server.origin, browser);
  } finally {
    await browser.close();
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
