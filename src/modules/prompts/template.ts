import Mustache from 'mustache';

/**
 * Templates (design.md §3): mustache syntax parsed by the `mustache` library, rendered by a small
 * strict walk over its parse tree so that a missing variable is an error instead of an empty
 * string, and nothing is HTML-escaped. Partials and delimiter changes are rejected at creation;
 * lambdas cannot occur because inputs are JSON data.
 */
type Token = [type: string, value: string, start: number, end: number, children?: Token[]];

export interface CompiledTemplate {
  readonly source: string;
  readonly tokens: readonly Token[];
  /** Top-level names and section names, in order of first appearance. */
  readonly variables: readonly string[];
}

export class TemplateError extends Error {}

const FORBIDDEN: Record<string, string> = {
  '>': 'partials ({{> name}}) are not supported',
  '=': 'delimiter changes ({{=<% %>=}}) are not supported',
};

export function compileTemplate(source: string): CompiledTemplate {
  let tokens: Token[];
  try {
    tokens = Mustache.parse(source) as unknown as Token[];
  } catch (error) {
    throw new TemplateError(`invalid template: ${(error as Error).message}`);
  }
  const variables = new Set<string>();
  const visit = (list: readonly Token[], topLevel: boolean) => {
    for (const [type, value, , , children] of list) {
      const why = FORBIDDEN[type];
      if (why !== undefined) throw new TemplateError(why);
      if (type === '#' || type === '^') {
        if (topLevel) variables.add(rootName(value));
        visit(children ?? [], false);
      } else if ((type === 'name' || type === '&') && topLevel && value !== '.') {
        variables.add(rootName(value));
      }
    }
  };
  visit(tokens, true);
  return { source, tokens, variables: [...variables] };
}

function rootName(name: string): string {
  const dot = name.indexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

const MISSING = Symbol('missing');

function lookup(stack: readonly unknown[], name: string): unknown {
  if (name === '.') return stack[stack.length - 1];
  const parts = name.split('.');
  for (let i = stack.length - 1; i >= 0; i--) {
    const frame = stack[i];
    if (frame !== null && typeof frame === 'object' && Object.hasOwn(frame, parts[0]!)) {
      let value: unknown = (frame as Record<string, unknown>)[parts[0]!];
      for (const part of parts.slice(1)) {
        if (value === null || typeof value !== 'object' || !Object.hasOwn(value, part)) return MISSING;
        value = (value as Record<string, unknown>)[part];
      }
      return value;
    }
  }
  return MISSING;
}

/** Scalars render as text (numbers as JSON numbers, booleans true/false), null as nothing, structures as JSON. */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function isFalsy(value: unknown): boolean {
  return !value || (Array.isArray(value) && value.length === 0);
}

function walk(tokens: readonly Token[], stack: unknown[], out: string[], missing: Set<string>): void {
  for (const [type, value, , , children] of tokens) {
    switch (type) {
      case 'text':
        out.push(value);
        break;
      case 'name':
      case '&': {
        const found = lookup(stack, value);
        if (found === MISSING) missing.add(value);
        else out.push(asText(found));
        break;
      }
      case '#': {
        const found = lookup(stack, value);
        if (found === MISSING) {
          missing.add(value);
        } else if (Array.isArray(found)) {
          for (const item of found) walk(children ?? [], [...stack, item], out, missing);
        } else if (!isFalsy(found)) {
          walk(children ?? [], typeof found === 'object' ? [...stack, found] : stack, out, missing);
        }
        break;
      }
      case '^': {
        // An absent variable is simply falsy here: inverted sections exist to handle absence.
        const found = lookup(stack, value);
        if (found === MISSING || isFalsy(found)) walk(children ?? [], stack, out, missing);
        break;
      }
      default:
        break; // comments
    }
  }
}

export type RenderResult = { ok: true; text: string } | { ok: false; missing: string[] };

export function renderTemplate(template: CompiledTemplate, inputs: Record<string, unknown>): RenderResult {
  const out: string[] = [];
  const missing = new Set<string>();
  walk(template.tokens, [inputs], out, missing);
  return missing.size > 0 ? { ok: false, missing: [...missing] } : { ok: true, text: out.join('') };
}
