import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { CONFORMANCE_ENV, generateConformance, type ConformanceSuite } from '../../support/sdkConformance.js';

// The client SDKs' shared cases (sdk/conformance/*.json) are what this server answers: generated
// again here, on this backend, and compared with the files checked in. After a deliberate change
// of the server's answers, write them anew (docs/development.md):
//   PROMPTLINE_UPDATE_CONFORMANCE=1 npx vitest run test/integration/sdk/conformance.test.ts
const DIR = path.resolve(import.meta.dirname, '../../../sdk/conformance');

let t: TestApp;
let suites: Record<string, ConformanceSuite>;
beforeAll(async () => {
  t = await startTestApp(CONFORMANCE_ENV);
  suites = await generateConformance(t);
  if (process.env.PROMPTLINE_UPDATE_CONFORMANCE === '1') {
    fs.mkdirSync(DIR, { recursive: true });
    for (const [file, suite] of Object.entries(suites)) fs.writeFileSync(path.join(DIR, file), `${JSON.stringify(suite, null, 1)}\n`);
  }
});
afterAll(async () => t.cleanup());

describe('the SDK conformance suites', () => {
  it('are exactly what the server answers', () => {
    expect(fs.readdirSync(DIR).sort()).toEqual(Object.keys(suites).sort());
    for (const [file, suite] of Object.entries(suites)) {
      const stored = JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')) as ConformanceSuite;
      expect(stored, `sdk/conformance/${file}`).toEqual(JSON.parse(JSON.stringify(suite)));
    }
  });

  it('cover every kind of answer a client must reproduce', () => {
    const expected = Object.values(suites).flatMap((s) => s.cases.map((c) => c.expected));
    const kinds = new Set(expected.map((e) => ('remote' in e ? 'remote' : `${e.status}${e.exposure ? ' exposed' : ''}`)));
    expect([...kinds].sort()).toEqual(['200', '200 exposed', '422', '422 exposed', 'remote']);
  });
});
