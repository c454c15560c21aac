// Whether dist/ was built from the sources as they are now: a SHA-256 over every build input
// (path and content), written to dist/ after a successful build and compared at `npm start`.
// Content, not mtimes: a checkout or a copy changes mtimes without changing what the build makes.
// Plain Node on purpose: it runs before anything is built.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Everything the build reads: tsconfig.build.json's includes, the console (web/), the compiler settings and the pinned tools. */
const BUILD_INPUTS = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'src',
  'bench',
  'scripts',
  'web',
  'sdk/js/src',
  'sdk/js/package.json',
  'sdk/js/tsconfig.json',
];
/** What `npm start` and the CLI run: a dist/ without them is not a build, whatever the stamp says. */
export const BUILD_OUTPUTS = ['dist/src/server.js', 'dist/src/cli/main.js', 'dist/web/index.html', 'sdk/js/dist/index.js'];
export const STAMP_FILE = 'dist/.build-inputs.sha256';
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist']);

/** The digest of the build inputs under `root`; a missing input counts as its absence, so adding it changes the digest. */
export function inputsDigest(root) {
  const hash = createHash('sha256');
  for (const file of inputFiles(root)) {
    const content = fs.readFileSync(path.join(root, file));
    hash.update(`${file}\0${content.length}\0`);
    hash.update(content);
  }
  return hash.digest('hex');
}

/** The input files, relative to `root` with forward slashes, in a fixed order. */
function inputFiles(root) {
  const files = [];
  const visit = (relative) => {
    let stat;
    try {
      stat = fs.statSync(path.join(root, relative));
    } catch {
      return;
    }
    if (stat.isFile()) files.push(relative.split(path.sep).join('/'));
    else if (stat.isDirectory()) {
      for (const name of fs.readdirSync(path.join(root, relative))) if (!SKIPPED_FOLDERS.has(name)) visit(path.join(relative, name));
    }
  };
  for (const input of BUILD_INPUTS) visit(input);
  return files.sort();
}

/**
 * Why a build is needed, or null when dist/ is the build of these sources.
 * `stamp`: the digest recorded by the last successful build (null if none); `digest`: the sources' now;
 * `missing`: the build outputs that are not there.
 */
export function buildNeeded({ stamp, digest, missing }) {
  if (stamp === null) return 'no record of a previous build';
  if (missing.length > 0) return `${missing[0]} is missing`;
  if (stamp !== digest) return 'the sources changed since the last build';
  return null;
}

export function readStamp(root) {
  try {
    return fs.readFileSync(path.join(root, STAMP_FILE), 'utf8').trim();
  } catch {
    return null;
  }
}

export function writeStamp(root, digest) {
  fs.mkdirSync(path.dirname(path.join(root, STAMP_FILE)), { recursive: true });
  fs.writeFileSync(path.join(root, STAMP_FILE), `${digest}\n`);
}

export function removeStamp(root) {
  fs.rmSync(path.join(root, STAMP_FILE), { force: true });
}

export function missingOutputs(root) {
  return BUILD_OUTPUTS.filter((file) => !fs.existsSync(path.join(root, file)));
}
