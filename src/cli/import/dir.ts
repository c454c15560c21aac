import fs from 'node:fs';
import path from 'node:path';
import { compileTemplate, TemplateError } from '../../modules/prompts/template.js';
import { readUtf8File } from '../textFiles.js';
import { toPromptId } from './mapCommon.js';
import type { ImportedPrompt, Mapped, Problem } from './types.js';

const EXTENSIONS = ['.txt', '.md'];

/** The `.txt` and `.md` files of a folder (not its subfolders), by name; hidden files left alone. */
export function readTemplateFiles(dir: string): Array<{ name: string; text: string }> {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
    .map((entry) => ({
      name: entry.name,
      // A byte-order mark is not part of the template; a file that is not UTF-8 stops the import at its line.
      text: EXTENSIONS.includes(path.extname(entry.name).toLowerCase()) ? readUtf8File(path.join(dir, entry.name)) : '',
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * A folder of plain templates: each `.txt` or `.md` file one text prompt, its id the file's name
 * without the extension, its content version 1 (a template with `{{variables}}`, kept as written:
 * these are Promptline's own templates, checked here as the server checks them, so that a dry run
 * already tells which files the server would refuse).
 */
export function mapTemplateFiles(files: ReadonlyArray<{ name: string; text: string }>): Mapped {
  const problems: Problem[] = [];
  const byId = new Map<string, string[]>();
  const prompts: ImportedPrompt[] = [];
  for (const file of files) {
    const ext = path.extname(file.name).toLowerCase();
    if (!EXTENSIONS.includes(ext)) {
      problems.push({ prompt: file.name, version: null, reason: 'not a .txt or .md file: skipped' });
      continue;
    }
    const base = file.name.slice(0, -ext.length);
    const id = toPromptId(base);
    if (id === null) {
      problems.push({ prompt: file.name, version: null, reason: 'its name cannot be a Promptline prompt id: skipped' });
      continue;
    }
    byId.set(id, [...(byId.get(id) ?? []), file.name]);
    if (file.text.trim() === '') {
      problems.push({ prompt: file.name, version: null, reason: 'empty: skipped' });
      continue;
    }
    const refused = templateError(file.text);
    if (refused !== null) {
      problems.push({ prompt: file.name, version: null, reason: `not a Promptline template (${refused}): skipped` });
      continue;
    }
    if (id !== base) problems.push({ prompt: file.name, version: null, reason: `imported as prompt '${id}'` });
    prompts.push({
      prompt_id: id,
      description: null,
      versions: [{ origin: file.name, content: { template: file.text, model: null, params: {}, commit_message: `imported from ${file.name}` }, labels: [] }],
    });
  }
  // Two files for one id (one name as both .txt and .md): which one is meant cannot be told.
  const clashes = [...byId].filter(([, names]) => names.length > 1);
  for (const [id, names] of clashes) problems.push({ prompt: id, version: null, reason: `${names.join(' and ')} name the same prompt: neither imported` });
  const clashing = new Set(clashes.map(([id]) => id));
  return { prompts: prompts.filter((p) => !clashing.has(p.prompt_id)), problems };
}

function templateError(text: string): string | null {
  try {
    compileTemplate(text);
    return null;
  } catch (error) {
    if (error instanceof TemplateError) return error.message;
    throw error;
  }
}
