import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { serveStartSlots } from './startSlots.js';

/**
 * End-to-end tests run the built service exactly as `npm start` does (`node dist/src/server.js`),
 * so the build runs once before any test file — unless `npm test`'s runner has just built it
 * (PROMPTLINE_TEST_PREBUILT=1) for all its stages. Then the start slots every worker shares
 * (./startSlots.ts) are served from here, for as long as the run lasts.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.PROMPTLINE_TEST_PREBUILT !== '1') {
    const root = path.resolve(import.meta.dirname, '../..');
    const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}${build.stderr}`);
  }
  const slots = await serveStartSlots();
  project.provide('startSlotsPort', slots.port);
  return () => slots.close();
}
