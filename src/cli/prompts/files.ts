import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROMPT_FILE_SUFFIX } from '../../promptFiles/schema.js';
import type { PromptFile } from '../../promptFiles/schema.js';
import { checkPromptFile } from './check.js';

/** What a pull saw of each prompt, kept beside the files: a push's conflicts are judged against it. */
const STATE_FILE = '.promptline-state.json';

export interface PullBase {
  latest_version: number | null;
  labels: Record<string, number>;
}

export interface LoadedFile {
  /** As printed: relative to the current directory. */
  display: string;
  /** As recorded on the version: relative to the Git repository's root when in one. */
  sourcePath: string;
  file: PromptFile;
  /** The line of a field, for the server's 422 items about it. */
  lineOf: (path: ReadonlyArray<string | number>) => number;
}

/** The prompt files of DIR, sorted by name. */
function promptFileNames(dir: string): string[] {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new Error(`${dir} is not a directory`);
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith(PROMPT_FILE_SUFFIX))
    .sort();
}

/** Every file of DIR checked; problems as `file:line: message` lines. */
export function loadPromptFiles(dir: string): { files: LoadedFile[]; problems: string[] } {
  const root = gitRoot(dir);
  const files: LoadedFile[] = [];
  const problems: string[] = [];
  for (const name of promptFileNames(dir)) {
    const full = path.resolve(dir, name);
    const display = path.relative(process.cwd(), full) || name;
    const checked = checkPromptFile(fs.readFileSync(full, 'utf8'), name.slice(0, -PROMPT_FILE_SUFFIX.length));
    if (!checked.ok) {
      for (const p of checked.problems) problems.push(`${display}:${p.line}: ${p.message}`);
      continue;
    }
    const sourcePath = path
      .relative(root ?? process.cwd(), full)
      .split(path.sep)
      .join('/');
    files.push({ display, sourcePath, file: checked.file, lineOf: checked.lineOf });
  }
  return { files, problems };
}

export function readState(dir: string): Record<string, PullBase> {
  const file = path.join(dir, STATE_FILE);
  if (!fs.existsSync(file)) return {};
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { prompts?: Record<string, PullBase> };
  return parsed.prompts ?? {};
}

/** Written with sorted keys: a pull that changes nothing changes no byte. */
export function writeState(dir: string, prompts: Record<string, PullBase>): void {
  const sorted = Object.fromEntries(
    Object.keys(prompts)
      .sort()
      .map((id) => [id, { latest_version: prompts[id]!.latest_version, labels: sortedObject(prompts[id]!.labels) }]),
  );
  writeIfChanged(path.join(dir, STATE_FILE), `${JSON.stringify({ prompts: sorted }, null, 2)}\n`);
}

const sortedObject = <T>(o: Record<string, T>): Record<string, T> => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));

/** Writes only when the bytes differ (the file's time stays too); answers whether it wrote. */
export function writeIfChanged(file: string, text: string): boolean {
  if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') === text) return false;
  fs.writeFileSync(file, text);
  return true;
}

function git(dir: string, args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

const gitRoot = (dir: string): string | null => git(dir, ['rev-parse', '--show-toplevel']);

/** The commit checked out and its author, when DIR is in a Git work tree with a commit. */
export function gitSource(dir: string): { commit: string | null; author: string | null } {
  return { commit: git(dir, ['rev-parse', '--verify', 'HEAD']), author: git(dir, ['log', '-1', '--format=%an <%ae>']) || null };
}
