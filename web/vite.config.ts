import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** The console builds into dist/web, served by the server under /ui/ (src/http/console.ts). */
export default defineConfig({
  root: import.meta.dirname,
  base: '/ui/',
  plugins: [react()],
  build: {
    outDir: path.resolve(import.meta.dirname, '../dist/web'),
    emptyOutDir: true,
    // No inline scripts or data: modules: the console's Content-Security-Policy allows only files it serves.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
  },
});
