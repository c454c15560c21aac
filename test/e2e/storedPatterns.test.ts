import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { callServer, cliAsync, processFixtures } from '../support/processes.js';
import { timeLimit } from '../support/timeLimits.js';

// Patterns stored before the linear-time engine that it refuses, as an operator meets them: the
// built server's warning at start, the 409 of a call, and `promptline prompts check --stored`.
const ADMIN = 'pl_a_e2e-patterns-admin-key-0000000000000';
const { dataDir, serve, forget } = processFixtures(ADMIN);

describe('stored patterns the linear-time engine refuses', () => {
  // two server starts and three CLI commands
  it('are named by the warning at start and by prompts check --stored, and never run', { timeout: timeLimit({ starts: 5, steps: 3 }) }, async () => {
    const dir = dataDir();
    const first = await serve(dir);
    const created = await callServer(first.origin, '/prompts', ADMIN, {
      prompt_id: 'legacy',
      template: 'Code {{code}}',
      variables: { code: { pattern: '^a$' } },
    });
    expect(created.status).toBe(201);
    expect((await callServer(first.origin, '/evaluators', ADMIN, { evaluator_id: 'old', kind: 'regex', pattern: 'a' })).status).toBe(201);
    expect(await first.stop('SIGTERM')).toBe(0);
    forget(first);

    const clean = await cliAsync(['prompts', 'check', '--stored'], { PROMPTLINE_DATA_DIR: dir, LOG_LEVEL: 'silent' });
    expect([clean.status, clean.stdout]).toEqual([0, '0 stored pattern(s) refused by the linear-time engine\n']);

    // What an older server stored, before back-references and look-arounds were refused.
    const db = new Database(path.join(dir, 'promptline.db'));
    db.prepare("UPDATE prompt_versions SET declared_variables = ? WHERE prompt_id = 'legacy'").run(
      JSON.stringify({ code: { required: true, pattern: '^(a)\\1$' } }),
    );
    db.prepare("UPDATE evaluator_versions SET settings = ? WHERE evaluator_id = 'old'").run(JSON.stringify({ pattern: 'x(?=y)', flags: '' }));
    db.close();

    const server = await serve(dir);
    const line = await server.waitForOutput(/^.*"prompt_id":"legacy".*$/m, 'the warning naming the stored pattern');
    expect(JSON.parse(line[0])).toMatchObject({
      level: 40,
      project: 'default',
      prompt_id: 'legacy',
      version: 1,
      field: 'variables.code.pattern',
      reason: 'the pattern uses a back-reference (\\1), which the linear-time engine does not support',
    });
    await server.waitForOutput(/"evaluator_id":"old","version":1,"field":"pattern"/, "the warning naming the evaluator's pattern");
    await server.waitForOutput(/2 stored pattern\(s\) refused by the linear-time engine are never run/, 'the summary');
    expect(server.output()).not.toContain(ADMIN);

    const call = await callServer(server.origin, '/get_prompt', ADMIN, { prompt_id: 'legacy', inputs: { code: 'aa' } });
    expect(call).toEqual({
      status: 409,
      json: {
        detail:
          "Prompt 'legacy' version 1 cannot check variable 'code' (the pattern uses a back-reference (\\1), which the linear-time engine does not support): create a new version",
      },
    });

    const check = await cliAsync(['prompts', 'check', '--stored'], { PROMPTLINE_DATA_DIR: dir, LOG_LEVEL: 'silent' });
    expect(check.status, check.stderr).toBe(1);
    expect(check.stdout.split('\n')).toEqual([
      "project default: prompt 'legacy' version 1, variables.code.pattern: the pattern uses a back-reference (\\1), which the linear-time engine does not support",
      "project default: evaluator 'old' version 1, pattern: the pattern uses a look-ahead ((?=…), which the linear-time engine does not support",
      '2 stored pattern(s) refused by the linear-time engine: create new versions without them',
      '',
    ]);

    const overHttp = await cliAsync(['--url', server.origin, '--api-key', ADMIN, 'prompts', 'check', '--stored'], { LOG_LEVEL: 'silent' });
    expect(overHttp.status).toBe(1);
    expect(overHttp.stderr).toContain("'prompts check' works on the local database only");
  });
});
