import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';
import { createReportServices } from '../../../src/services.js';
import { CSV_COLUMNS } from '../../../src/modules/results/results.csv.js';
import { formatResults, renderResults } from '../../../src/cli/resultsCommand.js';
import { parseCsv } from '../../support/csv.js';

/** The sections of a results report, in order: the answer and the API document agree. */
const REPORT_KEYS = [
  'experiment_id',
  'prompt_id',
  'status',
  'control',
  'primary_metric',
  'decisions',
  'generated_at',
  'options',
  'variants',
  'metrics',
  'guardrails',
  'exploratory',
  'primary',
  'health',
  'timeseries_granularity',
  'timeseries',
];

let t: TestApp;
let runtime: string;
let read: string;
let projectId: string;
const EXP = 'res';
/** user → variant, as /get_prompt answered. */
const assigned = new Map<string, string>();
const users = Array.from({ length: 24 }, (_, i) => `u${String(i).padStart(2, '0')}`);
const index = (u: string) => Number(u.slice(1));

const track = (body: Record<string, unknown>) => t.request('POST', '/track_outcome', { key: runtime, body: { prompt_id: 'greet', ...body } });
const results = (query = '', key: string | null = read, id = EXP) => t.request('GET', `/experiments/${id}/results${query}`, { key });

async function insertRun(id: string, variant: string, latency: number, status: 'ok' | 'error', user: string): Promise<void> {
  await t.store.writer.write((tx) =>
    tx.run(
      `INSERT INTO runs (id, project_id, prompt_id, prompt_version, experiment_id, variant, external_user_id, inputs, rendered,
      model_requested, prompt_tokens, completion_tokens, total_tokens, cost_nano_usd, latency_ms, status, attempts, created_at)
    VALUES (?, ?, 'greet', 1, ?, ?, ?, '{}', '[]', 'echo/echo', 10, 5, 15, 1500, ?, ?, '[]', '2030-01-01T00:00:00.000Z')`,
      [id, projectId, EXP, variant, user, latency, status],
    ),
  );
}

beforeAll(async () => {
  t = await startTestApp();
  runtime = await t.keyFor('runtime');
  read = await t.keyFor('read');
  projectId = (await t.keys.authenticate(read))!.projectId;
  await givenPrompt(t, { prompt_id: 'greet', template: 'A {{name}}', versions: ['B {{name}}'] });
  await givenExperiment(t, { experiment_id: EXP, prompt_id: 'greet', primary_metric: { event_type: 'click', kind: 'success_rate' } });
});
afterAll(async () => t.cleanup());

