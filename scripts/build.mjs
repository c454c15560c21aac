// `npm run build` (and `prepare`, at `npm ci`): the server, CLI, bench and scripts (tsc), the client SDK (tsc), the
// console (tsc for its types, then Vite into dist/web), then the stamp `npm start` compares with
// the sources to skip the build when nothing changed (scripts/buildStamp.mjs).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
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
  // Always the production bundle: Vite follows NODE_ENV, which a test runner sets to `test` (React's
  // development build, three times the size), and the stamp would then have `npm start` serve that.
  const env = { ...process.env, NODE_ENV: 'production' };
  const step = spawnSync(path.join(root, 'node_modules', '.bin', name), args, { cwd: root, stdio: 'inherit', env });
  if (step.error) {
    process.stderr.write(`promptline build: could not run ${name}: ${step.error.message}\n`);
    process.exit(1);
  }
  if (step.status !== 0) process.exit(step.status ?? 1);
}
precompressConsole(path.join(root, 'dist', 'web'));
writeStamp(root, digest);

/**
 * Brotli (quality 11) and gzip (level 9) copies of the console's text files, next to them (`x.js.br`,
 * `x.js.gz`), which the server sends to browsers that accept them (src/http/console.ts). Done once
 * here, at the highest levels, rather than per request by a compression plugin: the files never
 * change after the build, so compressing them on every request would only spend CPU for a worse ratio.
 */
function precompressConsole(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !/\.(js|css|html|svg|json|txt)$/.test(entry.name)) continue;
    const file = path.join(entry.parentPath, entry.name);
    const content = fs.readFileSync(file);
    const br = zlib.brotliCompressSync(content, {
      params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: content.length },
    });
    // A copy no smaller than the file is left out: the file is then sent as it is.
    if (br.length < content.length) fs.writeFileSync(`${file}.br`, br);
    const gz = zlib.gzipSync(content, { level: 9 });
    if (gz.length < content.length) fs.writeFileSync(`${file}.gz`, gz);
  }
}
