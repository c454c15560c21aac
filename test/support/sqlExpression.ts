/**
 * One canonical spelling of a SQL expression, so that the two migration trees can be compared
 * (test/integration/db/migrationParity.test.ts): SQLite's text (the migration as written, taken
 * apart by ./sqlTokens.ts) and PostgreSQL's deparsed form (pg_get_constraintdef, pg_get_expr) of the
 * same expression come out equal.
 *
 * The canonical form is a fully parenthesised rendering of the parsed expression. What it
 * deliberately treats as equal, because the two dialects spell the same thing differently:
 *   - parentheses (PostgreSQL's deparser adds them around every operand);
 *   - case of keywords, function and column names, and double quotes around a column name;
 *   - casts: PostgreSQL adds `'a'::text` and `(0)::double precision` to the literals it stored;
 *     the column types are compared separately, by family, so a cast adds nothing;
 *   - `x = ANY (ARRAY[a, b])` is how PostgreSQL deparses `x IN (a, b)`, and `x <> ALL (ARRAY[…])`
 *     is its `x NOT IN (…)`;
 *   - `!=` is `<>`; a number is spelled as JavaScript spells it (`1.0` and `1` differ in SQLite's
 *     storage classes, but no CHECK or index of this schema compares with a real literal).
 * Anything it does not know (CASE, BETWEEN, LIKE, subqueries…) throws, so that a new construct is
 * taught here on purpose instead of compared wrongly.
 */

import { closing, isSymbol, isWord, type Token, tokenize } from './sqlTokens.js';

type Node =
  | { kind: 'column'; name: string }
  | { kind: 'literal'; text: string }
  | { kind: 'call'; name: string; args: Node[] }
  | { kind: 'unary'; op: string; operand: Node }
  | { kind: 'binary'; op: string; left: Node; right: Node }
  | { kind: 'in'; negated: boolean; operand: Node; list: Node[] };

/** Binary operators by precedence, lowest first (SQLite's and PostgreSQL's orders agree on these). */
const LEVELS = [['OR'], ['AND'], ['=', '<>', '!=', '<', '<=', '>', '>='], ['||'], ['+', '-'], ['*', '/', '%']];
const COMPARISON_LEVEL = 2;
/** Words that may follow `::` as part of one type name. */
const TYPE_WORDS = new Set(['DOUBLE', 'PRECISION', 'CHARACTER', 'VARYING', 'TIMESTAMP', 'TIME', 'WITH', 'WITHOUT', 'ZONE']);

class Parser {
  private at = 0;
  constructor(private readonly tokens: readonly Token[]) {}

  parse(): Node {
    const node = this.level(0);
    if (this.at < this.tokens.length) throw new Error(`unexpected ${this.tokens[this.at]!.text}`);
    return node;
  }

  private peek(offset = 0) {
    return this.tokens[this.at + offset];
  }
  private take(): Token {
    const t = this.tokens[this.at++];
    if (t === undefined) throw new Error('unexpected end of expression');
    return t;
  }
  private expect(text: string): void {
    const t = this.take();
    if (t.text !== text) throw new Error(`expected ${text}, found ${t.text}`);
  }
  private operator(level: number): string | null {
    const t = this.peek();
    return t !== undefined && (t.kind === 'symbol' || t.kind === 'word') && LEVELS[level]!.includes(t.text) ? t.text : null;
  }

  private level(level: number): Node {
    if (level === LEVELS.length) return this.unary();
    if (level === COMPARISON_LEVEL) return this.comparison();
    let left = this.level(level + 1);
    for (let op = this.operator(level); op !== null; op = this.operator(level)) {
      this.take();
      left = { kind: 'binary', op, left, right: this.level(level + 1) };
    }
    return left;
  }

  /** Comparisons, IS [NOT] NULL, [NOT] IN, and PostgreSQL's = ANY / <> ALL over an array; NOT binds looser. */
  private comparison(): Node {
    if (isWord(this.peek(), 'NOT')) {
      this.take();
      return { kind: 'unary', op: 'NOT', operand: this.comparison() };
    }
    let left = this.level(COMPARISON_LEVEL + 1);
    for (;;) {
      const t = this.peek();
      if (isWord(t, 'IS')) {
        this.take();
        const negated = isWord(this.peek(), 'NOT');
        if (negated) this.take();
        this.expect('NULL');
        left = { kind: 'unary', op: negated ? 'IS NOT NULL' : 'IS NULL', operand: left };
      } else if (isWord(t, 'IN') || (isWord(t, 'NOT') && isWord(this.peek(1), 'IN'))) {
        const negated = this.take().text === 'NOT';
        if (negated) this.take();
        this.expect('(');
        left = { kind: 'in', negated, operand: left, list: this.list(')') };
      } else if ((isSymbol(t, '=') && isWord(this.peek(1), 'ANY')) || (isSymbol(t, '<>') && isWord(this.peek(1), 'ALL'))) {
        const negated = this.take().text === '<>';
        this.take();
        this.expect('(');
        left = { kind: 'in', negated, operand: left, list: this.array() };
        this.expect(')');
      } else {
        const op = this.operator(COMPARISON_LEVEL);
        if (op === null) return left;
        this.take();
        left = { kind: 'binary', op: op === '!=' ? '<>' : op, left, right: this.level(COMPARISON_LEVEL + 1) };
      }
    }
  }

