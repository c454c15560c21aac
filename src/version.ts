import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

function findPackageVersion(): string {
  for (const candidate of ['../package.json', '../../package.json']) {
    try {
      return (require(candidate) as { version: string }).version;
    } catch {
      // try the next location: src/ in tests, dist/src/ when built
    }
  }
  return '0.0.0';
}

/** The service's own version, reported in the OpenAPI document. */
export const SERVICE_VERSION = findPackageVersion();
