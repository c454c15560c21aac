import { describe, expect, it } from 'vitest';
import { translate } from '../../../src/db/postgres.js';

/** Repository SQL, written once, as PostgreSQL receives it: placeholders numbered, SQLite's planner hints dropped. */
describe('translate', () => {
  it.each([
    ['positional', 'SELECT a FROM t WHERE x = ? AND y = ?', 'SELECT a FROM t WHERE x = $1 AND y = $2', null],
    ['named, a repeated name keeps its number', 'SELECT @a, @b, @a', 'SELECT $1, $2, $1', ['a', 'b']],
    ['placeholders inside string literals stay text', "SELECT '?', '@a', ? FROM t", "SELECT '?', '@a', $1 FROM t", null],
    ['INDEXED BY is dropped', 'SELECT 1 FROM outcomes h INDEXED BY outcomes_person WHERE h.x = ?', 'SELECT 1 FROM outcomes h WHERE h.x = $1', null],
    ['a unary + before a parameter is dropped', 'WHERE x = +@user AND y IN (+@a, +@b)', 'WHERE x = $1 AND y IN ($2, $3)', ['user', 'a', 'b']],
    ['a unary + before a positional one too', 'WHERE y IN (+?, +?)', 'WHERE y IN ($1, $2)', null],
    ['a unary + before a column is dropped', 'WHERE f(x) = +a.external_user_id', 'WHERE f(x) = a.external_user_id', null],
    ['a binary + stays', 'SELECT calls + @calls, a + b FROM t', 'SELECT calls + $1, a + b FROM t', ['calls']],
  ])('%s', (_name, sql, text, names) => {
    const translated = translate(sql);
    expect(translated.text).toBe(text);
    expect(translated.names).toEqual(names);
  });
});
