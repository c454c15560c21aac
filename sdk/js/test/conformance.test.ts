import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexBundle, type WireBundle } from '../src/bundle.js';
import { evaluate, type GetPromptRequest } from '../src/evaluate.js';

// The shared cases every client passes (sdk/conformance/, generated from the server by
// test/integration/sdk/conformance.test.ts): the bundle and a request in, the server's answer out.
const DIR = path.resolve(import.meta.dirname, '../../conformance');

interface Case {
  name: string;
  request: GetPromptRequest;
  expected: { remote: true } | { status: 200 | 422; body: any; exposure: unknown };
}

for (const file of fs.readdirSync(DIR).filter((f) => f.endsWith('.json'))) {
  const suite = JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')) as { description: string; bundle: WireBundle; cases: Case[] };
  describe(`conformance: ${file}`, () => {
    const index = indexBundle(suite.bundle)!;
    it.each(suite.cases.map((c) => [c.name, c] as const))('%s', (_, c) => {
      const got = evaluate(index, { ...c.request, inputs: c.request.inputs ?? {} });
      if ('remote' in c.expected) {
        expect(got.kind).toBe('remote');
      } else if (c.expected.status === 200) {
        expect(got).toEqual({ kind: 'answer', body: c.expected.body, exposure: c.expected.exposure });
      } else {
        expect(got).toEqual({ kind: 'invalid', detail: c.expected.body.detail, exposure: c.expected.exposure });
      }
    });
  });
}
