import Mustache from 'mustache';
import type { TemplateNode } from '../sdk/sdk.schemas.js';

/**
 * Templates: mustache syntax parsed by the `mustache` library, rendered by a small
 * strict walk over our own node tree so that a missing variable is an error instead of an empty
 * string, and nothing is HTML-escaped. Partials and delimiter changes are rejected at creation;
 * lambdas cannot occur because inputs are JSON data.
 *
 * Rendering runs on the event loop with caller-chosen inputs, so it has a budget (bytes out, steps
 * taken) checked while it walks: nested sections over lists multiply, and a 38-byte body could
 * otherwise ask for 2^40 steps.
 */

// mustache caches every template it has parsed, forever: with user-written templates that is a leak.
Mustache.templateCache = undefined;

/** Sections may nest this deep; deeper templates are refused at creation (the walk is recursive). */
export const MAX_TEMPLATE_DEPTH = 32;

type MustacheToken = [type: string, value: string, start: number, end: number, children?: MustacheToken[]];

type Node =
  | { kind: 'text'; text: string; bytes: number }
  | { kind: 'value'; name: string; path: readonly string[] | null }
  | { kind: 'section' | 'inverted'; name: string; path: readonly string[] | null; children: readonly Node[] };

export interface CompiledTemplate {
  readonly source: string;
  readonly nodes: readonly Node[];
  /** Top-level names and section names, in order of first appearance. */
  readonly variables: readonly string[];
  /** Nodes in the tree: the steps one render takes when no section repeats. */
  readonly nodeCount: number;
  /** UTF-8 bytes of the literal text: what one render writes before any input. */
  readonly textBytes: number;
}

export class TemplateError extends Error {}

/**
 * A template as the SDK bundle carries it (docs/sdks.md, "The bundle"): the compiled tree itself, so
 * every client walks what the server walks instead of parsing mustache its own way.
 */
export function toWireNodes(nodes: readonly Node[]): TemplateNode[] {
  return nodes.map((node): TemplateNode => {
    if (node.kind === 'text') return { type: 'text', text: node.text };
    if (node.kind === 'value') return { type: 'value', name: node.name };
    return { type: node.kind, name: node.name, nodes: toWireNodes(node.children) };
  });
}

const FORBIDDEN: Record<string, string> = {
  '>': 'partials ({{> name}}) are not supported',
  '=': 'delimiter changes ({{=<% %>=}}) are not supported',
};

export function compileTemplate(source: string): CompiledTemplate {
  let tokens: MustacheToken[];
  try {
    tokens = Mustache.parse(source) as unknown as MustacheToken[];
  } catch (error) {
    throw new TemplateError(`invalid template: ${(error as Error).message}`);
  }
  const variables = new Set<string>();
  let nodeCount = 0;
  let textBytes = 0;
  const convert = (list: readonly MustacheToken[], depth: number): Node[] => {
    const nodes: Node[] = [];
    for (const [type, value, , , children] of list) {
      const why = FORBIDDEN[type];
      if (why !== undefined) throw new TemplateError(why);
      if (type === '#' || type === '^') {
        if (depth === MAX_TEMPLATE_DEPTH) throw new TemplateError(`sections nest deeper than ${MAX_TEMPLATE_DEPTH} levels`);
        if (depth === 0) variables.add(rootName(value));
        nodeCount++;
        nodes.push({ kind: type === '#' ? 'section' : 'inverted', name: value, path: pathOf(value), children: convert(children ?? [], depth + 1) });
      } else if (type === 'name' || type === '&') {
        if (depth === 0 && value !== '.') variables.add(rootName(value));
        nodeCount++;
        nodes.push({ kind: 'value', name: value, path: pathOf(value) });
      } else if (type === 'text') {
        nodeCount++;
        const bytes = Buffer.byteLength(value, 'utf8');
        textBytes += bytes;
        nodes.push({ kind: 'text', text: value, bytes });
      }
      // comments render nothing
    }
    return nodes;
  };
  const nodes = convert(tokens, 0);
  return { source, nodes, variables: [...variables], nodeCount, textBytes };
}

