import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { invalidIssue, type Issue } from '../../lib/errors.js';
import { MAX_TOOLS, type ModelConfig, type ResponseFormat, type Tool, type ToolChoice } from '../../lib/modelConfig.js';
import { ajvRegExp, PatternBudget, refusedSchemaPatterns } from '../../lib/linearPattern.js';

/**
 * A version's tools and structured output (docs/tools-and-structured-output.md): checked when the
 * version is created (every parameters schema and the response schema compiled with ajv, so that
 * nothing stored fails later for its own shape), and the output check its runs use.
 */

/**
 * One validator for every schema: `strict: false` because OpenAI's schemas carry keywords ajv's
 * strict mode refuses (a `description` beside a `$ref`, unknown formats); `validateSchema` still
 * refuses what JSON Schema itself does not allow (`"type": "strnig"`). Its patterns run on the
 * linear-time engine (src/lib/linearPattern.ts), never on JavaScript's backtracking one.
 */
const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false, code: { regExp: ajvRegExp } });

/** Params that the version's own fields set: giving both would leave it unclear which one the model got. */
const MODEL_CONFIG_KEYS = ['tools', 'tool_choice', 'response_format'] as const;
const MAX_SCHEMA_JSON = 65_536;

/** A JSON pointer (`/properties/age/type`) as path segments, array indexes as numbers. */
function pointerPath(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((s) => (/^(0|[1-9]\d*)$/.test(s) ? Number(s) : s));
}

/**
 * Compiles a schema once; throws with the path inside it of the first problem. The compiled schema
 * is removed from ajv's cache at once: user schemas would otherwise stay in it forever (and two
 * versions with one `$id` would clash).
 */
function compileSchema(schema: Record<string, unknown>): ValidateFunction {
  if (!ajv.validateSchema(schema)) {
    const first = ajv.errors?.[0];
    throw new SchemaProblem(pointerPath(first?.instancePath ?? ''), `not a valid JSON Schema: ${first?.message ?? 'invalid'}`);
  }
  try {
    return ajv.compile(schema);
  } catch (error) {
    throw new SchemaProblem([], `the JSON Schema does not compile: ${(error as Error).message}`);
  } finally {
    ajv.removeSchema(schema);
  }
}

class SchemaProblem extends Error {
  constructor(
    readonly path: (string | number)[],
    message: string,
  ) {
    super(message);
  }
}

/**
 * A schema of the version: its size, its patterns (every one, a tool's too: ajv compiles them all,
 * on the linear-time engine, which refuses some), then its compile.
 */
function checkSchema(schema: Record<string, unknown>, at: (string | number)[], issues: Issue[], budget: PatternBudget): void {
  if (JSON.stringify(schema).length > MAX_SCHEMA_JSON) {
    issues.push(invalidIssue('body', at, `a schema must serialise to at most ${MAX_SCHEMA_JSON} bytes`));
    return;
  }
  const refused = refusedSchemaPatterns(schema, budget);
  for (const [path, reason] of refused) issues.push(invalidIssue('body', [...at, ...path], reason));
  if (refused.length > 0) return;
  try {
    compileSchema(schema);
  } catch (error) {
    if (!(error instanceof SchemaProblem)) throw error;
    issues.push(invalidIssue('body', [...at, ...error.path], error.message));
  }
}

function isToolChoice(value: unknown): value is ToolChoice {
  if (value === 'none' || value === 'auto' || value === 'required') return true;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  const fn = v.function as Record<string, unknown> | null | undefined;
  return (
    Object.keys(v).length === 2 && v.type === 'function' && typeof fn === 'object' && fn !== null && Object.keys(fn).length === 1 && typeof fn.name === 'string'
  );
}

/** What a version input may carry of the model config (null: not given). */
export interface ModelConfigInput {
  tools?: Tool[] | null | undefined;
  tool_choice?: unknown;
  response_format?: ResponseFormat | null | undefined;
  params?: Record<string, unknown> | undefined;
}

/**
 * Checks the config beyond its schema; every problem is an issue at its exact path under `body`.
 * `patternsUsed`: what its schemas' patterns took of the version's pattern budget, which its typed
 * variables share (the check may run on another thread: modelConfigOffLoop.ts).
 */
