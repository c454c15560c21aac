#!/usr/bin/env node
// Thin launcher so `npx promptline` works after `npm ci` (which builds via `prepare`).
await import('../dist/src/cli/main.js');
