import { createHash } from 'node:crypto';
import type { PromptFile, VersionContent } from './schema.js';

/** JSON with object keys sorted at every depth: the same content always gives the same bytes. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A version's content with every default spelled out, so that `params: {}` and no params hash alike. */
export function versionContent(source: Partial<Record<keyof VersionContent, unknown>>): VersionContent {
  return {
    template: (source.template as string | null | undefined) ?? null,
    messages: (source.messages as VersionContent['messages'] | undefined) ?? null,
    model: (source.model as string | null | undefined) ?? null,
    params: (source.params as Record<string, unknown> | undefined) ?? {},
    fallbacks: (source.fallbacks as string[] | undefined) ?? [],
    variables: withRequiredSpelledOut((source.variables as Record<string, unknown> | null | undefined) ?? {}),
    // Only when set (undefined is left out of the canonical JSON): older versions keep their hashes.
    tools: (source.tools as VersionContent['tools'] | null | undefined) ?? undefined,
    tool_choice: (source.tool_choice as VersionContent['tool_choice'] | null | undefined) ?? undefined,
    response_format: (source.response_format as VersionContent['response_format'] | null | undefined) ?? undefined,
  };
}

/** `required` is true unless declared false: a declaration hashes alike whether or not it says so. */
function withRequiredSpelledOut(declared: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, d] of Object.entries(declared)) {
    out[name] = d !== null && typeof d === 'object' && !Array.isArray(d) ? { ...d, required: (d as { required?: unknown }).required !== false } : d;
  }
  return out;
}

/** sha256 of the canonical JSON of the content: comments, key order and YAML style change nothing. */
export function contentHash(content: VersionContent): string {
  return createHash('sha256').update(canonicalJson(content)).digest('hex');
}

export const fileContentHash = (file: PromptFile): string => contentHash(versionContent(file));
