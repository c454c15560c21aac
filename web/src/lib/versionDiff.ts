import { diffWordsWithSpace } from 'diff';
import type { Version } from './types.js';
import { messageText } from './runView.js';

/** A run of text that both versions share, or that only the left (removed) or right (added) has. */
export interface Segment {
  kind: 'same' | 'removed' | 'added';
  text: string;
}

/** Word-level differences, whitespace kept, so a template's line breaks show as they are. */
export function wordDiff(left: string, right: string): Segment[] {
  return diffWordsWithSpace(left, right).map((part) => ({ kind: part.added ? 'added' : part.removed ? 'removed' : 'same', text: part.value }));
}

/** A version's content as one text: a template as is, a chat prompt as "role: content" blocks. */
export function contentText(v: Version): string {
  return v.type === 'text' ? (v.template ?? '') : (v.messages ?? []).map((m) => `${m.role}: ${messageText(m.content)}`).join('\n\n');
}

export interface FieldChange {
  field: string;
  left: string;
  right: string;
}

/** The settings that differ between two versions (content is diffed on its own). */
export function settingChanges(left: Version, right: Version): FieldChange[] {
  const fields: Array<[string, (v: Version) => string]> = [
    ['type', (v) => v.type],
    ['model', (v) => v.model ?? 'the server default'],
    ['params', (v) => JSON.stringify(v.params)],
    ['fallbacks', (v) => v.fallbacks.join(', ') || '–'],
    ['variables', (v) => v.variables.join(', ') || '–'],
    ['tools', (v) => (v.tools === undefined ? '–' : JSON.stringify(v.tools))],
    ['tool_choice', (v) => (v.tool_choice === undefined ? '–' : JSON.stringify(v.tool_choice))],
    ['response_format', (v) => (v.response_format === undefined ? '–' : JSON.stringify(v.response_format))],
  ];
  return fields.map(([field, of]) => ({ field, left: of(left), right: of(right) })).filter((c) => c.left !== c.right);
}
