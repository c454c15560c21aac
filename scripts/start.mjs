// `npm start`: build only if the sources changed since the last build (scripts/buildStamp.mjs),
// then run the server in this very process, so SIGTERM and SIGINT reach it directly (graceful
// shutdown) and its exit code is npm's.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildNeeded, inputsDigest, missingOutputs, readStamp } from './buildStamp.mjs';

const root = path.resolve(import.meta.dirname, '..');
const reason = buildNeeded({ stamp: readStamp(root), digest: inputsDigest(root), missing: missingOutputs(root) });
if (reason !== null) {
  process.stderr.write(`promptline: building first (${reason})\n`);
  const build = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
await import(pathToFileURL(path.join(root, 'dist', 'src', 'server.js')).href);
