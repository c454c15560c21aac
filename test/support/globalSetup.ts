import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * End-to-end tests run the built service exactly as `npm start` does (`node dist/src/server.js`),
 * so the build runs once before any test file — unless `npm test`'s runner has just built it
 * (PROMPTLINE_TEST_PREBUILT=1) for all its stages.
 */
export default function buildOnce(): void {
  if (process.env.PROMPTLINE_TEST_PREBUILT === '1') return;
  const root = path.resolve(import.meta.dirname, '../..');
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}${build.stderr}`);
}
