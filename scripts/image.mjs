// `npm run image`: builds the Dockerfile as localhost/promptline:latest with docker or podman,
// whichever runs here. Its base is the public node:24-bookworm-slim when the engine has it or can
// pull it; else the local base of scripts/localBase.mjs, built first (once: later builds reuse it).
//   npm run image                              # as above
//   npm run image -- --base my/node:24-bookworm # a base of your own
//   npm run image -- --tag other:tag --context dir   # another name, or another source tree
// Plain Node on purpose: it runs before anything is built (it needs no node_modules).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { containerEngine, runCommand, IMAGE, imageExists, limitFlags } from './containers.mjs';
import { buildLocalBase } from './localBase.mjs';

const root = path.resolve(import.meta.dirname, '..');
/** The Dockerfile's own default (its ARG BASE_IMAGE). */
export const PUBLIC_BASE = 'docker.io/library/node:24-bookworm-slim';

/**
 * The base to build on: `wanted` if given, else the public one if the engine has it or can pull
 * it, else the local one (built if missing).
 */
export async function chooseBase(engine, wanted) {
  if (wanted) return wanted;
  if (imageExists(engine, PUBLIC_BASE)) return PUBLIC_BASE;
  process.stderr.write(`promptline image: pulling ${PUBLIC_BASE}\n`);
  try {
    await runCommand(engine, ['pull', PUBLIC_BASE]);
    return PUBLIC_BASE;
  } catch {
    process.stderr.write(`promptline image: ${PUBLIC_BASE} cannot be pulled here: building on a local base (scripts/localBase.mjs)\n`);
    return buildLocalBase(engine);
  }
}

/** Builds `context` (the repository by default) with this repository's Dockerfile as `tag` on `base`. */
export async function buildImage(engine, { base, tag = IMAGE, context = root }) {
  const args = ['build', ...limitFlags(engine), '--build-arg', `BASE_IMAGE=${base}`, '-f', path.join(root, 'Dockerfile'), '-t', tag];
  // Podman writes OCI images by default, a format with no HEALTHCHECK: Docker's keeps it.
  if (engine === 'podman') args.push('--format', 'docker');
  // The CA certificates Node trusts here beyond its own (a proxy that re-signs TLS): npm in the
  // build trusts them too. A build secret: they are never stored in the image.
  const caBundle = process.env.NODE_EXTRA_CA_CERTS;
  if (caBundle && fs.existsSync(caBundle)) args.push('--secret', `id=ca_bundle,src=${caBundle}`);
  await runCommand(engine, [...args, context]);
  return tag;
}

if (import.meta.filename === process.argv[1]) {
  const { values } = parseArgs({ options: { base: { type: 'string' }, tag: { type: 'string' }, context: { type: 'string' } } });
  const engine = containerEngine();
  if (engine === null) {
    process.stderr.write('promptline image: no container engine: install docker (with its engine running) or podman\n');
    process.exit(1);
  }
  try {
    const base = await chooseBase(engine, values.base);
    const tag = await buildImage(engine, { base, tag: values.tag, context: values.context ? path.resolve(values.context) : root });
    process.stdout.write(`promptline image: built ${tag} on ${base} with ${engine}\n`);
  } catch (error) {
    process.stderr.write(`promptline image: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