export function checkModelConfig(input: ModelConfigInput): { config: ModelConfig; issues: Issue[]; patternsUsed: number } {
  const budget = new PatternBudget();
  const issues: Issue[] = [];
  const config: ModelConfig = {};
  const tools = input.tools ?? null;
  if (tools !== null) {
    if (tools.length === 0) issues.push(invalidIssue('body', ['tools'], 'give at least one tool, or leave tools out'));
    if (tools.length > MAX_TOOLS) issues.push(invalidIssue('body', ['tools'], `at most ${MAX_TOOLS} tools`));
    const names = new Set<string>();
    tools.forEach((tool, i) => {
      if (names.has(tool.function.name)) issues.push(invalidIssue('body', ['tools', i, 'function', 'name'], `tool '${tool.function.name}' is declared twice`));
      names.add(tool.function.name);
      if (tool.function.parameters !== undefined) checkSchema(tool.function.parameters, ['tools', i, 'function', 'parameters'], issues, budget);
    });
    config.tools = tools;
  }
  const choice = input.tool_choice ?? null;
  if (choice !== null) {
    if (!isToolChoice(choice)) {
      issues.push(invalidIssue('body', ['tool_choice'], 'tool_choice is "none", "auto", "required" or {"type": "function", "function": {"name": …}}'));
    } else {
      if (choice !== 'none' && tools === null) issues.push(invalidIssue('body', ['tool_choice'], 'tool_choice needs tools to choose from'));
      if (typeof choice === 'object' && tools !== null && !tools.some((t) => t.function.name === choice.function.name)) {
        issues.push(invalidIssue('body', ['tool_choice', 'function', 'name'], `no tool named '${choice.function.name}' in tools`));
      }
      config.tool_choice = choice;
    }
  }
  const format = input.response_format ?? null;
  if (format !== null) {
    if (format.type === 'json_schema' && format.json_schema === undefined) {
      issues.push({ part: 'body', path: ['response_format', 'json_schema'], kind: 'missing', reason: 'required with type json_schema' });
    }
    if (format.type !== 'json_schema' && format.json_schema !== undefined) {
      issues.push(invalidIssue('body', ['response_format', 'json_schema'], `only with type json_schema (got ${format.type})`));
    }
    if (format.type === 'json_schema' && format.json_schema !== undefined)
      checkSchema(format.json_schema.schema, ['response_format', 'json_schema', 'schema'], issues, budget);
    config.response_format = format;
  }
  for (const key of MODEL_CONFIG_KEYS) {
    if (input.params !== undefined && key in input.params && key in config) {
      issues.push(invalidIssue('body', ['params', key], `'${key}' is given as a field of the version: leave it out of params`));
    }
  }
  return { config, issues, patternsUsed: budget.used };
}

/** Whether an output satisfied the version's response_format: `error` is the first problem found (a JSON pointer and ajv's message). */
type OutputVerdict = { valid: true; error: null } | { valid: false; error: string };
export type OutputCheck = (output: string) => OutputVerdict;

const describe = (e: ErrorObject): string => `${e.instancePath === '' ? '/' : e.instancePath} ${e.message ?? 'is invalid'}`;

/**
 * The check of a version's outputs, its schema compiled at its first use and kept with the served
 * version (compiling takes milliseconds: the bundle and a push compile versions without running
 * them); null when the version asks for no structured output (`text`, or none).
 */
export function lazyOutputCheck(format: ResponseFormat | undefined): OutputCheck | null {
  if (format === undefined || format.type === 'text') return null;
  let check: OutputCheck | null = null;
  return (output) => {
    check ??= compileOutputCheck(format)!;
    return check(output);
  };
}

/** The check of a version's outputs, compiled now; null when the version asks for no structured output. */
export function compileOutputCheck(format: ResponseFormat | undefined): OutputCheck | null {
  if (format === undefined || format.type === 'text') return null;
  let validate: ValidateFunction | null = null;
  if (format.type === 'json_schema' && format.json_schema !== undefined) {
    const schema = format.json_schema.schema;
    // A schema stored before patterns ran on the linear-time engine may hold one it refuses: its
    // outputs are never checked on JavaScript's backtracking engine instead, and each says why.
    const [refused] = refusedSchemaPatterns(schema);
    if (refused !== undefined) {
      const error = `the response_format schema cannot be checked (${refused[0].join('/')}: ${refused[1]}): create a new version`;
      return () => ({ valid: false, error });
    }
    validate = compileSchema(schema);
  }
  return (output) => {
    let value: unknown;
    try {
      value = JSON.parse(output);
    } catch {
      // The parser's message quotes the output: the output is stored on its own, the error says only what failed.
      return { valid: false, error: 'the output is not valid JSON' };
    }
    if (validate === null) {
      return typeof value === 'object' && value !== null && !Array.isArray(value)
        ? { valid: true, error: null }
        : { valid: false, error: 'the output is JSON but not an object' };
    }
    if (validate(value)) return { valid: true, error: null };
    const first = validate.errors?.[0];
    return { valid: false, error: first === undefined ? 'the output does not satisfy the schema' : describe(first) };
  };
}
