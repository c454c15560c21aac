import { LineCounter, isNode, isScalar, parseDocument, type Document } from 'yaml';
import { Value } from '@sinclair/typebox/value';
import { PromptFileSchema, type PromptFile } from './schema.js';

/** One problem in a file, at its 1-based line: printed `file:line: message`. */
export interface FileProblem {
  line: number;
  message: string;
}

export type PathSegment = string | number;

export type ParseResult =
  | {
      ok: true;
      file: PromptFile;
      lineOf: (path: readonly PathSegment[]) => number;
      /** The line of a character of the text at `path`: exact in a `|` block, else the text's first line. */
      lineAt: (path: readonly PathSegment[], offset: number) => number;
    }
  | { ok: false; problems: FileProblem[] };

/** The JSON Pointer of a TypeBox error (`/messages/0/role`) as a path. */
function pointerPath(pointer: string): PathSegment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/** The line of the deepest node on `path` that exists (a missing field points at its parent). */
function lineFinder(doc: Document, counter: LineCounter): (path: readonly PathSegment[]) => number {
  return (path) => {
    for (let depth = path.length; depth >= 0; depth--) {
      const node: unknown = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
      if (isNode(node) && node.range) return counter.linePos(node.range[0]).line;
    }
    return 1;
  };
}

function textLineFinder(doc: Document, counter: LineCounter, lineOf: (path: readonly PathSegment[]) => number) {
  return (path: readonly PathSegment[], offset: number): number => {
    const node: unknown = doc.getIn(path, true);
    if (!isScalar(node) || !node.range || typeof node.value !== 'string') return lineOf(path);
    const header = counter.linePos(node.range[0]).line;
    if (node.type !== 'BLOCK_LITERAL') return header;
    // A literal block's text starts on the line after its `|`, one line of text per line of the file.
    // An offset at the very end (an unclosed section) is on the text's last line, not past it.
    const text = node.value.replace(/\n+$/, '');
    return header + 1 + (text.slice(0, offset).match(/\n/g)?.length ?? 0);
  };
}

/**
 * Parses one prompt file: YAML (one document, no duplicate keys), then the schema, then the rule
 * that the file is named after its prompt. Every problem is reported with its line.
 */
export function parsePromptFile(text: string, expectedPromptId?: string): ParseResult {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    return { ok: false, problems: doc.errors.map((e) => ({ line: e.linePos?.[0].line ?? 1, message: e.message.split('\n')[0]! })) };
  }
  const value: unknown = doc.toJS({ maxAliasCount: 100 });
  const lineOf = lineFinder(doc, counter);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, problems: [{ line: 1, message: 'a prompt file is a mapping of fields (prompt_id, template or messages, …)' }] };
  }
  const problems: FileProblem[] = [];
  const seen = new Set<string>();
  for (const error of Value.Errors(PromptFileSchema, value)) {
    const path = pointerPath(error.path);
    const where = path.length === 0 ? '' : `${path.join('.')}: `;
    const message = `${where}${error.message}`;
    // A union reports each branch it tried; one line per place and message is enough.
    if (seen.has(message)) continue;
    seen.add(message);
    problems.push({ line: lineOf(path), message });
  }
  const file = value as PromptFile;
  if (problems.length === 0 && expectedPromptId !== undefined && file.prompt_id !== expectedPromptId) {
    problems.push({ line: lineOf(['prompt_id']), message: `prompt_id '${file.prompt_id}' does not match the file name (${expectedPromptId}.prompt.yaml)` });
  }
  if (problems.length === 0 && (file.template === undefined) === (file.messages === undefined)) {
    problems.push({ line: 1, message: 'a prompt file needs exactly one of template (text prompt) or messages (chat prompt)' });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, file, lineOf, lineAt: textLineFinder(doc, counter, lineOf) };
}
