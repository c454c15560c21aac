/**
 * Measures the console's first-load transfer size (docs/console.md, "How the console is served"):
 * the built server on a temporary SQLite file, then the sign-in page and the Prompts page (signed
 * in) each opened in a fresh Chromium context, with every file they load. Run with `npm run transfer`.
 */
import { withConsoleServer } from './consoleServer.js';
import { firstLoadTransfer, type Transfer } from './transfer.js';

const ADMIN = 'pl_a_transfer-admin-key-00000000000000000';

function report(name: string, transfer: Transfer): void {
  console.log(`${name}: ${transfer.bytes} bytes over the wire in ${transfer.files.length} files`);
  for (const file of transfer.files) console.log(`  ${file.path}  ${file.bytes} B  ${file.encoding ?? 'identity'}`);
}

await withConsoleServer(ADMIN, async (origin, browser) => {
  report('sign-in page', await firstLoadTransfer(browser, `${origin}/ui/`, (page) => page.getByLabel('API key').waitFor()));
  report(
    'Prompts page, signed in',
    await firstLoadTransfer(browser, `${origin}/ui/prompts`, (page) => page.getByRole('heading', { name: 'Prompts' }).waitFor(), ADMIN),
  );
});
