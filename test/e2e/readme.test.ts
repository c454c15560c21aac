import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startServer, tempDataDir, type RunningServer } from '../support/processes.js';
import { toolMissing } from '../support/tools.js';

/**
 * The README as a newcomer runs it: the built server (`npm start` runs `node dist/src/server.js`)
 * on a brand-new data folder, the admin key it prints, then the README's own curl blocks, verbatim,
 * through bash. Every `# → …` line in a block must match an answer, in order (`…` matches anything).
 */
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

function block(name: string): string {
  const match = new RegExp(`<!-- ${name}:start -->\\s*\`\`\`bash\\n([\\s\\S]*?)\`\`\`\\s*<!-- ${name}:end -->`).exec(README);
  if (!match) throw new Error(`README has no ${name} block`);
  return match[1]!;
}

function expectations(script: string): RegExp[] {
  return [...script.matchAll(/^# → (.*)$/gm)].map(
    (m) =>
      new RegExp(
        `^${m[1]!
          .split('…')
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('.*')}$`,
      ),
  );
}

/** Runs a README block; `curl` gets a newline after each answer so answers are lines. */
function runBlock(script: string, env: Record<string, string>): string[] {
  // --norc and no stdin: with its stdin a socket (Node's pipes are socketpairs) and SHLVL unset, bash
  // takes itself for a remote shell and reads the system's bashrc, which may fail under `-u`.
  const result = spawnSync('bash', ['--norc', '-euo', 'pipefail', '-c', `curl() { command curl "$@"; echo; }\n${script}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout.split('\n').filter((line) => line !== '');
}

function expectInOrder(lines: string[], patterns: RegExp[]): void {
  let from = 0;
  for (const pattern of patterns) {
    const index = lines.findIndex((line, i) => i >= from && pattern.test(line));
    expect(index, `no answer matches ${pattern} after line ${from} in:\n${lines.join('\n')}`).toBeGreaterThanOrEqual(0);
    from = index + 1;
  }
}

let server: RunningServer;
let dataDir: string;
const env: Record<string, string> = {};

beforeAll(async () => {
  dataDir = tempDataDir();
  server = await startServer({ PROMPTLINE_DATA_DIR: dataDir });
  // The key is printed once the server listens, just after the line startServer waits for.
  const key = await server.waitForOutput(/^\s+(pl_a_[A-Za-z0-9_-]{43})$/m, 'the admin key');
  env.PL = server.origin;
  env.KEY = key[1]!;
});

afterAll(async () => {
  await server?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

// The README's blocks call the API with curl, as a reader would.
const noCurl = toolMissing('curl', 'curl');
const needsCurl = noCurl === null ? '' : ` (skipped: ${noCurl})`;

describe('README', () => {
  it('documents exactly two set-up commands that install, then start or test', () => {
    expect(README).toContain('```bash\nnpm ci && npm start\n```');
    expect(README).toContain('```bash\nnpm ci && npm test\n```');
  });

  it.skipIf(noCurl !== null)(`prints an admin key once on a new database, and the quickstart works as written${needsCurl}`, () => {
    const script = block('quickstart');
    const lines = runBlock(script, env);
    expectInOrder(lines, expectations(script));
    expect(lines[2]).toMatch(/^run_[0-9a-f]{32}$/);
    const run = JSON.parse(lines[4]!);
    expect(run).toMatchObject({ run_id: lines[2], prompt_id: 'welcome', output: 'Write a one-line welcome for Ada.', model_used: 'echo/echo', status: 'ok' });
  });

  it.skipIf(noCurl !== null)(`runs the A/B testing walkthrough as written${needsCurl}`, () => {
    const script = block('abtest');
    const lines = runBlock(script, env);
    expectInOrder(lines, expectations(script));
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ experiment_id: 'welcome-warmth', status: 'stopped', winner: 'warm', shipped_version: 2 });
  });
});
