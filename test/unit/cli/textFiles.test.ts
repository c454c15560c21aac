import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineAt, NOT_UTF8, readUtf8File, utf8Lines } from '../../../src/cli/textFiles.js';

/** How the CLI reads the files it imports: UTF-8, a byte-order mark skipped, other encodings refused by line. */
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-text-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function file(name: string, ...parts: Array<string | Buffer>): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : part))));
  return p;
}
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
async function lines(p: string): Promise<Array<[number, string | null]>> {
  const out: Array<[number, string | null]> = [];
  for await (const { line, text } of utf8Lines(p)) out.push([line, text]);
  return out;
}

describe('utf8Lines', () => {
  it('skips the byte-order mark at the start only, keeps each line end, and reads a last line without one', async () => {
    const p = file('a.txt', BOM, 'one\r\n', BOM, 'two\n\nthree');
    expect(await lines(p)).toEqual([
      [1, 'one\r\n'],
      [2, '\ufefftwo\n'],
      [3, '\n'],
      [4, 'three'],
    ]);
  });

  it('refuses a line of Latin-1 bytes by its number and reads the lines around it', async () => {
    const p = file('b.txt', 'ok\n', Buffer.from('caf\xe9\n', 'latin1'), 'après\n', Buffer.from([0xed, 0xa0, 0x80, 0x0a])); // the last: a surrogate in UTF-8 form
    expect(await lines(p)).toEqual([
      [1, 'ok\n'],
      [2, null],
      [3, 'après\n'],
      [4, null],
    ]);
  });

  it('reads characters split across the chunks the file arrives in', async () => {
    // Longer than a read chunk (64 KiB), with 4-byte characters across every boundary.
    const long = '😀'.repeat(50_000);
    const p = file('c.txt', 'x', long, '\n', long);
    expect(await lines(p)).toEqual([
      [1, `x${long}\n`],
      [2, long],
    ]);
  });

  it('reads an empty file as no line, and a file of a mark alone as one empty line', async () => {
    expect(await lines(file('empty.txt'))).toEqual([]);
    expect(await lines(file('mark.txt', BOM))).toEqual([[1, '']]);
  });
});

describe('readUtf8File', () => {
  it('reads a whole file without its byte-order mark', () => {
    expect(readUtf8File(file('d.json', BOM, '{"a": "é"}\n'))).toBe('{"a": "é"}\n');
  });

  it('throws file:line for the first line that is not UTF-8, the last line too', () => {
    const p = file('e.json', '[\n"a",\n', Buffer.from('"\xff"\n', 'latin1'), ']\n');
    expect(() => readUtf8File(p)).toThrow(`${p}:3: ${NOT_UTF8}`);
    const last = file('f.json', '[\n', Buffer.from('"\xe9"]', 'latin1'));
    expect(() => readUtf8File(last)).toThrow(`${last}:2: ${NOT_UTF8}`);
  });

  it('lineAt counts the lines before an index', () => {
    expect([lineAt('a\nb\nc', 0), lineAt('a\nb\nc', 2), lineAt('a\nb\nc', 4), lineAt('a\nb\nc', 1)]).toEqual([1, 2, 3, 1]);
  });
});
