import { codePointLength, expectedList, pythonStringRepr } from '../../lib/pythonText.js';
import { MAX_DECLARED_VARIABLES, MAX_DESCRIPTION_LENGTH, MAX_ENUM_VALUES, MAX_PATTERN_LENGTH } from '../../lib/variableDeclaration.js';
import { compileLinear, type LinearPattern, type PatternBudget } from '../../lib/linearPattern.js';
import { invalidIssue, type Issue } from '../../lib/errors.js';
import type { CompiledTemplate } from './template.js';

/**
 * Typed variables: what a version declares of its inputs (docs/management-api.md, "Typed
 * variables"), the checks of those declarations against the templates (also run offline by the
 * CLI: pure, no I/O), and the runtime check of a call's inputs against them (inputChecks.ts).
 */

/** One declared variable, normalised as stored (`required` always present, keys in this order). */
interface VariableDeclaration {
  required: boolean;
  description?: string;
  enum?: string[];
  pattern?: string;
  min_length?: number;
  max_length?: number;
  default?: string;
}

/** Declarations in the order given (the order of runtime errors). */
export type Declarations = Record<string, VariableDeclaration>;

const KEYS = ['required', 'description', 'enum', 'pattern', 'min_length', 'max_length', 'default'] as const;

/**
 * A pattern compiled as every check runs it: JavaScript's syntax with the `u` flag on the
 * linear-time engine (src/lib/linearPattern.ts), search semantics (like pydantic's `re.search`:
 * anchor with ^ and $ to match the whole value); the reason instead when it is refused (it does
 * not compile, or uses what that engine cannot run, such as a back-reference).
 */
export function compilePattern(pattern: string, budget?: PatternBudget): LinearPattern | string {
  if (pattern.length > MAX_PATTERN_LENGTH) return `a pattern may have at most ${MAX_PATTERN_LENGTH} characters`;
  return compileLinear(pattern, '', budget);
}

/**
 * The names a typed version's templates read, at any depth (the first part of each dotted name),
 * and those read with a dot (`{{user.name}}`). A declared variable is a string, and a string
 * drives a section without opening a scope, so in a version that declares its variables a name
 * inside a section is read from the inputs like a top-level one: it must be declared too. A
 * declared name read with a dot could never render (a string has no fields).
 */
