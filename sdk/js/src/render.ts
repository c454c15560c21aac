import type { Node } from './bundle.js';

/**
 * The server's render, as a walk over the tree it compiled (docs/sdks.md, "Rendering a template
 * tree"): a missing variable is an error, never an empty string; nothing is HTML-escaped; one
 * budget of steps and UTF-8 bytes, shared by every template of a version, bounds the work.
 */

export interface RenderState {
  readonly maxBytes: number;
  readonly maxSteps: number;
  bytes: number;
  steps: number;
  exceeded: 'bytes' | 'steps' | null;
  /** Missing names in the order first met. */
  readonly missing: Set<string>;
}

export function renderState(maxBytes: number, maxSteps: number): RenderState {
  return { maxBytes, maxSteps, bytes: 0, steps: 0, exceeded: null, missing: new Set() };
}

const MISSING = Symbol('missing');

function lookup(stack: readonly unknown[], path: readonly string[] | null): unknown {
  if (path === null) return stack[stack.length - 1];
  const head = path[0]!;
  for (let i = stack.length - 1; i >= 0; i--) {
    const frame = stack[i];
    if (frame === null || typeof frame !== 'object' || !Object.hasOwn(frame, head)) continue;
    let value: unknown = (frame as Record<string, unknown>)[head];
    for (let p = 1; p < path.length; p++) {
      if (value === null || typeof value !== 'object' || !Object.hasOwn(value, path[p]!)) return MISSING;
      value = (value as Record<string, unknown>)[path[p]!];
    }
    return value;
  }
  return MISSING;
}

/** Strings as is, null as nothing, structures as JSON, other scalars as JavaScript writes them. */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

const isFalsy = (value: unknown) => !value || (Array.isArray(value) && value.length === 0);

/** Appends to `out[0]`; false once the budget is spent, and every caller unwinds at once. */
export function walk(nodes: readonly Node[], stack: unknown[], state: RenderState, out: [string]): boolean {
  for (const node of nodes) {
    if (++state.steps > state.maxSteps) {
      state.exceeded ??= 'steps';
      return false;
    }
    if (node.kind === 'text') {
      if (!write(node.text, node.bytes, state, out)) return false;
      continue;
    }
    const found = lookup(stack, node.path);
    if (node.kind === 'value') {
      if (found === MISSING) state.missing.add(node.name);
      else {
        const text = asText(found);
        if (!write(text, Buffer.byteLength(text, 'utf8'), state, out)) return false;
      }
    } else if (node.kind === 'inverted') {
      if ((found === MISSING || isFalsy(found)) && !walk(node.nodes, stack, state, out)) return false;
    } else if (found === MISSING) {
      state.missing.add(node.name);
    } else if (Array.isArray(found)) {
      for (const item of found) {
        if (++state.steps > state.maxSteps) {
          state.exceeded ??= 'steps';
          return false;
        }
        if (!within(item, node.nodes, stack, state, out)) return false;
      }
    } else if (!isFalsy(found)) {
      if (!(typeof found === 'object' ? within(found, node.nodes, stack, state, out) : walk(node.nodes, stack, state, out))) return false;
    }
  }
  return true;
}

function write(text: string, bytes: number, state: RenderState, out: [string]): boolean {
  state.bytes += bytes;
  if (state.bytes > state.maxBytes) {
    state.exceeded ??= 'bytes';
    return false;
  }
  out[0] += text;
  return true;
}

function within(item: unknown, nodes: readonly Node[], stack: unknown[], state: RenderState, out: [string]): boolean {
  stack.push(item);
  const ok = walk(nodes, stack, state, out);
  stack.pop();
  return ok;
}
