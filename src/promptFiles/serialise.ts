import { Document, isScalar, visit } from 'yaml';
import type { PromptFile } from './schema.js';

/** The order fields are written in: who it is, what it carries, then the content. */
const FIELD_ORDER: ReadonlyArray<keyof PromptFile> = [
  'prompt_id',
  'description',
  'tags',
  'labels',
  'model',
  'fallbacks',
  'params',
  'tools',
  'tool_choice',
  'response_format',
  'variables',
  'template',
  'messages',
];

/**
 * Writes a prompt file as `pull` does: fields in a fixed order, empty ones left out, multi-line
 * strings as `|` blocks so a template reads as it is sent. The same file always gives the same bytes.
 */
export function serialisePromptFile(file: PromptFile): string {
  const ordered: Record<string, unknown> = {};
  for (const key of FIELD_ORDER) {
    const value = file[key];
    if (value === undefined || value === null) continue;
    if (Array.isArray(value) && value.length === 0 && key !== 'messages') continue;
    if (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0) continue;
    ordered[key] = value;
  }
  const doc = new Document(ordered);
  visit(doc, {
    Scalar(_key, node) {
      if (isScalar(node) && typeof node.value === 'string' && node.value.includes('\n')) node.type = 'BLOCK_LITERAL';
    },
  });
  return doc.toString({ lineWidth: 0 });
}
