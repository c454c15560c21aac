import { describe, expect, it } from 'vitest';
import { canonicalExpression } from '../../support/sqlExpression.js';
import { checkExpressions, indexParts, tokenize } from '../../support/sqlTokens.js';

// The SQL reading the migration parity test relies on (test/support/sqlTokens.ts, sqlExpression.ts): what it must
// see as the same expression in SQLite's and PostgreSQL's spellings, and what it must not.
const text = (sql: string) => canonicalExpression(sql).text;
const joined = (tokens: { text: string }[]) => tokens.map((t) => t.text).join(' ');

describe('canonicalExpression', () => {
  it.each([
    // As written in migrations/*.sql, and as pg_get_constraintdef / pg_get_expr give it back.
    ["role IN ('runtime', 'read', 'admin')", "(role = ANY (ARRAY['runtime'::text, 'read'::text, 'admin'::text]))"],
    ["kind NOT IN ('a', 'b')", "(kind <> ALL ((ARRAY['a'::character varying, 'b'::character varying])::text[]))"],
    ['rate_limit_per_minute IS NULL OR rate_limit_per_minute >= 0', '((rate_limit_per_minute IS NULL) OR (rate_limit_per_minute >= 0))'],
    ['(template IS NULL) <> (messages IS NULL)', '((template IS NULL) <> (messages IS NULL))'],
    ['sample_rate > 0 AND sample_rate <= 1', '((sample_rate > (0)::double precision) AND (sample_rate <= 1::double precision))'],
    ['managed_in_git IN (0, 1)', '(managed_in_git = ANY (ARRAY[0::bigint, 1::bigint]))'],
    ['coalesce(attributed_user, external_user_id)', 'COALESCE(attributed_user, external_user_id)'],
    ['substr(first_seen, 1, 10)', 'substr(first_seen, 1, 10)'],
    ["status = 'running'", "(status = 'running'::text)"],
    ['label IS NOT NULL AND experiment_id IS NOT NULL', '((label IS NOT NULL) AND (experiment_id IS NOT NULL))'],
    ['"Key" != 1.0', 'key <> 1'],
    ["'[]'", "'[]'::text"],
    ["'it''s'", "'it''s'::text"],
    ['-1', '(-1)'],
  ])('%s ≡ %s', (sqlite, postgres) => {
    expect(text(sqlite)).toBe(text(postgres));
  });

  it.each([
    ["status IN ('ok', 'error')", "status IN ('error', 'ok')"],
    ["status IN ('ok')", "status NOT IN ('ok')"],
    ['a > 0', 'a >= 0'],
    ['a OR b AND c', '(a OR b) AND c'],
    ['a IS NULL', 'a IS NOT NULL'],
    ["x = 'a'", "x = 'A'"],
    ['substr(a, 1, 10)', 'substr(a, 1, 7)'],
    ['a - b - c', 'a - (b - c)'],
  ])('%s differs from %s', (a, b) => {
    expect(text(a)).not.toBe(text(b));
  });

  it('names the columns an expression reads, not its functions', () => {
    expect(canonicalExpression('coalesce(b, a) > 0 AND c IN (1, 2)').columns).toEqual(['a', 'b', 'c']);
  });

  it('refuses what it has not been taught, naming the expression', () => {
    expect(() => text("CASE WHEN a THEN 'x' END")).toThrow(/cannot read the expression CASE WHEN A THEN 'x' END: CASE is not supported/);
    expect(() => text('a = = b')).toThrow(/cannot read the expression/);
    expect(() => text('f(a')).toThrow(/unexpected end of expression/);
  });
});

describe('tokenize', () => {
  it('skips comments and keeps strings and quoted names whole', () => {
    expect(tokenize(`a -- x ( 'y\n/* ) */ 'b ( -- c' "d ""e"""`)).toEqual([
      { kind: 'word', text: 'A' },
      { kind: 'string', text: "'b ( -- c'" },
      { kind: 'quoted', text: 'd "e"' },
    ]);
  });
});

describe('checkExpressions', () => {
  it('finds column and table CHECKs, and nothing in comments, strings or defaults', () => {
    const sql = `CREATE TABLE t (
      a TEXT NOT NULL DEFAULT 'CHECK (no)' CHECK (a IN ('x', 'y)')),  -- CHECK (not this)
      b INTEGER CHECK ((b > 0) AND (b < f(1, 2))), "check" TEXT,
      CHECK ((a IS NULL) <> (b IS NULL))
    )`;
    expect(checkExpressions(sql).map(joined)).toEqual(["A IN ( 'x' , 'y)' )", '( B > 0 ) AND ( B < F ( 1 , 2 ) )', '( A IS NULL ) <> ( B IS NULL )']);
  });
});

describe('indexParts', () => {
  it('splits the keys at top-level commas, with their direction, and reads the WHERE', () => {
    const parts = indexParts('CREATE UNIQUE INDEX i ON t (a, substr(b, 1, 10) DESC, coalesce(c, d)) WHERE a IS NOT NULL;');
    expect(parts.keys.map((k) => [joined(k.expression), k.descending])).toEqual([
      ['A', false],
      ['SUBSTR ( B , 1 , 10 )', true],
      ['COALESCE ( C , D )', false],
    ]);
    expect(joined(parts.where!)).toBe('A IS NOT NULL');
    expect(indexParts('CREATE INDEX i ON t (a)').where).toBeNull();
  });
});
