import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_TEXT_BUDGET } from '../../../src/db/pagination.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';

// An audit entry keeps the version it records, so entries of long templates are large: a page of
// them is bounded by its text, not only by its row count, and paging still visits every entry once.
let t: TestApp;
const VERSIONS = 24;
const TEMPLATE_CHARS = 100_000;

beforeAll(async () => {
  t = await startTestApp();
  const long = (n: number) => `${String(n).padStart(6, '0')} {{name}} ${'x'.repeat(TEMPLATE_CHARS - 16)}`;
  await givenPrompt(t, { prompt_id: 'big', template: long(0), versions: Array.from({ length: VERSIONS - 1 }, (_, v) => long(v + 1)) });
});
afterAll(async () => t.cleanup());

describe('GET /audit pages are bounded in bytes', () => {
  it('a page of 100 large entries stops near the text budget, with a cursor', async () => {
    const res = await t.request('GET', '/audit?limit=100&target_type=prompt');
    expect(res.status).toBe(200);
    // Within the budget plus the one entry that passes it (an entry here is ~100 KB), JSON escaping aside.
    expect(res.text.length).toBeLessThan(PAGE_TEXT_BUDGET + 2 * TEMPLATE_CHARS + 64 * 1024);
    expect(res.json.data.length).toBeGreaterThan(1);
    expect(res.json.data.length).toBeLessThan(VERSIONS);
    expect(res.json.next_cursor).toBe(res.json.data.at(-1).id);
  });

  it.each([
    ['the time index', ''],
    ['a filter that leads', '&target_id=big'],
    ['a filter checked on the scan', '&target_type=prompt'],
  ])('paging through %s visits every entry exactly once, whole', async (_, filter) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { json: { data: any[]; next_cursor: string | null } } = await t.request(
        'GET',
        `/audit?limit=100${filter}${cursor ? `&cursor=${cursor}` : ''}`,
      );
      for (const entry of res.json.data.filter((e) => e.target_id === 'big')) {
        seen.push(entry.id);
        expect(JSON.stringify(entry.after).length).toBeGreaterThan(TEMPLATE_CHARS);
      }
      cursor = res.json.next_cursor;
      pages++;
    } while (cursor !== null && pages < 50);
    expect(pages).toBeGreaterThan(1);
    expect(seen.length).toBe(VERSIONS);
    expect(new Set(seen).size).toBe(VERSIONS);
  });
});
