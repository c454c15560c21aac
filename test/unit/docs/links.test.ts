import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokenLink, headingAnchors, markdownLinks, repositoryTextFiles, ROOT } from './docsScan.js';

/** Made at run time: this file is scanned for references to Markdown files like every other. */
const md = (name: string): string => `${name}.md`;
const MISSING = md('no-such-page');

describe('relative links in the Markdown pages', () => {
  it("makes GitHub's anchors from headings", () => {
    const page = [
      '# Model providers, fallbacks and prices',
      '## The built-in `echo` provider',
      '## CUPED: the same answer with fewer users',
      '## `metrics`, `guardrails`, `exploratory`',
      `### Keys and the [CLI](${md('api')})`,
      '## PROMPTLINE_DB_TIMEOUT_MS — 5 000 ms',
      '## Health',
      '## Health',
      '```bash',
      '# not a heading',
      '```',
    ].join('\n');
    expect([...headingAnchors(page)]).toEqual([
      'model-providers-fallbacks-and-prices',
      'the-built-in-echo-provider',
      'cuped-the-same-answer-with-fewer-users',
      'metrics-guardrails-exploratory',
      'keys-and-the-cli',
      'promptline_db_timeout_ms--5-000-ms',
      'health',
      'health-1',
    ]);
  });

  it('finds links and images outside code, and tells a broken one', () => {
    const page = ['[a](docs/results.md#health) ![b](docs/console.png "title")', '`[c](nowhere)`', '```', '[d](nowhere)', '```', '[e]: <docs/api.md>'].join('\n');
    expect(markdownLinks(page)).toEqual([
      { line: 1, target: 'docs/results.md#health' },
      { line: 1, target: 'docs/console.png' },
      { line: 6, target: 'docs/api.md' },
    ]);
    expect(brokenLink('README.md', 'docs/results.md#health')).toBeNull();
    expect(brokenLink('docs/api.md', `${md('../README')}#quickstart`)).toBeNull();
    expect(brokenLink('docs/api.md', '#keys-and-the-cli')).toBeNull();
    expect(brokenLink('README.md', `docs/${MISSING}`)).toMatch(/does not exist/);
    expect(brokenLink('README.md', 'docs/results.md#no-such-heading')).toMatch(/no heading/);
    expect(brokenLink('docs/api.md', '#no-such-heading')).toMatch(/no heading/);
    expect(brokenLink('README.md', 'https://example.com/nowhere')).toBeNull();
  });

  it('every relative link of README.md, ARCHITECTURE.md and docs/ leads to a file, and to a heading of it', () => {
    const pages = repositoryTextFiles().filter((file) => /\.(md|markdown)$/i.test(file));
    for (const required of ['README.md', 'ARCHITECTURE.md', 'docs/README.md', 'docs/runtime-contract.md']) expect(pages).toContain(required);
    const broken: string[] = [];
    let checked = 0;
    for (const page of pages) {
      for (const { line, target } of markdownLinks(fs.readFileSync(path.join(ROOT, page), 'utf8'))) {
        checked++;
        const reason = brokenLink(page, target);
        if (reason) broken.push(`${page}:${line}: ${target} (${reason})`);
      }
    }
    expect(checked).toBeGreaterThan(30);
    expect(broken).toEqual([]);
  });

  it('docs/README.md lists every page of docs/', () => {
    const index = markdownLinks(fs.readFileSync(path.join(ROOT, 'docs/README.md'), 'utf8')).map((link) => link.target.split('#')[0]);
    const pages = fs.readdirSync(path.join(ROOT, 'docs')).filter((file) => file.endsWith('.md') && file !== 'README.md');
    expect(pages.filter((page) => !index.includes(page))).toEqual([]);
  });
});
