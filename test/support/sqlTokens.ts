/**
 * Just enough of SQL's lexical structure to take parts out of a migration's statements (for
 * test/integration/db/migrationParity.test.ts): a tokenizer, the CHECK expressions of a CREATE TABLE
 * and the keys and WHERE of a CREATE INDEX, found among its tokens — never with a regular expression
 * over the statement, so that a comment, a string or a nested parenthesis cannot fool it.
 */

export interface Token {
  kind: 'word' | 'quoted' | 'string' | 'number' | 'symbol';
  /** Words are upper-cased, quoted identifiers unquoted, strings keep their quotes. */
  text: string;
}

const SYMBOLS = ['::', '<>', '!=', '<=', '>=', '||', '=', '<', '>', '(', ')', '[', ']', ',', '+', '-', '*', '/', '%', ';', '.'];

export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (/\s/.test(c)) i++;
    else if (sql.startsWith('--', i)) i = sql.indexOf('\n', i) === -1 ? sql.length : sql.indexOf('\n', i);
    else if (sql.startsWith('/*', i)) {
      const end = sql.indexOf('*/', i + 2);
      if (end === -1) throw new Error('unterminated comment');
      i = end + 2;
    } else if (c === "'" || c === '"' || c === '`') {
      // '…' is a string; "…" and `…` are identifiers. A doubled quote escapes itself. (SQLite's
      // […] identifiers are not read: `[` is PostgreSQL's ARRAY[ and text[], and this schema quotes nothing.)
      let j = i + 1;
      let text = '';
      for (;;) {
        if (j >= sql.length) throw new Error(`unterminated ${c} at ${i}`);
        if (sql[j] === c) {
          if (sql[j + 1] === c) {
            text += c;
            j += 2;
            continue;
          }
          break;
        }
        text += sql[j];
        j++;
      }
      tokens.push(c === "'" ? { kind: 'string', text: `'${text.replaceAll("'", "''")}'` } : { kind: 'quoted', text });
      i = j + 1;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(sql[i + 1] ?? ''))) {
      const m = /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/.exec(sql.slice(i))!;
      tokens.push({ kind: 'number', text: m[0] });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(sql.slice(i))!;
      tokens.push({ kind: 'word', text: m[0].toUpperCase() });
      i += m[0].length;
    } else {
      const symbol = SYMBOLS.find((s) => sql.startsWith(s, i));
      if (symbol === undefined) throw new Error(`unexpected ${JSON.stringify(c)} at ${i}`);
      tokens.push({ kind: 'symbol', text: symbol });
      i += symbol.length;
    }
  }
  return tokens;
}

export const isSymbol = (t: Token | undefined, text: string) => t?.kind === 'symbol' && t.text === text;
export const isWord = (t: Token | undefined, text: string) => t?.kind === 'word' && t.text === text;

/** The index of the `)` that closes the `(` at `open`. */
export function closing(tokens: readonly Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    if (isSymbol(tokens[i], '(')) depth++;
    else if (isSymbol(tokens[i], ')') && --depth === 0) return i;
  }
  throw new Error('unbalanced parentheses');
}

/** Splits a parenthesised list's inside at its top-level commas. */
function splitTopLevel(tokens: readonly Token[]): Token[][] {
  const parts: Token[][] = [[]];
  let depth = 0;
  for (const t of tokens) {
    if (isSymbol(t, '(')) depth++;
    if (isSymbol(t, ')')) depth--;
    if (depth === 0 && isSymbol(t, ',')) parts.push([]);
    else parts.at(-1)!.push(t);
  }
  return parts;
}

/**
 * The expression of every CHECK of a CREATE TABLE statement (as sqlite_schema keeps it: columns
 * added later by ALTER TABLE are spliced into it, constraints included), column and table
 * constraints alike, in the order written.
 */
export function checkExpressions(createTable: string): Token[][] {
  const tokens = tokenize(createTable);
  const open = tokens.findIndex((t) => isSymbol(t, '('));
  const close = closing(tokens, open);
  const checks: Token[][] = [];
  let depth = 0;
  for (let i = open; i <= close; i++) {
    if (isSymbol(tokens[i], '(')) depth++;
    else if (isSymbol(tokens[i], ')')) depth--;
    else if (depth === 1 && isWord(tokens[i], 'CHECK') && isSymbol(tokens[i + 1], '(')) {
      const end = closing(tokens, i + 1);
      checks.push(tokens.slice(i + 2, end));
      i = end;
    }
  }
  return checks;
}

/** The key expressions (each with any ASC/DESC it ends with) and the WHERE of a CREATE INDEX statement. */
export function indexParts(createIndex: string): { keys: { expression: Token[]; descending: boolean }[]; where: Token[] | null } {
  const tokens = tokenize(createIndex);
  const on = tokens.findIndex((t) => isWord(t, 'ON'));
  const open = tokens.findIndex((t, i) => i > on && isSymbol(t, '('));
  const close = closing(tokens, open);
  const keys = splitTopLevel(tokens.slice(open + 1, close)).map((key) => {
    const last = key.at(-1);
    const direction = isWord(last, 'DESC') || isWord(last, 'ASC');
    return { expression: direction ? key.slice(0, -1) : key, descending: isWord(last, 'DESC') };
  });
  const rest = tokens.slice(close + 1).filter((t) => !isSymbol(t, ';'));
  if (rest.length > 0 && !isWord(rest[0], 'WHERE')) throw new Error(`unexpected ${rest[0]!.text} after the index keys`);
  return { keys, where: rest.length > 0 ? rest.slice(1) : null };
}
