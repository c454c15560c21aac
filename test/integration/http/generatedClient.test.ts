import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestApp, type TestApp } from '../../support/harness.js';

/**
 * A client generated from /openapi.json, as docs/integrating.md tells an integrator to make one:
 * openapi-typescript's types of the live document, and the page's own openapi-fetch program,
 * verbatim, type-checked strictly and then run against the live server over a real socket. The
 * program sets the key once, in the client's headers; were the document to declare it again as
 * a parameter of an operation (or to lose an operation, or a field the program reads), the
 * strict check would fail here, as it would in the integrator's build.
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');
const PAGE = fs.readFileSync(path.join(ROOT, 'docs/integrating.md'), 'utf8');

function typedClientBlock(): string {
  const match = /<!-- typed-client:start -->\s*```ts\n([\s\S]*?)```\s*<!-- typed-client:end -->/.exec(PAGE);
  if (!match) throw new Error('docs/integrating.md has no typed-client block');
  return match[1]!;
}

/** The compiler options of a strict ESM project on Node 20, as an integrator's would be. */
const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2023.d.ts'],
  types: ['node'],
  strict: true,
  noUncheckedIndexedAccess: true,
  // Only what the libraries declare goes unchecked, not the generated types or the program.
  skipLibCheck: true,
};

/** Type-checks the program strictly and writes its JavaScript beside it; the diagnostics, as text. */
function compile(file: string): string[] {
  const program = ts.createProgram([file], COMPILER_OPTIONS);
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...program.emit().diagnostics];
  return diagnostics.map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) return text;
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${path.basename(d.file.fileName)}:${line + 1}: ${text}`;
  });
}

let t: TestApp;
let origin: string;
let dir: string;

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-client-'));
  fs.writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}\n');
  // The program imports openapi-fetch (and the compiler finds @types/node) as installed here.
  const installed = fileURLToPath(import.meta.resolve('openapi-fetch'));
  const nodeModules = path.join(installed.slice(0, installed.lastIndexOf(`${path.sep}node_modules${path.sep}`)), 'node_modules');
  fs.symlinkSync(nodeModules, path.join(dir, 'node_modules'), 'dir');
});

afterAll(async () => {
  await t?.cleanup();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('a client generated from /openapi.json (docs/integrating.md)', () => {
  it('compiles under strict TypeScript with the key set once, and its calls work', async () => {
    const document = (await (await fetch(`${origin}/openapi.json`)).json()) as OpenAPI3;
    fs.writeFileSync(path.join(dir, 'promptline-api.d.ts'), astToString(await openapiTS(document)));
    const program = path.join(dir, 'client.ts');
    fs.writeFileSync(program, typedClientBlock());

    expect(compile(program)).toEqual([]);

    const { stdout, stderr } = await promisify(execFile)(process.execPath, [path.join(dir, 'client.js')], {
      env: { PATH: process.env.PATH, PROMPTLINE_URL: origin, PROMPTLINE_KEY: ADMIN_KEY },
      timeout: 15_000,
    });
    expect(stderr).toBe('');
    const [promptText, runId, outcomeId, ...rest] = stdout.trimEnd().split('\n');
    expect(rest).toEqual([]);
    expect(promptText).toBe('Write a one-line welcome for Ada.');
    expect(runId).toMatch(/^run_[0-9a-f]{32}$/);
    expect(outcomeId).toMatch(/^out_/);

    // What the calls stored: the run, and the outcome tied to it.
    expect((await t.request('GET', `/runs/${runId}`)).json).toMatchObject({ prompt_id: 'welcome', external_user_id: 'user-42', status: 'ok' });
    const outcomes = (await t.request('GET', `/outcomes?prompt_run_id=${runId}`)).json.data;
    expect(outcomes).toMatchObject([{ outcome_id: outcomeId, event_type: 'signup', is_success: true }]);
  });
});