function rootName(name: string): string {
  const dot = name.indexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

/** `.` (the current item) has no path; `a.b` is looked up part by part. */
function pathOf(name: string): readonly string[] | null {
  return name === '.' ? null : name.split('.');
}

/** What one render may cost; shared by every template of a version, so a chat prompt's messages add up. */
export interface RenderLimits {
  readonly maxBytes: number;
  readonly maxSteps: number;
}

export class RenderBudget {
  bytes = 0;
  steps = 0;
  exceeded: 'bytes' | 'steps' | null = null;
  constructor(readonly limits: RenderLimits) {}
}

const MISSING = Symbol('missing');

function lookup(stack: readonly unknown[], path: readonly string[] | null): unknown {
  if (path === null) return stack[stack.length - 1];
  const head = path[0]!;
  for (let i = stack.length - 1; i >= 0; i--) {
    const frame = stack[i];
    if (frame !== null && typeof frame === 'object' && Object.hasOwn(frame, head)) {
      let value: unknown = (frame as Record<string, unknown>)[head];
      for (let p = 1; p < path.length; p++) {
        const part = path[p]!;
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

class Renderer {
  readonly out: string[] = [];
  readonly missing = new Set<string>();
  constructor(
    private readonly budget: RenderBudget,
    private readonly stack: unknown[],
  ) {}

  /** False once the budget is spent: every caller unwinds at once. */
  private step(): boolean {
    if (++this.budget.steps > this.budget.limits.maxSteps) this.budget.exceeded ??= 'steps';
    return this.budget.exceeded === null;
  }

  private write(text: string, bytes: number): boolean {
    this.budget.bytes += bytes;
    if (this.budget.bytes > this.budget.limits.maxBytes) {
      this.budget.exceeded ??= 'bytes';
      return false;
    }
    this.out.push(text);
    return true;
  }

  walk(nodes: readonly Node[]): boolean {
    for (const node of nodes) {
      if (!this.step()) return false;
      if (node.kind === 'text') {
        if (!this.write(node.text, node.bytes)) return false;
        continue;
      }
      const found = lookup(this.stack, node.path);
      if (node.kind === 'value') {
        if (found === MISSING) this.missing.add(node.name);
        else {
          const text = asText(found);
          if (!this.write(text, Buffer.byteLength(text, 'utf8'))) return false;
        }
      } else if (node.kind === 'inverted') {
        // An absent variable is simply falsy here: inverted sections exist to handle absence.
        if ((found === MISSING || isFalsy(found)) && !this.walk(node.children)) return false;
      } else if (found === MISSING) {
        this.missing.add(node.name);
      } else if (Array.isArray(found)) {
        for (const item of found) {
          if (!this.step() || !this.within(item, node.children)) return false;
        }
      } else if (!isFalsy(found)) {
        if (!(typeof found === 'object' ? this.within(found, node.children) : this.walk(node.children))) return false;
      }
    }
    return true;
  }

  private within(item: unknown, children: readonly Node[]): boolean {
    this.stack.push(item);
    const ok = this.walk(children);
    this.stack.pop();
    return ok;
  }
}

export type RenderResult = { ok: true; text: string } | { ok: false; missing: string[] } | { ok: false; exceeded: 'bytes' | 'steps' };

/**
 * Renders with a budget, checked as the output grows: over it, the walk stops at once and reports
 * which limit was hit. Missing variables are collected (one render reports them all).
 */
export function renderTemplate(template: CompiledTemplate, inputs: Record<string, unknown>, budget: RenderBudget): RenderResult {
  const renderer = new Renderer(budget, [inputs]);
  renderer.walk(template.nodes);
  if (budget.exceeded !== null) return { ok: false, exceeded: budget.exceeded };
  if (renderer.missing.size > 0) return { ok: false, missing: [...renderer.missing] };
  return { ok: true, text: renderer.out.join('') };
}
