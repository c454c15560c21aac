import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: this file is test/unit/docs/docsScan.ts. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** What is not part of the repository: installed, built, generated or local data (the .gitignore list). */
const NOT_REPOSITORY = new Set(['.git', 'node_modules', 'dist', 'data', 'coverage', '.bench', 'test-results']);

/** Every text file of the repository, as paths relative to the root with `/` separators. */
export function repositoryTextFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      if (NOT_REPOSITORY.has(entry.name) || entry.name.endsWith('.tsbuildinfo')) continue;
      const relative = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(relative);
      else if (entry.isFile() && !fs.readFileSync(path.join(ROOT, relative)).includes(0)) files.push(relative);
    }
  };
  walk('');
  return files.sort();
}

/** Whether `relative` (from the root) names a file or folder of the repository, never one outside it. */
function existsInRepository(relative: string): boolean {
  const absolute = path.resolve(ROOT, relative);
  const inside = path.relative(ROOT, absolute);
  if (inside === '') return true;
  if (inside.startsWith('..') || path.isAbsolute(inside)) return false;
  if (inside.split(path.sep).some((part) => NOT_REPOSITORY.has(part))) return false;
  return fs.existsSync(absolute);
}

/**
 * A reference to a Markdown file is any run of path characters (letters, digits, `_ . / - ~`)
 * ending in a name, then `.md` or `.markdown` (any case), not followed by a letter, digit, `_` or
 * `-` (so a name ending a sentence counts, an `.mdx` file does not), anywhere in
 * a file's text: comments, strings, prose, links alike. Text inside a URL (`scheme://…`) is not a
 * reference to this repository, so URLs are blanked out first.
 */
export function markdownReferences(text: string): Array<{ line: number; target: string }> {
  const withoutUrls = text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s)\]>"'`]*/gi, (url) => ' '.repeat(url.length));
  const found: Array<{ line: number; target: string }> = [];
  // Only from the start of a run of path characters: a match from inside a run would also match
  // from its start, and trying every position of a long run (a 100 000-character test vector) was
  // quadratic: 10 s on one file.
  for (const match of withoutUrls.matchAll(/(?<![\w./~-])[\w./~-]*[\w~-]\.(?:md|markdown)(?![\w-])/gi)) {
    found.push({ line: withoutUrls.slice(0, match.index).split('\n').length, target: match[0] });
  }
  return found;
}

/** A reference resolves when it names a file of the repository from the referencing file's folder or from the root. */
export function resolvesInRepository(fromFile: string, target: string): boolean {
  return resolveInRepository(fromFile, target) !== null;
}

/** Lines outside fenced code blocks (``` or ~~~), with inline code spans blanked (kept with `keepCodeSpans`). */
function markdownProse(text: string, keepCodeSpans = false): string[] {
  let fence: string | null = null;
  return text.split('\n').map((line) => {
    const opener = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (opener && opener[1]![0] === fence[0] && opener[1]!.length >= fence.length && line.trim() === opener[1]) fence = null;
      return '';
    }
    if (opener) {
      fence = opener[1]!;
      return '';
    }
    return keepCodeSpans ? line : line.replace(/(`+)[\s\S]*?\1/g, (span) => ' '.repeat(span.length));
  });
}

/**
 * GitHub's heading anchor (as github-slugger makes it): the heading's text as rendered (code,
 * emphasis and link syntax removed), lower-cased, every character that is not a letter, mark,
 * digit, connector (`_`), space or hyphen removed, then each space made a hyphen. A repeated slug
 * gets `-1`, `-2`… in order.
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const opener = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (opener && opener[1]![0] === fence[0] && opener[1]!.length >= fence.length && line.trim() === opener[1]) fence = null;
      continue;
    }
    if (opener) {
      fence = opener[1]!;
      continue;
    }
    const heading = /^\s{0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (!heading) continue;
    const rendered = heading[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]*>/g, '')
      .replace(/[`*]/g, '')
      .trim();
    const base = rendered
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/**
 * Every link and image of a Markdown text outside code: inline `[text](target "title")`,
 * `[text](<target>)` and reference definitions `[label]: target`. Returns targets as written.
 */
export function markdownLinks(markdown: string): Array<{ line: number; target: string }> {
  const links: Array<{ line: number; target: string }> = [];
  markdownProse(markdown).forEach((line, index) => {
    for (const match of line.matchAll(/\]\(\s*(?:<([^>]*)>|([^\s)]+))(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g)) {
      links.push({ line: index + 1, target: (match[1] ?? match[2])! });
    }
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/.exec(line);
    if (definition) links.push({ line: index + 1, target: definition[1]! });
  });
  return links;
}

/** Why a relative link from `fromFile` does not resolve, or null when it does (URLs are not checked). */
export function brokenLink(fromFile: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return null;
  const hash = target.indexOf('#');
  const filePart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
  const file = filePart === '' ? fromFile : path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), filePart));
  if (!existsInRepository(file)) return `${file} does not exist`;
  if (anchor === null) return null;
  if (!/\.(md|markdown)$/i.test(file)) return `#${anchor} points into ${file}, which is not Markdown`;
  const anchors = headingAnchors(fs.readFileSync(path.join(ROOT, file), 'utf8'));
  return anchors.has(anchor) ? null : `${file} has no heading whose anchor is #${anchor}`;
}

/**
 * A named section of a Markdown file: a file reference or the word `README` (the root README),
 * optionally `'s` and a comma, then a name in double quotes on the same line, as in
 * `docs/configuration.md, "Limits"` or `README "Set up"`.
 */
export function sectionReferences(text: string): Array<{ line: number; file: string; section: string }> {
  const found: Array<{ line: number; file: string; section: string }> = [];
  for (const match of text.matchAll(/([\w./~-]*[\w~-]\.(?:md|markdown)|\bREADME)(?:'s)?,?[ \t]+"([^"\n]{1,80})"/gi)) {
    const file = /\.(md|markdown)$/i.test(match[1]!) ? match[1]! : 'README.md';
    found.push({ line: text.slice(0, match.index).split('\n').length, file, section: match[2]! });
  }
  return found;
}

/**
 * Whether a Markdown text has the named section: a heading whose text is the name, or starts with
 * it and a colon, or a bold lead (`**Name…`) that starts with it. Compared without case or code marks.
 */
export function hasSection(markdown: string, section: string): boolean {
  const plain = (text: string): string => text.replace(/[`*]/g, '').trim().toLowerCase();
  const name = plain(section);
  for (const line of markdownProse(markdown, true)) {
    const heading = /^\s{0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (heading) {
      const text = plain(heading[1]!);
      if (text === name || text.startsWith(`${name}:`)) return true;
    }
    for (const bold of line.matchAll(/\*\*([^*]+)\*\*/g)) if (plain(bold[1]!).startsWith(name)) return true;
  }
  return false;
}

/** The repository path a reference names, from the referencing file's folder or from the root; null when it names none. */
export function resolveInRepository(fromFile: string, target: string): string | null {
  const fromFolder = path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), target));
  if (existsInRepository(fromFolder)) return fromFolder;
  const fromRoot = path.posix.normalize(target.replace(/^\/+/, ''));
  return existsInRepository(fromRoot) ? fromRoot : null;
}