  /** ARRAY[a, b], possibly in parentheses and cast as a whole (`(ARRAY['a'::varchar])::text[]`). */
  private array(): Node[] {
    if (isSymbol(this.peek(), '(')) {
      this.take();
      const list = this.array();
      this.expect(')');
      this.casts();
      return list;
    }
    this.expect('ARRAY');
    this.expect('[');
    const list = this.list(']');
    this.casts();
    return list;
  }

  private list(close: string): Node[] {
    const items = [this.level(0)];
    while (isSymbol(this.peek(), ',')) {
      this.take();
      items.push(this.level(0));
    }
    this.expect(close);
    return items;
  }

  private unary(): Node {
    if (isSymbol(this.peek(), '-') || isSymbol(this.peek(), '+')) {
      const op = this.take().text;
      const operand = this.unary();
      if (operand.kind === 'literal' && /^[0-9.]/.test(operand.text)) return op === '-' ? { kind: 'literal', text: String(-Number(operand.text)) } : operand;
      return { kind: 'unary', op, operand };
    }
    const node = this.primary();
    this.casts();
    return node;
  }

  /** Skips `::type` (see the header: casts are not compared). */
  private casts(): void {
    while (isSymbol(this.peek(), '::')) {
      this.take();
      if (this.take().kind !== 'word') throw new Error('expected a type name after ::');
      while (this.peek()?.kind === 'word' && TYPE_WORDS.has(this.peek()!.text)) this.take();
      if (isSymbol(this.peek(), '(')) this.at = closing(this.tokens, this.at) + 1;
      while (isSymbol(this.peek(), '[') && isSymbol(this.peek(1), ']')) this.at += 2;
    }
  }

  private primary(): Node {
    const t = this.take();
    if (t.kind === 'number') return { kind: 'literal', text: String(Number(t.text)) };
    if (t.kind === 'string') return { kind: 'literal', text: t.text };
    if (isSymbol(t, '(')) {
      const node = this.level(0);
      this.expect(')');
      return node;
    }
    if (t.kind === 'word' && ['NULL', 'TRUE', 'FALSE'].includes(t.text)) return { kind: 'literal', text: t.text };
    if (t.kind === 'word' && ['CASE', 'CAST', 'EXISTS', 'SELECT', 'BETWEEN', 'LIKE', 'COLLATE'].includes(t.text))
      throw new Error(`${t.text} is not supported here yet`);
    if (t.kind === 'word' || t.kind === 'quoted') {
      const name = t.text.toLowerCase();
      if (isSymbol(this.peek(), '(')) {
        this.take();
        if (isSymbol(this.peek(), ')')) {
          this.take();
          return { kind: 'call', name, args: [] };
        }
        return { kind: 'call', name, args: this.list(')') };
      }
      return { kind: 'column', name };
    }
    throw new Error(`unexpected ${t.text}`);
  }
}

function render(node: Node): string {
  switch (node.kind) {
    case 'column':
    case 'literal':
      return node.kind === 'column' ? node.name : node.text;
    case 'call':
      return `${node.name}(${node.args.map(render).join(', ')})`;
    case 'unary':
      return node.op.startsWith('IS') ? `(${render(node.operand)} ${node.op})` : `(${node.op} ${render(node.operand)})`;
    case 'binary':
      return `(${render(node.left)} ${node.op} ${render(node.right)})`;
    case 'in':
      return `(${render(node.operand)} ${node.negated ? 'NOT IN' : 'IN'} (${node.list.map(render).join(', ')}))`;
  }
}

function children(node: Node): Node[] {
  if (node.kind === 'call') return node.args;
  if (node.kind === 'unary') return [node.operand];
  if (node.kind === 'binary') return [node.left, node.right];
  if (node.kind === 'in') return [node.operand, ...node.list];
  return [];
}

function columnsOf(node: Node, into: Set<string>): Set<string> {
  if (node.kind === 'column') into.add(node.name);
  for (const child of children(node)) columnsOf(child, into);
  return into;
}

/** The canonical spelling of an expression (see the header), and the columns it names, sorted. */
export function canonicalExpression(expression: string | readonly Token[]): { text: string; columns: string[] } {
  const tokens = typeof expression === 'string' ? tokenize(expression) : expression;
  try {
    const node = new Parser(tokens).parse();
    return { text: render(node), columns: [...columnsOf(node, new Set())].sort() };
  } catch (error) {
    throw new Error(`cannot read the expression ${tokens.map((t) => t.text).join(' ')}: ${(error as Error).message}`);
  }
}