describe('GET /experiments/{id}/results', () => {
  it('answers for a draft experiment with no data: empty, and no NaN anywhere', async () => {
    await track({ event_type: 'click', is_success: true }); // before the experiment started: not counted as unattributed
    const res = await results();
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json).toMatchObject({
      experiment_id: EXP,
      prompt_id: 'greet',
      status: 'draft',
      control: 'a',
      primary_metric: { event_type: 'click', kind: 'success_rate' },
      options: { sequential: false, prior: 'flat', alpha: 0.05, explore: false, cuped: false, target_mde: 0.1 },
      primary: { name: 'click:success_rate', event_type: 'click', kind: 'success_rate', mde_relative: null },
      health: { srm: { chi_square: 0, df: 1, p_value: 1, checked: false, flagged: false }, users_in_multiple_variants: 0, unattributed_outcomes: 0 },
      timeseries: [],
    });
    expect(res.json.variants.map((v: { key: string; users: number; runs: number }) => [v.key, v.users, v.runs])).toEqual([
      ['a', 0, 0],
      ['b', 0, 0],
    ]);
    expect(res.json.metrics).toHaveLength(1);
    expect(res.json.metrics[0].comparisons[0]).toMatchObject({ enough_data: false, verdict: 'not_enough_data', p_value_adjusted: null });
    expect(res.json.metrics[0].variants[0]).toMatchObject({ users: 0, n: 0, value: null, sum: 0, labels: {} });
    expect(res.text).not.toMatch(/NaN|Infinity/);
  });

  it('reports exposures, runs, latency, cost, metrics, labels and verdicts of a running experiment', async () => {
    expect((await t.request('POST', `/experiments/${EXP}/start`)).status).toBe(200);
    for (const user of users) {
      const res = await t.request('POST', '/get_prompt', { key: runtime, body: { prompt_id: 'greet', inputs: { name: 'x' }, external_user_id: user } });
      assigned.set(user, res.json.variant_assigned);
    }
    for (const user of users) {
      const i = index(user);
      await track({ external_user_id: user, event_type: 'click', is_success: i % 3 === 0, label: i % 2 === 0 ? 'fast' : null });
      if (i % 3 === 0) await track({ external_user_id: user, event_type: 'click', is_success: false }); // a later failure keeps the success
      if (i % 2 === 0) {
        await track({ external_user_id: user, event_type: 'rating', numeric_value: i % 4 });
        await track({ external_user_id: user, event_type: 'rating', numeric_value: 0.5 });
      }
    }
    await track({ event_type: 'click', is_success: true }); // no user, no run: unattributed, during the experiment
    await track({ event_type: 'other', label: 'x' });
    const aUser = users.find((u) => assigned.get(u) === 'a')!;
    for (let k = 1; k <= 10; k++) await insertRun(`run_ok_${k}`, 'a', 10 * (11 - k), 'ok', aUser);
    await insertRun('run_err', 'a', 5000, 'error', aUser);

    const res = await results();
    expect(res.status).toBe(200);
    const r = res.json;
    expect(Object.keys(r)).toEqual(REPORT_KEYS);
    const inA = users.filter((u) => assigned.get(u) === 'a');
    const inB = users.filter((u) => assigned.get(u) === 'b');
    expect(inA.length).toBeGreaterThan(2);
    expect(inB.length).toBeGreaterThan(2);

    const [a, b] = r.variants;
    expect(Object.keys(a)).toEqual(['key', 'version', 'weight', 'users', 'runs', 'errored_runs', 'render_failures', 'latency_ms', 'tokens', 'cost_usd']);
    const successesA = inA.filter((u) => index(u) % 3 === 0).length;
    expect(a).toEqual({
      key: 'a',
      version: 1,
      weight: 0.5,
      users: inA.length,
      runs: 11,
      errored_runs: 1,
      render_failures: 0,
      latency_ms: { p50: 50, p95: 100 }, // nearest rank over the 10 ok runs: ranks 5 and 10
      tokens: { prompt: 110, completion: 55, total: 165 },
      cost_usd: { total: 0.0000165, per_run: 0.0000015, per_successful_user: successesA > 0 ? Math.round(16500 / successesA) / 1e9 : null },
    });
    const successesB = inB.filter((u) => index(u) % 3 === 0).length;
    expect(b).toMatchObject({
      key: 'b',
      users: inB.length,
      runs: 0,
      errored_runs: 0,
      latency_ms: { p50: null, p95: null },
      cost_usd: { total: 0, per_run: null, per_successful_user: successesB > 0 ? 0 : null },
    });

    // primary_metric (the older shorthand) declares one goal metric; rating is not declared, so it is
    // left out unless explored, and then reported on its own.
    expect(r.metrics.map((m: { event_type: string; kind: string; primary: boolean }) => [m.event_type, m.kind, m.primary])).toEqual([
      ['click', 'success_rate', true],
    ]);
    expect(r.exploratory).toEqual([]);
    const explored = (await results('?explore=true')).json;
    expect(explored.metrics).toEqual(r.metrics);
    expect(explored.exploratory.map((m: { event_type: string; kind: string; role: string }) => [m.event_type, m.kind, m.role])).toEqual([
      ['rating', 'mean', 'exploratory'],
    ]);
    const click = r.metrics[0];
    expect(Object.keys(click.variants[0])).toEqual(['key', 'users', 'users_with_event', 'value', 'n', 'sum', 'sum_squares', 'labels']);
    expect(click.variants[0]).toEqual({
      key: 'a',
      users: inA.length,
      users_with_event: inA.length,
      value: successesA / inA.length,
      n: inA.length,
      sum: successesA,
      sum_squares: successesA,
      labels: { fast: inA.filter((u) => index(u) % 2 === 0).length },
    });
    const rating = explored.exploratory[0];
    const perUser = inB.map((u) => (index(u) % 2 === 0 ? (index(u) % 4) + 0.5 : 0));
    const sum = perUser.reduce((s, x) => s + x, 0);
    expect(rating.variants[1]).toMatchObject({
      key: 'b',
      users_with_event: perUser.filter((x) => x > 0).length,
      n: inB.length,
      sum,
      sum_squares: perUser.reduce((s, x) => s + x * x, 0),
    });
    expect(rating.variants[1].value).toBeCloseTo(sum / inB.length, 12);

    const comparison = click.comparisons[0];
    expect(Object.keys(comparison)).toEqual([
      'variant',
      'control',
      'absolute',
      'relative',
      'p_value_adjusted',
      'bayes',
      'enough_data',
      'verdict',
      'verdict_text',
      'verdict_p_value',
      'verdict_p_kind',
    ]);
    expect(comparison).toMatchObject({ variant: 'b', control: 'a', enough_data: true, verdict_p_kind: 'holm_adjusted' });
    expect(comparison.verdict_p_value).toBe(comparison.p_value_adjusted); // the one p the verdict reads
    // Holm over one goal metric × one treatment leaves the p-value as it is: the undeclared rating does not count.
    expect(comparison.p_value_adjusted).toBe(comparison.relative.p_value);
    expect(r.health).toEqual({
      srm: expect.objectContaining({ df: 1, checked: inA.length >= 8 && inB.length >= 8 }),
      users_in_multiple_variants: 0,
      unattributed_outcomes: 2,
    });
    expect(r.timeseries).toHaveLength(1);
    expect(r.timeseries[0].variants.a).toEqual({ exposures: inA.length, cumulative_exposures: inA.length, cumulative_value: successesA / inA.length });
    expect(r.primary.event_type).toBe('click');
  });

  it('adds always-valid intervals with ?sequential=true and shrinks towards 0 with ?prior=proper', async () => {
    const plain = (await results()).json.metrics[0].comparisons[0];
    const seq = (await results('?sequential=true')).json;
    expect(seq.options).toEqual({ sequential: true, prior: 'flat', alpha: 0.05, explore: false, cuped: false, target_mde: 0.1 });
    const c = seq.metrics[0].comparisons[0];
    expect(Object.keys(c)).toContain('sequential');
    expect(c.sequential.ci[1] - c.sequential.ci[0]).toBeGreaterThan(plain.relative.ci[1] - plain.relative.ci[0]);
    const proper = (await results('?prior=proper')).json.metrics[0].comparisons[0];
    expect(Math.abs(proper.bayes.chance_to_win - 0.5)).toBeLessThanOrEqual(Math.abs(plain.bayes.chance_to_win - 0.5));
  });

  it.each([
    ['?prior=bogus', ['query', 'prior']],
    ['?sequential=maybe', ['query', 'sequential']],
    ['?format=xml', ['query', 'format']],
  ])('rejects %s with 422', async (query, loc) => {
    const res = await results(query);
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(loc);
  });

  it('answers CSV with one row per metric × variant, the same numbers as the JSON', async () => {
    const json = (await results()).json;
    const res = await results('?format=csv');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${EXP}-results.csv"`);
    const [header, ...rows] = parseCsv(res.text);
    expect(header).toEqual([...CSV_COLUMNS]);
    expect(rows).toHaveLength(json.metrics.length * 2);
    const col = (row: string[], name: (typeof CSV_COLUMNS)[number]) => row[CSV_COLUMNS.indexOf(name)]!;
    for (const [mi, m] of (json.metrics as any[]).entries())
      for (const [vi, v] of (m.variants as any[]).entries()) {
        const row = rows[mi * 2 + vi]!;
        expect([col(row, 'event_type'), col(row, 'kind'), col(row, 'variant'), col(row, 'primary')]).toEqual([m.event_type, m.kind, v.key, String(m.primary)]);
        expect(Number(col(row, 'value'))).toBe(v.value);
        expect(Number(col(row, 'sum_squares'))).toBe(v.sum_squares);
        expect(JSON.parse(col(row, 'labels'))).toEqual(v.labels);
        const c = m.comparisons.find((x: any) => x.variant === v.key);
        if (c === undefined) {
          expect(col(row, 'is_control')).toBe('true');
          expect(col(row, 'rel_lift')).toBe('');
        } else {
          expect(Number(col(row, 'rel_lift'))).toBe(c.relative.lift);
          expect(Number(col(row, 'rel_ci_low'))).toBe(c.relative.ci[0]);
          expect(Number(col(row, 'p_value_adjusted'))).toBe(c.p_value_adjusted);
          expect(Number(col(row, 'chance_to_win'))).toBe(c.bayes.chance_to_win);
          expect(col(row, 'verdict_text')).toBe(c.verdict_text);
        }
      }
  });

  it('agrees across the endpoint, the CSV and the CLI (which calls the service on the same file)', async () => {
    const json = (await results('?sequential=true')).json;
    const csv = (await results('?sequential=true&format=csv')).text;
    const cli = await createReportServices(t.store).results.results(projectId, EXP, { sequential: true, prior: 'flat' });
    expect({ ...cli, generated_at: json.generated_at }).toEqual(json);
    expect(renderResults(cli, 'csv')).toBe(csv);
    const table = formatResults(cli);
    expect(table).toBe(formatResults({ ...json, generated_at: cli.generated_at }));
    const click = json.metrics[0];
    const b = click.comparisons[0];
    const line = table.split('\n').find((l) => l.startsWith('click:success_rate*') && /\sb\s/.test(l))!;
    expect(line).toContain(click.variants[1].value.toFixed(4));
    expect(line).toContain(`${b.relative.lift >= 0 ? '+' : ''}${(b.relative.lift * 100).toFixed(1)}%`);
    expect(table).toContain(`  click:success_rate (primary): ${b.verdict_text}`);
    expect(table).toContain(`  b: ${json.decisions[0].decision.toUpperCase()}: ${json.decisions[0].reason}`);
    expect(renderResults(cli, 'json')).toBe(`${JSON.stringify(cli, null, 2)}\n`);
    // One p-value, the verdict's, named for what it is in the table, the CSV and the sentence alike.
    expect(b.verdict_p_kind).toBe('sequential_holm_adjusted');
    expect(b.verdict_p_value).toBe(b.p_value_adjusted);
    const header = table.split('\n').find((l) => l.startsWith('METRIC') && l.includes('P_SEQ_HOLM'))!;
    expect(header).toBeDefined();
    expect(header.split(/\s+/).filter((column) => /^P(_|$)/.test(column))).toEqual(['P_SEQ_HOLM']);
    const row = parseCsv(csv).find((cells) => cells[4] === 'b')!;
    const columns = parseCsv(csv)[0]!;
    expect(row[columns.indexOf('verdict_p_value')]).toBe(String(b.verdict_p_value));
    expect(row[columns.indexOf('verdict_p_kind')]).toBe('sequential_holm_adjusted');
  });

  it('quotes CSV cells and defuses text a spreadsheet would run as a formula', async () => {
    await track({ external_user_id: users[0], event_type: '=HYPERLINK("x","y")', is_success: true });
    const csv = (await results('?format=csv&explore=true')).text;
    expect(csv).toContain(`${EXP},"'=HYPERLINK(""x"",""y"")",success_rate,false,a,`);
    const rows = parseCsv(csv).filter((row) => row[1] === `'=HYPERLINK("x","y")`);
    expect(rows.map((row) => row[4])).toEqual(['a', 'b']);
  });

  it('counts users whose outcomes name another variant than their assignment', async () => {
    const user = users.find((u) => assigned.get(u) === 'a')!;
    await t.store.writer.write((tx) =>
      tx.run(
        `INSERT INTO outcomes (id, project_id, prompt_id, event_type, is_success, experiment_id, variant, attributed_by, attributed_user, created_at)
      VALUES ('out_mismatch', ?, 'greet', 'click', 0, ?, 'b', 'run', ?, '2030-01-01T00:00:00.000Z')`,
        [projectId, EXP, user],
      ),
    );
    const r = (await results()).json;
    expect(r.health.users_in_multiple_variants).toBe(1);
    await t.store.writer.write((tx) => tx.run(`DELETE FROM outcomes WHERE id = 'out_mismatch'`));
  });

  it('is in the OpenAPI document with its response schema', async () => {
    const doc = (await t.request('GET', '/openapi.json', { key: null })).json;
    const op = doc.paths['/experiments/{experiment_id}/results'].get;
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['experiment_id', 'sequential', 'prior', 'explore', 'cuped', 'format']),
    );
    const schema = op.responses['200'].content['application/json'].schema;
    // bandit: only in a bandit's report (docs/experiment-results.md).
    expect(Object.keys(schema.properties)).toEqual([...REPORT_KEYS, 'bandit']);
  });
});

describe('results security', () => {
  it('needs a key: missing → 422, unknown → 401, runtime → 403', async () => {
    const missing = await results('', null);
    expect(missing.status).toBe(422);
    expect(missing.json.detail[0].loc).toEqual(['header', 'x-api-key']);
    expect((await results('', 'pl_r_nope')).json).toEqual({ detail: 'Invalid API key' });
    const runtimeKey = await results('', runtime);
    expect(runtimeKey.status).toBe(403);
    expect(runtimeKey.json).toEqual({ detail: 'Not allowed for this API key' });
    expect((await results('?format=csv', runtime)).headers['content-type']).toBe('application/json');
  });

  it("answers 404 for an unknown experiment and for another project's", async () => {
    expect((await results('', read, 'nope')).json).toEqual({ detail: "Experiment 'nope' not found" });
    const other = await t.keyFor('read', 'other');
    const res = await results('?format=csv', other);
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ detail: `Experiment '${EXP}' not found` });
    await expect(createReportServices(t.store).results.results('prj_other', EXP)).rejects.toThrow(`Experiment '${EXP}' not found`);
  });
});