export function namesUsed(templates: readonly CompiledTemplate[]): { used: string[]; dotted: string[] } {
  const used = new Set<string>();
  const dotted = new Set<string>();
  const visit = (nodes: CompiledTemplate['nodes']) => {
    for (const node of nodes) {
      if (node.kind === 'text') continue;
      if (node.path !== null) {
        used.add(node.path[0]!);
        if (node.path.length > 1) dotted.add(node.path[0]!);
      }
      if (node.kind !== 'value') visit(node.children);
    }
  };
  for (const template of templates) visit(template.nodes);
  return { used: [...used], dotted: [...dotted] };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isLength = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/**
 * Checks `variables` (as sent: unknown) against the names the version's templates read
 * (`namesUsed`: `usedNames` at any depth, `dottedNames` those read with a dot). Every problem is
 * one issue, its path relative to `variables` (`['tier', 'default']`); no issue means the
 * declarations are valid and `normaliseDeclarations` may be called on them.
 */
export function checkDeclarations(
  declared: unknown,
  usedNames: readonly string[],
  dottedNames: readonly string[] = [],
  budget: PatternBudget | undefined = undefined,
): Issue[] {
  const issues: Issue[] = [];
  const problem = (path: (string | number)[], why: string) => issues.push(invalidIssue('body', path, why));
  if (!isObject(declared)) {
    problem([], 'variables must be an object: each declared name to its declaration');
    return issues;
  }
  const names = Object.keys(declared);
  if (names.length > MAX_DECLARED_VARIABLES) problem([], `at most ${MAX_DECLARED_VARIABLES} variables may be declared`);
  for (const name of names) {
    checkOne(name, declared[name], usedNames.includes(name), problem, budget);
    if (dottedNames.includes(name)) problem([name], `the templates read fields of '${name}' ({{${name}.…}}), but a declared variable is a string: it has none`);
  }
  for (const name of usedNames) {
    if (!Object.hasOwn(declared, name)) problem([name], `the templates use '${name}' but it is not declared: declare every variable, or none`);
  }
  return issues;
}

function checkOne(name: string, raw: unknown, used: boolean, problem: (path: (string | number)[], why: string) => void, budget?: PatternBudget): void {
  if (!used) problem([name], `'${name}' is declared but no template uses it`);
  if (!isObject(raw)) {
    problem([name], 'a declaration must be an object');
    return;
  }
  for (const key of Object.keys(raw)) {
    if (!(KEYS as readonly string[]).includes(key)) problem([name, key], `unknown key '${key}': a declaration may have ${KEYS.join(', ')}`);
  }
  const { required, description, enum: values, pattern, min_length: min, max_length: max } = raw;
  if (required !== undefined && typeof required !== 'boolean') problem([name, 'required'], 'required must be true or false');
  if (description !== undefined && (typeof description !== 'string' || description.length > MAX_DESCRIPTION_LENGTH))
    problem([name, 'description'], `description must be a string of at most ${MAX_DESCRIPTION_LENGTH} characters`);
  let enumOk = values === undefined;
  if (values !== undefined) {
    if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) problem([name, 'enum'], 'enum must be a list of strings');
    else if (values.length === 0) problem([name, 'enum'], 'enum is empty: no input could ever satisfy it');
    else if (values.length > MAX_ENUM_VALUES) problem([name, 'enum'], `enum may list at most ${MAX_ENUM_VALUES} values`);
    else if (new Set(values).size !== values.length) problem([name, 'enum'], 'enum lists a value twice');
    else enumOk = true;
  }
  let re: LinearPattern | null = null;
  if (pattern !== undefined) {
    const compiled = typeof pattern === 'string' ? compilePattern(pattern, budget) : 'pattern must be a string';
    if (typeof compiled === 'string') problem([name, 'pattern'], compiled);
    else re = compiled;
  }
  const minOk = min === undefined || isLength(min);
  const maxOk = max === undefined || isLength(max);
  if (!minOk) problem([name, 'min_length'], 'min_length must be a whole number, 0 or more');
  if (!maxOk) problem([name, 'max_length'], 'max_length must be a whole number, 0 or more');
  if (minOk && maxOk && min !== undefined && max !== undefined && (min as number) > (max as number))
    problem([name, 'min_length'], `min_length (${min}) is greater than max_length (${max}): no input could ever satisfy both`);
  if (!Object.hasOwn(raw, 'default')) return;
  if (required !== false) {
    problem([name, 'default'], 'only an optional variable ("required": false) may have a default');
    return;
  }
  if (typeof raw.default !== 'string') {
    problem([name, 'default'], 'default must be a string (declared variables are strings)');
    return;
  }
  // The default must pass the checks a caller's input would: otherwise the version would render what no caller may send.
  if (!enumOk || (pattern !== undefined && re === null) || !minOk || !maxOk) return;
  const failure = checkString(
    { enum: values as string[] | undefined, re, pattern: pattern as string | undefined, min: min as number | undefined, max: max as number | undefined },
    raw.default,
  );
  if (failure !== null) problem([name, 'default'], `the default does not satisfy its own constraints: ${failure.msg}`);
}

/** A declared variable's constraints, ready to run (the pattern compiled once). */
export interface StringRules {
  enum?: readonly string[] | undefined;
  re: LinearPattern | null;
  pattern?: string | undefined;
  min?: number | undefined;
  max?: number | undefined;
}

/** A failed check as pydantic reports it: its type, message and context. */
export interface Failure {
  type: string;
  msg: string;
  ctx?: Record<string, unknown>;
}

const characters = (n: number) => (n === 1 ? 'character' : 'characters');

/**
 * The first rule a string breaks, in pydantic's order (the enum as a Literal first, then
 * min_length, max_length, pattern); null when it passes.
 */
export function checkString(rules: StringRules, value: string): Failure | null {
  if (rules.enum !== undefined && !rules.enum.includes(value)) {
    const expected = expectedList(rules.enum.map(pythonStringRepr));
    return { type: 'literal_error', msg: `Input should be ${expected}`, ctx: { expected } };
  }
  const { min, max } = rules;
  // UTF-16 length bounds the code-point count from both sides: count only when it matters.
  if (min !== undefined && value.length < min * 2 && codePointLength(value) < min)
    return { type: 'string_too_short', msg: `String should have at least ${min} ${characters(min)}`, ctx: { min_length: min } };
  if (max !== undefined && value.length > max && codePointLength(value) > max)
    return { type: 'string_too_long', msg: `String should have at most ${max} ${characters(max)}`, ctx: { max_length: max } };
  if (rules.re !== null && !rules.re.test(value))
    return { type: 'string_pattern_mismatch', msg: `String should match pattern '${rules.pattern}'`, ctx: { pattern: rules.pattern } };
  return null;
}

/** Validated declarations (checkDeclarations found nothing) in their stored form. */
export function normaliseDeclarations(declared: Record<string, Record<string, unknown>>): Declarations {
  const out: Declarations = {};
  for (const [name, raw] of Object.entries(declared)) {
    const d: VariableDeclaration = { required: raw.required !== false };
    for (const key of KEYS) if (key !== 'required' && raw[key] !== undefined) (d as unknown as Record<string, unknown>)[key] = raw[key];
    out[name] = d;
  }
  return out;
}
