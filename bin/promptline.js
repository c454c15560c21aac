#!/usr/bin/env node
// The CLI, run from the repository as `node bin/promptline.js …` after `npm ci` (which builds via `prepare`).
// Not `npx promptline` outside it: npx would fetch an unrelated npm package of that name.
await import('../dist/src/cli/main.js');
