import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listStatements, SCAN_BUDGET, type ListRequest } from '../../../src/db/pagination.js';
import { runListRequest } from '../../../src/modules/runs/runs.repo.js';
import { outcomeListRequest } from '../../../src/modules/outcomes/outcomes.repo.js';
import { experimentListRequest } from '../../../src/modules/experiments/experiments.repo.js';
import { promptListRequest } from '../../../src/modules/prompts/prompts.repo.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';
import { testBackend } from '../../support/postgres.js';

let t: TestApp;
let projectId: string;
beforeAll(async () => {
  t = await startTestApp();
  await givenPrompt(t);
  projectId = (await t.store.sql.value<string>("SELECT id FROM projects WHERE name = 'default'")) as string;
});
afterAll(async () => t.cleanup());

/** SQLite's plan for the list query the API runs, as one string of its steps. */
function planOf(sql: string, args: unknown[]): string {
  return (t.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as Array<{ detail: string }>).map((r) => r.detail).join(' | ');
}

const page = { since: undefined, until: undefined, cursor: undefined, limit: 50 };
const later = { ...page, since: '2026-01-01T00:00:00.000Z', until: '2027-01-01T00:00:00.000Z', cursor: 'x_1' };

/** Every statement a list page runs: the page from `index` in order, the cursor and the fetch by a unique-key seek. */
function expectPlans(request: ListRequest, index: string): void {
  const { cursor, page: pageStatement, fetch } = listStatements(request, '2026-06-01T00:00:00.000Z');
  const plan = planOf(pageStatement.sql, pageStatement.args);
  expect(plan).toMatch(new RegExp(`^(CO-ROUTINE \\S+ \\| )?SEARCH ${request.table} USING (COVERING )?INDEX ${index} \\(`));
  expect(plan).not.toContain('TEMP B-TREE');
  if (cursor) expect(planOf(cursor.sql, cursor.args)).toMatch(/^SEARCH \w+ USING (COVERING )?INDEX sqlite_autoindex_\w+ \(/);
  const key = request.key ?? 'id';
  if (pageStatement.scanned) {
    const seek = new RegExp(`^SEARCH ${request.table} USING INDEX sqlite_autoindex_${request.table}_1 \\((project_id=\\? AND )?${key}=\\?\\)$`);
    expect(planOf(fetch.sql, fetch.args)).toMatch(seek);
  }
}

describe.skipIf(testBackend() === 'postgres')('every list reads its rows in order from an index: no sort, no scan of the history (SQLite: query plans)', () => {
  it.each([
    [{}, 'runs_project_created'],
    [{ prompt_id: 'p' }, 'runs_prompt_list'],
    [{ experiment_id: 'e' }, 'runs_experiment_list'],
    [{ experiment_id: 'e', variant: 'a' }, 'runs_experiment_list'],
    [{ external_user_id: 'u' }, 'runs_user_list'],
    [{ status: 'error' }, 'runs_error_list'],
    [{ status: 'ok' }, 'runs_project_created'],
    [{ variant: 'a' }, 'runs_project_created'],
    [{ prompt_id: 'p', status: 'error' }, 'runs_error_list'],
    [{ prompt_id: 'p', external_user_id: 'u', status: 'ok' }, 'runs_prompt_list'],
  ] as const)('GET /runs %j leads with %s', (filters, index) => {
    expectPlans(runListRequest(projectId, { ...page, ...filters }), index);
    expectPlans(runListRequest(projectId, { ...later, ...filters }), index);
  });

  it.each([
    [{}, 'outcomes_project_created'],
    [{ prompt_id: 'p' }, 'outcomes_prompt_list'],
    [{ experiment_id: 'e' }, 'outcomes_experiment_list'],
    [{ experiment_id: 'e', variant: 'a' }, 'outcomes_experiment_list'],
    [{ external_user_id: 'u' }, 'outcomes_user_list'],
    [{ event_type: 'click' }, 'outcomes_event_list'],
    [{ prompt_run_id: 'run_x' }, 'outcomes_run_list'],
    [{ variant: 'a' }, 'outcomes_project_created'],
    [{ prompt_id: 'p', event_type: 'click', external_user_id: 'u' }, 'outcomes_event_list'],
  ] as const)('GET /outcomes %j leads with %s', (filters, index) => {
    expectPlans(outcomeListRequest(projectId, { ...page, ...filters }), index);
    expectPlans(outcomeListRequest(projectId, { ...later, ...filters }), index);
  });

  it.each([
    [true, 'prompts_created'],
    [false, 'prompts_created'],
  ])('GET /prompts (include_archived=%s) reads %s', (includeArchived, index) => {
    expectPlans(promptListRequest(projectId, { includeArchived, cursor: undefined, limit: 50 }), index);
    expectPlans(promptListRequest(projectId, { includeArchived, cursor: 'p', limit: 50 }), index);
  });

  it.each([
    [{}, 'experiments_created'],
    [{ prompt_id: 'p' }, 'experiments_prompt_list'],
    [{ prompt_id: 'p', status: 'running' }, 'experiments_prompt_list'],
  ] as const)('GET /experiments %j leads with %s', (filters, index) => {
    expectPlans(experimentListRequest(projectId, { cursor: undefined, limit: 50, ...filters }), index);
    expectPlans(experimentListRequest(projectId, { cursor: 'exp_1', limit: 50, ...filters }), index);
  });
});

describe('paging through filtered lists', () => {
  const insert = (n: number, row: (i: number) => { event_type: string; external_user_id: string }) =>
    t.store.writer.write(async (tx) => {
      // 500 rows a statement: one transaction, without a round trip a row on PostgreSQL.
      for (let from = 0; from < n; from += 500) {
        const values: string[] = [];
        const args: unknown[] = [];
        for (let i = from; i < Math.min(n, from + 500); i++) {
          const r = row(i);
          values.push(`(?, ?, 'p', ?, ?, 'none', ?)`);
          // Several rows share a millisecond, so the id breaks ties in the order.
          args.push(
            `out_${String(i).padStart(32, '0')}`,
            projectId,
            r.external_user_id,
            r.event_type,
            new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 3)).toISOString(),
          );
        }
        await tx.run(
          `INSERT INTO outcomes (id, project_id, prompt_id, external_user_id, event_type, attributed_by, created_at) VALUES ${values.join(', ')}`,
          args,
        );
      }
    });

  async function all(url: string): Promise<{ ids: string[]; pages: number; sizes: number[] }> {
    const ids: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const res = await t.request('GET', `${url}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      ids.push(...res.json.data.map((o: { outcome_id: string }) => o.outcome_id));
      sizes.push(res.json.data.length);
      cursor = res.json.next_cursor;
    } while (cursor !== null);
    return { ids, pages: sizes.length, sizes };
  }

  beforeAll(async () => {
    // 2.5 budgets of rows; user u7 appears once every 1 000, the event 'rare' once per 2 000 from the end.
    await insert(SCAN_BUDGET * 2 + SCAN_BUDGET / 2, (i) => ({ event_type: i % 2000 === 1999 ? 'rare' : 'view', external_user_id: `u${i % 1000}` }));
  });

  const idOf = (i: number) => `out_${String(i).padStart(32, '0')}`;

  it('an indexed filter pages exactly: full pages, newest first, no gaps or repeats', async () => {
    const { ids, sizes } = await all('/outcomes?event_type=rare&limit=4');
    expect(ids).toEqual([11_999, 9_999, 7_999, 5_999, 3_999, 1_999].map(idOf));
    expect(sizes).toEqual([4, 2]);
  });

  it('further filters are checked on the rows of the leading one, and the pages together are exact', async () => {
    // event_type leads (its index); external_user_id and prompt_id are checked on its rows.
    const rare = await all('/outcomes?prompt_id=p&external_user_id=u999&event_type=rare&limit=50');
    expect(rare.ids).toEqual([11_999, 9_999, 7_999, 5_999, 3_999, 1_999].map(idOf));
    const views = await all('/outcomes?prompt_id=p&event_type=view&external_user_id=u999&limit=50');
    expect(views.ids).toEqual([10_999, 8_999, 6_999, 4_999, 2_999, 999].map(idOf));
    // A user alone leads with its own index (migrations/0007): its 13 rows, 4 a page.
    const user = await all('/outcomes?external_user_id=u7&limit=4');
    expect(user.ids).toEqual(Array.from({ length: 13 }, (_, k) => idOf(12_007 - k * 1000)));
  });

  it('a page never scans more than the budget: a rare match across the whole history comes back in short pages', async () => {
    const none = await all('/outcomes?prompt_id=p&variant=nothing-has-this&limit=50');
    expect(none.ids).toEqual([]);
    expect(none.sizes).toEqual([0, 0, 0]);
    // prompt_id leads; u999's 12 rows, 5 000 index entries a page: 5 in the newest 5 000, 5 in the next, 2 in the rest.
    const few = await all('/outcomes?prompt_id=p&external_user_id=u999&limit=50');
    expect(few.sizes).toEqual([5, 5, 2]);
  });

  it('a cursor that names no row of the list is a 422', async () => {
    const res = await t.request('GET', '/outcomes?cursor=out_nope');
    expect(res.status).toBe(422);
    expect(res.json.detail[0]).toMatchObject({ type: 'value_error', loc: ['query', 'cursor'], input: 'out_nope' });
  });
});
