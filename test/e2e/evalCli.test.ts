import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { callServer, cliAsync, processFixtures } from '../support/processes.js';
import { timeLimit } from '../support/timeLimits.js';

/**
 * `promptline eval run` as CI runs it: over HTTP against a server (following the evaluation to its
 * end), the gate's exit codes, the Markdown summary, a candidate from a prompt file, and the local
 * database without a server (the CLI runs the evaluation in-process). Echo answers the rendered
 * prompt, so version 2 (an added "!") fails every exact match version 1 passes.
 */
const ADMIN = 'pl_a_e2e-eval-cli-admin-key-00000000000000';
const fx = processFixtures(ADMIN);

describe('promptline eval run', () => {
  // a server and ten CLI commands
  it('gates on a significantly worse candidate, prints Markdown, takes a prompt file, and runs locally', { timeout: timeLimit({ starts: 11 }) }, async () => {
    const dir = fx.dataDir();
    const server = await fx.serve(dir, { PROMPTLINE_RATE_LIMIT_PER_MINUTE: '0' });
    const api = (p: string, body?: unknown, method = 'POST') => callServer(server.origin, p, ADMIN, body, method);
    await api('/prompts', { prompt_id: 'p', template: '{{answer}}', labels: ['production'] });
    await api('/prompts/p/versions', { template: '{{answer}}!' });
    await api('/datasets', { dataset_id: 'qa' });
    await api('/datasets/qa/items', { items: Array.from({ length: 12 }, (_, i) => ({ inputs: { answer: `a${i}` }, expected: `a${i}` })) });
    await api('/evaluators', { evaluator_id: 'exact', kind: 'exact_match' });
    await api('/evaluators', { evaluator_id: 'short', kind: 'length', max_chars: 50 });
    const http = { PROMPTLINE_URL: server.origin, PROMPTLINE_API_KEY: ADMIN };
    const evalRun = (args: string[], env: Record<string, string> = http) =>
      cliAsync(['eval', 'run', '--prompt', 'p', '--dataset', 'qa', '--evaluator', 'exact', '--evaluator', 'short', ...args], env);

    const worse = await evalRun(['--candidate', '2', '--fail-if-worse', '--format', 'markdown']);
    expect([worse.status, worse.stderr]).toEqual([1, '']);
    expect(worse.stdout).toContain('### Promptline evaluation: ❌ worse on `exact`');
    expect(worse.stdout).toContain('| `exact` | 0.0% | 100.0% | -100.0 pts');
    expect(worse.stdout).toContain('| 0 / 0 / 12 |');
    expect(worse.stdout).toMatch(/\| `short` \| 100\.0% \| 100\.0% \| \+?0\.0 pts .*\| no significant difference \|/);
    expect(worse.stdout).toContain('**Gate:** the gate FAILS on exact, short (tolerance 0.05)');
    expect(worse.stdout).toContain('- FAIL exact: the candidate measured 100.0 pts worse than the baseline, more than the tolerance of 5.0 pts');
    // 12 ties show nothing within 5 points: the gate says how many items would (issue 40).
    expect(worse.stdout).toContain(
      '- FAIL short: 12 items cannot show the candidate is not worse by more than 5.0 pts (the difference could be 26.5 pts worse); about 72 items would',
    );

    // `eval show` prints the same summary again from its id; `eval cancel` of an ended evaluation changes nothing.
    const id = /\(`(evl_\w+)`\)/.exec(worse.stdout)![1]!;
    const shown = await cliAsync(['eval', 'show', id, '--format', 'markdown'], http);
    expect([shown.status, shown.stderr, `${shown.stdout}`]).toEqual([0, '', worse.stdout.slice(0, worse.stdout.indexOf('\n**Gate:**'))]);
    const cancelled = await cliAsync(['eval', 'cancel', id], http);
    expect([cancelled.status, cancelled.stderr, cancelled.stdout]).toEqual([0, '', `${id}: completed, 24/24 items × versions done, cost $0.0000\n`]);
    const missing = await cliAsync(['eval', 'show', 'evl_missing'], http);
    expect([missing.status, missing.stderr]).toEqual([1, expect.stringContaining("Evaluation 'evl_missing' not found")]);

    // Gated on `short` only, the same evaluation passes with a tolerance its 12 ties can show (26.5 points);
    // without --fail-if-worse it never fails.
    expect((await evalRun(['--candidate', '2', '--fail-if-worse', '--gate', 'short'])).status).toBe(1);
    const tolerant = await evalRun(['--candidate', '2', '--fail-if-worse', '--gate', 'short', '--tolerance', '0.3']);
    expect([tolerant.status, tolerant.stdout]).toEqual([0, expect.stringContaining('\nthe gate passes (tolerance 0.3)\n  pass short: every one of 12 items')]);
    expect((await evalRun(['--candidate', '2'])).status).toBe(0);

    // A prompt file: the content of version 1 is evaluated as version 1; a new content is pushed first.
    const same = path.join(dir, 'p.prompt.yaml');
    fs.writeFileSync(same, 'prompt_id: p\ntemplate: "{{answer}}"\n');
    const asV1 = await evalRun(['--candidate-file', same, '--fail-if-worse', '--tolerance', '0.3', '--format', 'markdown']);
    expect([asV1.status, asV1.stderr.trim()]).toEqual([0, `${same}: the content of version 1`]);
    expect(asV1.stdout).toContain('✅ not significantly worse');
    expect(asV1.stdout).toContain('**Gate:** the gate passes (tolerance 0.3)');
    fs.writeFileSync(same, 'prompt_id: p\ntemplate: "{{answer}}?"\n');
    const pushed = await evalRun(['--candidate-file', same, '--fail-if-worse']);
    expect([pushed.status, pushed.stderr.trim()]).toEqual([1, `${same}: pushed as version 3 (no label moved)`]);
    expect((await api('/prompts/p', undefined, 'GET')).json.labels).toEqual({ production: 1 });

    // Errors of the request are the API's, said as such (exit 1 as every failed command).
    const unknown = await evalRun(['--candidate', '9']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/has no version 9/);

    // The local database, no server: the CLI runs the evaluation itself.
    await server.stop();
    fx.forget(server);
    const local = await evalRun(['--candidate', '1', '--fail-if-worse', '--tolerance', '0.3', '--format', 'json'], { PROMPTLINE_DATA_DIR: dir });
    expect([local.status, local.stderr]).toEqual([0, expect.stringContaining('the gate passes (tolerance 0.3)')]);
    expect(JSON.parse(local.stdout)).toMatchObject({ status: 'completed', progress: { done: 24, total: 24 } });
  });
});
