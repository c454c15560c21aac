import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** README.md and every Markdown file under docs/. */
function markdownFiles(): string[] {
  const docs = fs.readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.md'));
  return ['README.md', ...docs.map((file) => path.join('docs', file))];
}

/** The commands a reader copies: code blocks and inline code, not the prose around them. */
function codeIn(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/```[^\n]*\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const prose = markdown.replace(/```[^\n]*\n[\s\S]*?```/g, '');
  const inline = [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  return [...blocks, ...inline];
}

describe('the CLI as the docs tell you to run it', () => {
  it('is node bin/promptline.js, never npx promptline (outside the repository npx fetches an unrelated package of that name)', () => {
    const offending = markdownFiles().flatMap((file) =>
      codeIn(fs.readFileSync(path.join(ROOT, file), 'utf8'))
        .flatMap((code) => code.split('\n'))
        .filter((line) => /\bnpx\s+(--\S+\s+)*promptline\b/.test(line))
        .map((line) => `${file}: ${line.trim()}`),
    );
    expect(offending).toEqual([]);
  });
});
