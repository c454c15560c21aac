// `npm run build` (and `prepare`, at `npm ci`): the server, CLI, bench and scripts (tsc), the client SDK (tsc), the
// console (tsc for its types, then Vite into dist/web), then the stamp `npm start` compares with
// the sources to skip the build when nothing changed (scripts/buildStamp.mjs).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { inputsDigest, removeStamp, writeStamp } from './buildStamp.mjs';

const root = path.resolve(import.meta.dirname, '..');
const STEPS = [
  ['tsc', '-p', 'tsconfig.build.json'],
  // The TypeScript client SDK's package (sdk/js/dist: ESM and type declarations).
  ['tsc', '-p', 'sdk/js/tsconfig.json'],
  ['tsc', '-p', 'web/tsconfig.json'],
  ['vite', 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'],
];

// The digest of the sources as the build starts: a file saved during the build makes the next start build again.
const digest = inputsDigest(root);
// A build that fails half-way must not leave the previous stamp vouching for a dist/ it changed.
removeStamp(root);
for (const [name, ...args] of STEPS) {
  const step = spawnSync(path.join(root, 'node_modules', '.bin', name), args, { cwd: root, stdio: 'inherit' });
  if (step.error) {
    process.stderr.write(`promptline build: could not run ${name}: ${step.error.message}\n`);
    process.exit(1);
  }
  if (step.status !== 0) process.exit(step.status ?? 1);
}
writeStamp(root, digest);
