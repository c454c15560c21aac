import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasSection, markdownReferences, repositoryTextFiles, resolveInRepository, resolvesInRepository, ROOT, sectionReferences } from './docsScan.js';

/**
 * The paths below are made at run time so that this file, scanned like every other, does not itself
 * refer to them (most are relative to another file than this one).
 */
const md = (name: string): string => `${name}.md`;
const MISSING = md('no-such-page');
const README = 'README';

describe('references to Markdown files', () => {
  it('finds a reference wherever it is written, and only outside URLs', () => {
    const text = [
      `// see ${MISSING} §2`,
      ` * the rule (../shared/${MISSING}).`,
      `"docs/${MISSING}#anchor", 'DOCS/${MISSING.toUpperCase()}'`,
      `https://example.com/blob/main/${MISSING} is a URL, README.mdx is not Markdown, nor is *.md`,
    ].join('\n');
    expect(markdownReferences(text)).toEqual([
      { line: 1, target: MISSING },
      { line: 2, target: `../shared/${MISSING}` },
      { line: 3, target: `docs/${MISSING}` },
      { line: 3, target: `DOCS/${MISSING.toUpperCase()}` },
    ]);
  });

  it('resolves from the referencing file folder or the root, never outside the repository', () => {
    expect(resolvesInRepository('src/app.ts', md('docs/runtime-contract'))).toBe(true);
    expect(resolvesInRepository('docs/results.md', md('experiment-results'))).toBe(true);
    expect(resolvesInRepository('docs/results.md', md('../ARCHITECTURE'))).toBe(true);
    expect(resolvesInRepository('src/app.ts', MISSING)).toBe(false);
    expect(resolvesInRepository('src/app.ts', md('runtime-contract'))).toBe(false);
    expect(resolvesInRepository('README.md', md('../README'))).toBe(false);
    expect(resolvesInRepository('README.md', md('node_modules/vitest/README'))).toBe(false);
  });

  it('every reference in every text file of the repository names a Markdown file that exists in it', () => {
    const files = repositoryTextFiles();
    // The scan covers what it must: a silent empty walk would pass anything.
    for (const required of ['README.md', 'ARCHITECTURE.md', 'docs/README.md', 'src/app.ts', 'test/contract/contractCase.ts', 'bench/run.ts', 'scripts/demoExperiment.ts']) {
      expect(files).toContain(required);
    }
    expect(files.some((file) => file.startsWith('web/src/'))).toBe(true);
    const dangling: string[] = [];
    for (const file of files) {
      for (const { line, target } of markdownReferences(fs.readFileSync(path.join(ROOT, file), 'utf8'))) {
        if (!resolvesInRepository(file, target)) dangling.push(`${file}:${line}: ${target}`);
      }
    }
    expect(dangling, 'references to Markdown files that are not in the repository').toEqual([]);
  });

  it('finds a named section and tells whether the page has it', () => {
    const text = [`// the caps of ${md('docs/configuration')}, "Limits", on`, `-- (${README} "CUPED"): and ${README}'s "Set up"`, `"Limits" alone is not one`].join('\n');
    expect(sectionReferences(text)).toEqual([
      { line: 1, file: md('docs/configuration'), section: 'Limits' },
      { line: 2, file: md('README'), section: 'CUPED' },
      { line: 2, file: md('README'), section: 'Set up' },
    ]);
    const page = ['# Title', '## CUPED: the same answer', '## `metrics` and more', '**List pages are bounded.** In…', '```', '## Fenced', '```'].join('\n');
    expect(hasSection(page, 'CUPED')).toBe(true);
    expect(hasSection(page, 'metrics and more')).toBe(true);
    expect(hasSection(page, 'List pages')).toBe(true);
    expect(hasSection(page, 'Title')).toBe(true);
    expect(hasSection(page, 'CUPED: the')).toBe(false);
    expect(hasSection(page, 'Fenced')).toBe(false);
    expect(hasSection(page, 'Limits')).toBe(false);
  });

  it('every named section of a Markdown file (`page, "Section"`) is a heading or a bold lead of that page', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const file of repositoryTextFiles()) {
      for (const { line, file: target, section } of sectionReferences(fs.readFileSync(path.join(ROOT, file), 'utf8'))) {
        const page = resolveInRepository(file, target);
        if (page === null) continue; // a missing file is the test above's finding
        checked++;
        if (!hasSection(fs.readFileSync(path.join(ROOT, page), 'utf8'), section)) missing.push(`${file}:${line}: ${target}, "${section}"`);
      }
    }
    expect(checked).toBeGreaterThan(10);
    expect(missing, 'sections named that their page does not have').toEqual([]);
  });
});
