import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILD_OUTPUTS, buildNeeded, inputsDigest, missingOutputs, readStamp, writeStamp } from '../../../scripts/buildStamp.mjs';

const DIGEST = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);

describe('buildNeeded: whether `npm start` builds first', () => {
  it.each([
    { case: 'never built', stamp: null, digest: DIGEST, missing: [], expected: 'no record of a previous build' },
    { case: 'never built, nothing in dist', stamp: null, digest: DIGEST, missing: ['dist/src/server.js'], expected: 'no record of a previous build' },
    { case: 'sources changed', stamp: OTHER, digest: DIGEST, missing: [], expected: 'the sources changed since the last build' },
    { case: 'an output deleted', stamp: DIGEST, digest: DIGEST, missing: ['dist/web/index.html'], expected: 'dist/web/index.html is missing' },
    { case: 'built from these sources', stamp: DIGEST, digest: DIGEST, missing: [], expected: null },
  ])('$case → $expected', ({ stamp, digest, missing, expected }) => {
    expect(buildNeeded({ stamp, digest, missing })).toBe(expected);
  });
});

describe('inputsDigest: the sources as the build sees them', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  function project(files: Record<string, string>): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-stamp-'));
    dirs.push(dir);
    for (const [file, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), content);
    }
    return dir;
  }

  const SOURCES = { 'package.json': '{}', 'src/server.ts': 'listen()', 'web/src/main.tsx': 'render()' };

  it('is the same for the same content, whatever the mtimes (a checkout, a copy)', () => {
    const dir = project(SOURCES);
    const before = inputsDigest(dir);
    fs.utimesSync(path.join(dir, 'src/server.ts'), new Date(2001, 0, 1), new Date(2001, 0, 1));
    expect(inputsDigest(dir)).toBe(before);
    expect(inputsDigest(project(SOURCES))).toBe(before);
  });

  it.each([
    { change: 'an edited file', apply: (dir: string) => fs.writeFileSync(path.join(dir, 'src/server.ts'), 'listen(0)') },
    { change: 'a new file', apply: (dir: string) => fs.writeFileSync(path.join(dir, 'src/extra.ts'), '') },
    { change: 'a deleted file', apply: (dir: string) => fs.rmSync(path.join(dir, 'web/src/main.tsx')) },
    { change: 'a renamed file', apply: (dir: string) => fs.renameSync(path.join(dir, 'src/server.ts'), path.join(dir, 'src/serve.ts')) },
    { change: 'a new root input (package-lock.json)', apply: (dir: string) => fs.writeFileSync(path.join(dir, 'package-lock.json'), '{}') },
  ])('changes with $change', ({ apply }) => {
    const dir = project(SOURCES);
    const before = inputsDigest(dir);
    apply(dir);
    expect(inputsDigest(dir)).not.toBe(before);
  });

  it('ignores what is not a build input: dist/, node_modules/, files outside the inputs', () => {
    const dir = project(SOURCES);
    const before = inputsDigest(dir);
    for (const file of ['dist/src/server.js', 'web/node_modules/x/index.js', 'README.md', 'test/a.test.ts']) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), 'x');
    }
    expect(inputsDigest(dir)).toBe(before);
  });

  it('reads back the stamp it wrote, and lists the outputs a dist/ lacks', () => {
    const dir = project(SOURCES);
    expect(readStamp(dir)).toBeNull();
    expect(missingOutputs(dir)).toEqual(BUILD_OUTPUTS);
    writeStamp(dir, DIGEST);
    expect(readStamp(dir)).toBe(DIGEST);
    for (const file of BUILD_OUTPUTS) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), '');
    }
    expect(missingOutputs(dir)).toEqual([]);
  });
});
