import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProgram } from '../../../test/support/processes.js';
import { SLOT_WAIT_MS, timeLimit } from '../../../test/support/timeLimits.js';

// The package as an application installs it: packed with npm, installed into a project of its
// own (from npm's cache where it can, else the registry, as `npm ci` does), imported by its name and type-checked against
// its declarations. Uses sdk/js/dist, which the build makes.
const SDK = path.resolve(import.meta.dirname, '..');
const ROOT = path.resolve(SDK, '../..');
let project: string;
let files: string[];

/** A whole tsc run: about 9 s alone on a quiet machine. */
const TSC_MS = 120_000;

const SETUP_LIMIT = timeLimit({ starts: 2 }); // npm pack, npm install
beforeAll(async () => {
  project = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-sdk-consumer-'));
  const packed = JSON.parse(await runProgram('npm', ['pack', SDK, '--json', '--pack-destination', project], { cwd: project })) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  files = packed[0]!.files.map((f) => f.path).sort();
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await runProgram('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', path.join(project, packed[0]!.filename)], {
    cwd: project,
  });
}, SETUP_LIMIT);
afterAll(() => fs.rmSync(project, { recursive: true, force: true }));

describe('@promptline/client, installed', () => {
  it('ships its ESM build, its type declarations and its README, and nothing else', () => {
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/index.d.ts');
    expect(files).toContain('README.md');
    expect(files.filter((f) => !f.startsWith('dist/') && f !== 'README.md' && f !== 'package.json')).toEqual([]);
  });

  it('imports by its name, with the mustache parser, the regular-expression parser and the RE2 engine as its only dependencies', async () => {
    const out = await runProgram(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { Promptline, PromptlineError } from '@promptline/client'; const c = new Promptline({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', mode: 'remote', fallbacks: { p: 'Hi {{name}}' } }); const r = await c.getPrompt({ promptId: 'p', inputs: { name: 'Ada' } }); await c.close(); console.log(JSON.stringify([typeof PromptlineError, r]));",
      ],
      { cwd: project },
    );
    expect(JSON.parse(out)).toEqual(['function', { promptText: 'Hi Ada', variantAssigned: null, experimentId: null, promptVersion: null, source: 'fallback' }]);
    expect(fs.readdirSync(path.join(project, 'node_modules')).filter((d) => !d.startsWith('.'))).toEqual([
      '@eslint-community',
      '@promptline',
      'mustache',
      're2js',
    ]);
  });

  it('type-checks a strict TypeScript program against its declarations', { timeout: timeLimit({ ms: SLOT_WAIT_MS + TSC_MS }) }, async () => {
    fs.writeFileSync(
      path.join(project, 'app.ts'),
      [
        "import { Promptline, PromptlineValidationError, type PromptResult } from '@promptline/client';",
        "const client = new Promptline({ baseUrl: 'http://127.0.0.1:8000', apiKey: 'k' });",
        "const answer: PromptResult = await client.getPrompt({ promptId: 'welcome', inputs: { name: 'Ada' }, externalUserId: 'u' });",
        'const text: string = answer.promptText;',
        "const run = await client.runPrompt({ promptId: 'welcome', inputs: { name: 'Ada' } });",
        "await client.trackOutcome({ promptId: 'welcome', promptRunId: run.runId, eventType: 'signup', isSuccess: true });",
        'try { await client.getPrompt({ promptId: text }); } catch (e) { if (e instanceof PromptlineValidationError) console.log(e.errors[0]?.loc); }',
        '// @ts-expect-error: inputs of runPrompt are strings',
        "await client.runPrompt({ promptId: 'welcome', inputs: { n: 1 } });",
        'await client.close();',
      ].join('\n'),
    );
    const tsc = path.join(ROOT, 'node_modules', '.bin', 'tsc');
    await runProgram(
      tsc,
      [
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--types',
        'node',
        '--typeRoots',
        path.join(ROOT, 'node_modules/@types'),
        'app.ts',
      ],
      { cwd: project, deadlineMs: TSC_MS },
    );
  });
});
