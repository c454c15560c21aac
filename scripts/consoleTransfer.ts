/**
 * Measures the console's first-load transfer size (docs/console.md, "How the console is served"):
 * the built server on a temporary SQLite file, then the sign-in page and the Prompts page (signed
 * in) each opened in a fresh Chromium context, with every file they load. Run with `npm run transfer`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SERVER_JS, startProcess } from '../bench/processes.js';
import { launchChromium } from './chromium.js';
import { firstLoadTransfer, type Transfer } from './transfer.js';

const ADMIN = 'pl_a_transfer-admin-key-00000000000000000';

function report(name: string, transfer: Transfer): void {
  console.log(`${name}: ${transfer.bytes} bytes over the wire in ${transfer.files.length} files`);
  for (const file of transfer.files) console.log(`  ${file.path}  ${file.bytes} B  ${file.encoding ?? 'identity'}`);
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-transfer-'));
  const server = await startProcess(
    SERVER_JS,
    [],
    { PORT: '0', LOG_LEVEL: 'info', PROMPTLINE_DATA_DIR: dataDir, PROMPTLINE_BOOTSTRAP_ADMIN_KEY: ADMIN },
    /Server listening at http:\/\/127\.0\.0\.1:(\d+)/,
  );
  const browser = await launchChromium();
  try {
    report('sign-in page', await firstLoadTransfer(browser, `${server.origin}/ui/`, (page) => page.getByLabel('API key').waitFor()));
    report(
      'Prompts page, signed in',
      await firstLoadTransfer(browser, `${server.origin}/ui/prompts`, (page) => page.getByRole('heading', { name: 'Prompts' }).waitFor(), ADMIN),
    );
  } finally {
    await browser.close();
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
