import { RE2JS } from 're2js';
import { toRe2, Unsupported } from './re2Syntax.js';

/**
 * The one door every user-supplied regular expression goes through (typed variables, regex
 * evaluators, the `pattern` and `patternProperties` of every JSON Schema a user gives): written in
 * JavaScript's syntax (the `u` flag), run by RE2JS, a linear-time engine (RE2's automata: no
 * backtracking, so no input makes a pattern take exponential or polynomial time; the time grows
 * with the pattern's size times the text's length). What that engine cannot express is refused
 * with the reason (re2Syntax.ts): back-references, look-ahead and look-behind, repetition counts
 * above 1000, Unicode properties it does not know, and patterns too large for it. A stored pattern
 * is never handed to JavaScript's own, backtracking engine: a caller that cannot compile it here
 * reports it instead (docs/management-api.md, "Patterns").
 */

/** A compiled pattern: search semantics (`test` is true when some part of the text matches), as RegExp's. */
export interface LinearPattern {
  readonly source: string;
  /** Any of i, m, s; u is always on. */
  readonly flags: string;
  test(text: string): boolean;
  /** `/source/flags`: what ajv keys its compiled patterns by, so two patterns never share one. */
  toString(): string;
}

/** The engine's instructions one pattern may compile to: the time of a match grows with them. */
const MAX_PATTERN_PROGRAM = 1000;
/** The instructions of every pattern of one version or evaluator together: compiling costs about 10 µs each. */
export const MAX_PATTERNS_PROGRAM = 10_000;

/** What the patterns of one version (or evaluator) have used of MAX_PATTERNS_PROGRAM so far. */
export class PatternBudget {
  used = 0;
}

const FLAG_BITS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: 0 };

/**
 * `pattern` compiled for the linear-time engine, or why it is refused (a sentence:
 * "the pattern uses a back-reference (\1), which the linear-time engine does not support").
 * `flags`: any of i, m and s (checked by the caller). A `budget` counts this pattern against the
 * others of the same version or evaluator (checks at creation; a stored pattern is compiled without).
 */
export function compileLinear(pattern: string, flags = '', budget?: PatternBudget): LinearPattern | string {
  let source: string;
  try {
    source = toRe2(pattern, { ignoreCase: flags.includes('i'), multiline: flags.includes('m'), dotAll: flags.includes('s') });
  } catch (error) {
    if (error instanceof Unsupported) return `the pattern ${error.message}`;
    if (error instanceof SyntaxError) return `the pattern is not a valid regular expression: ${error.message}`;
    throw error;
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(
      source,
      [...flags].reduce((bits, f) => bits | (FLAG_BITS[f] ?? 0), 0),
    );
  } catch (error) {
    // What re2Syntax.ts lets through is RE2's syntax: only its size can be refused here.
    const message = (error as Error).message;
    if (message.includes('invalid repeat count'))
      return `the pattern's nested repetitions repeat more than 1000 times together, which the linear-time engine does not support`;
    return `the pattern is too large for the linear-time engine (${message.replace(/^error parsing regexp: /, '')})`;
  }
  const size = re.programSize();
  if (size > MAX_PATTERN_PROGRAM) {
    return `the pattern is too large for the linear-time engine: it compiles to ${size} instructions, at most ${MAX_PATTERN_PROGRAM} (use smaller repetition counts)`;
  }
  if (budget !== undefined) {
    budget.used += size;
    if (budget.used > MAX_PATTERNS_PROGRAM) {
      return `the patterns given together compile to ${budget.used} instructions of the linear-time engine, more than ${MAX_PATTERNS_PROGRAM}: use fewer or simpler patterns`;
    }
  }
  const text = `/${pattern}/${flags}`;
  return { source: pattern, flags, test: (input) => re.test(input), toString: () => text };
}

/**
 * ajv's `code.regExp` (its RegExpEngine): every `pattern` and `patternProperties` of a schema
 * compiled here. A refused pattern throws, failing the schema's compile; the checks at creation
 * walk the schema first (schemaPatterns) to say which pattern and why.
 */
export const ajvRegExp = Object.assign(
  (pattern: string, _u: string): LinearPattern => {
    const compiled = compileLinear(pattern);
    if (typeof compiled === 'string') throw new Error(`${JSON.stringify(pattern)}: ${compiled}`);
    return compiled;
  },
  // Read only by ajv's standalone code generation, which is not used.
  { code: 'linearPattern.ajvRegExp' },
);

export type SchemaPath = (string | number)[];

/** Every regular expression of a JSON Schema (`pattern` values, `patternProperties` keys) with its path in the schema. */
export function schemaPatterns(node: unknown, path: SchemaPath = []): Array<[SchemaPath, string]> {
  if (Array.isArray(node)) return node.flatMap((item, i) => schemaPatterns(item, [...path, i]));
  if (node === null || typeof node !== 'object') return [];
  const found: Array<[SchemaPath, string]> = [];
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    // Values, not schemas: a `pattern` key in them is data.
    if (key === 'const' || key === 'enum' || key === 'default' || key === 'examples') continue;
    if (key === 'pattern' && typeof value === 'string') found.push([[...path, key], value]);
    if (key === 'patternProperties' && value !== null && typeof value === 'object') {
      for (const p of Object.keys(value)) found.push([[...path, key, p], p]);
    }
    // `properties` and `$defs` hold schemas by name: a property named "pattern" is no pattern.
    if (key === 'properties' || key === '$defs' || key === 'definitions' || key === 'patternProperties' || key === 'dependentSchemas') {
      if (value !== null && typeof value === 'object')
        for (const [name, sub] of Object.entries(value)) found.push(...schemaPatterns(sub, [...path, key, name]));
    } else {
      found.push(...schemaPatterns(value, [...path, key]));
    }
  }
  return found;
}

/** Each pattern of a schema that the engine refuses: its path in the schema and why. */
export function refusedSchemaPatterns(schema: unknown, budget = new PatternBudget()): Array<[SchemaPath, string]> {
  const refused: Array<[SchemaPath, string]> = [];
  for (const [path, pattern] of schemaPatterns(schema)) {
    const compiled = compileLinear(pattern, '', budget);
    if (typeof compiled === 'string') refused.push([path, compiled]);
  }
  return refused;
}
