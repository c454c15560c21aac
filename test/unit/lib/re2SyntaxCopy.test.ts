import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The JavaScript client imports nothing of the server, so it carries its own copy of the pattern
// translation; a pattern must mean the same on both sides (a value the client accepts offline is
// one the server accepts), so the copy may differ only by its header comment.
const root = path.resolve(import.meta.dirname, '../../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const withoutLineComments = (text: string) =>
  text
    .split('\n')
    .filter((line) => !line.startsWith('//'))
    .join('\n')
    .replace(/\n{2,}/g, '\n');

describe("the client's copy of the pattern translation", () => {
  it('is the server’s src/lib/re2Syntax.ts, but for its header', () => {
    const server = read('src/lib/re2Syntax.ts');
    const client = read('sdk/js/src/re2Syntax.ts');
    expect(client).not.toBe(server);
    expect(withoutLineComments(client)).toBe(withoutLineComments(server));
  });
});
