import { describe, expect, it } from 'vitest';
import { sseData } from '../../../src/providers/sseData.js';

async function collect(pieces: string[]): Promise<string[]> {
  async function* bytes() {
    for (const piece of pieces) yield new TextEncoder().encode(piece);
  }
  const out: string[] = [];
  for await (const data of sseData(bytes())) out.push(data);
  return out;
}

describe('sseData', () => {
  it.each<[string, string[], string[]]>([
    ['one event per blank line', ['data: a\n\ndata: b\n\n'], ['a', 'b']],
    ['events cut anywhere between reads', ['da', 'ta: {"x"', ':1}\n', '\ndata: [DONE]\n\n'], ['{"x":1}', '[DONE]']],
    ['CRLF line ends', ['data: a\r\n\r\ndata: b\r\n\r\n'], ['a', 'b']],
    ['several data lines joined by LF', ['data: a\ndata: b\n\n'], ['a\nb']],
    ['no space after the colon', ['data:a\n\n'], ['a']],
    ['comments, event and id fields skipped', [': keep-alive\nevent: x\nid: 3\ndata: a\n\n'], ['a']],
    ['an event without its blank line at the end', ['data: a\n\ndata: b'], ['a', 'b']],
    ['nothing', [], []],
  ])('%s', async (_name, pieces, expected) => {
    expect(await collect(pieces)).toEqual(expected);
  });

  it('decodes a UTF-8 character split between two reads', async () => {
    const euro = new TextEncoder().encode('data: €\n\n');
    async function* bytes() {
      yield euro.slice(0, 7);
      yield euro.slice(7);
    }
    const out: string[] = [];
    for await (const data of sseData(bytes())) out.push(data);
    expect(out).toEqual(['€']);
  });
});
