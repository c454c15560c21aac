import Mustache from 'mustache';
import { prepareNodes, type ChatRole, type PreparedPrompt, type PreparedVersion, type TemplateNode } from './bundle.js';

/**
 * Fallback templates, given by the application for when neither the bundle nor the server can
 * answer. They are parsed by the server's own library with the server's rules (no partials, no
 * delimiter changes), into the tree a bundle carries, so the same walk renders them.
 */

export type FallbackContent = string | ReadonlyArray<{ role: ChatRole; content: string }>;

// mustache caches every template it parses, forever; these are few, but keep the server's setting.
Mustache.templateCache = undefined;

type Token = [type: string, value: string, start: number, end: number, children?: Token[]];

function toNodes(tokens: readonly Token[]): TemplateNode[] {
  const nodes: TemplateNode[] = [];
  for (const [type, value, , , children] of tokens) {
    if (type === '>' || type === '=') throw new Error(`fallback templates cannot use ${type === '>' ? 'partials' : 'delimiter changes'}`);
    if (type === 'text') nodes.push({ type: 'text', text: value });
    else if (type === 'name' || type === '&') nodes.push({ type: 'value', name: value });
    else if (type === '#' || type === '^') nodes.push({ type: type === '#' ? 'section' : 'inverted', name: value, nodes: toNodes(children ?? []) });
  }
  return nodes;
}

function parse(source: string): TemplateNode[] {
  return toNodes(Mustache.parse(source) as unknown as Token[]);
}

/** Throws on a template that does not parse. */
function prepareFallback(promptId: string, content: FallbackContent): PreparedVersion {
  try {
    // A fallback declares nothing: its inputs go to the template unchecked.
    const untyped = { checks: null, remoteOnly: false };
    if (typeof content === 'string') return { version: 0, kind: 'text', templates: [{ role: 'user', nodes: prepareNodes(parse(content)) }], ...untyped };
    return { version: 0, kind: 'chat', templates: content.map((m) => ({ role: m.role, nodes: prepareNodes(parse(m.content)) })), ...untyped };
  } catch (error) {
    throw new Error(`the fallback of prompt '${promptId}' is not a valid template: ${(error as Error).message}`);
  }
}

/**
 * The fallbacks as prompts of a bundle of their own (version 0, no experiment), so the same
 * evaluation renders them. Throws at construction, so a broken fallback is found at start-up.
 */
export function prepareFallbacks(fallbacks: Record<string, FallbackContent>): Map<string, PreparedPrompt> {
  return new Map(
    Object.entries(fallbacks).map(([id, content]) => [id, { servedVersion: 0, versions: new Map([[0, prepareFallback(id, content)]]), experiment: null }]),
  );
}
