import { countTokens as o200kCount } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import {
  countChatTokens,
  countTextTokens,
  countWithEncoding,
  encodingFor,
  MAX_COUNTED_CHARS,
} from '../../../src/providers/tokens.js';

describe('encodingFor', () => {
  it.each([
    ['gpt-4o-mini', 'o200k_base', true],
    ['gpt-4o-mini-2024-07-18', 'o200k_base', true],
    ['gpt-4.1-nano', 'o200k_base', true],
    ['gpt-5', 'o200k_base', true],
    ['o3-mini', 'o200k_base', true],
    ['openai/gpt-4o', 'o200k_base', true],
    ['gpt-4', 'cl100k_base', true],
    ['gpt-4-turbo', 'cl100k_base', true],
    ['gpt-3.5-turbo', 'cl100k_base', true],
    ['llama3.1:8b', 'o200k_base', false],
    ['meta-llama/llama-3.1-8b-instruct', 'o200k_base', false],
  ])('%s → %s (exact: %s)', (model, encoding, exact) => {
    expect(encodingFor(model)).toEqual({ encoding, exact });
  });
});

describe('countTextTokens', () => {
  // Vectors from OpenAI's cookbook "How to count tokens with tiktoken".
  it.each([
    ['antidisestablishmentarianism', 6, 6],
    ['2 + 2 = 4', 7, 7],
    ['お誕生日おめでとう', 8, 9],
    ['tiktoken is great!', 6, 6],
  ])('%j: %i tokens in o200k, %i in cl100k', (text, o200k, cl100k) => {
    expect(countTextTokens('gpt-4o', text)).toEqual({ tokens: o200k, estimated: false });
    expect(countTextTokens('gpt-4', text)).toEqual({ tokens: cl100k, estimated: false });
  });

  it('flags models whose encoding is unknown as estimated', () => {
    expect(countTextTokens('llama3.1:8b', 'tiktoken is great!')).toEqual({ tokens: 6, estimated: true });
  });

  it('counts special-token strings in user text as plain text instead of throwing', () => {
    expect(countTextTokens('gpt-4o', 'a <|endoftext|> b').tokens).toBeGreaterThan(3);
  });

  it('matches the whole-text count on long ordinary text despite counting in chunks', () => {
    const paragraph =
      "Promptline stores prompts, runs them and A/B-tests versions. It's 2024-07-18; costs: $0.15/MTok.\n" +
      '  Indented code: const x = fn(a, b) => a+b; // comment\n\tTabs, ünïcödé, 中文文本, emojis 🎉🎉.\n\n';
    const text = paragraph.repeat(300); // ~60k characters, many chunks
    expect(countWithEncoding('o200k_base', text)).toEqual({ tokens: o200kCount(text), estimated: false });
  });

  it('stays fast on pathological runs without spaces (the uncapped tokenizer takes tens of seconds)', () => {
    const start = performance.now();
    const a = countWithEncoding('o200k_base', 'a'.repeat(150_000));
    const cjk = countWithEncoding('o200k_base', '中'.repeat(150_000));
    expect(performance.now() - start).toBeLessThan(3_000);
    // 'a'×8 is one token; cuts every 128 characters keep that ratio.
    expect(a.tokens).toBe(150_000 / 8);
    expect(cjk.tokens).toBeGreaterThan(50_000);
  });

  it('extrapolates beyond the counted length and says so', () => {
    const unit = 'The quick brown fox jumps over the lazy dog. ';
    const text = unit.repeat(Math.ceil((MAX_COUNTED_CHARS * 2) / unit.length));
    const counted = countWithEncoding('o200k_base', text);
    expect(counted.estimated).toBe(true);
    // 10 tokens per sentence; extrapolation by length stays within a token or two.
    expect(Math.abs(counted.tokens - (text.length / unit.length) * 10)).toBeLessThanOrEqual(2);
  });
});

describe('countChatTokens', () => {
  it("follows OpenAI's rule: 3 per message + role + content, plus 3 priming the reply", () => {
    const messages = [
      { role: 'system' as const, content: 'You are a helpful assistant.' },
      { role: 'user' as const, content: 'Hello' },
    ];
    // 'You are a helpful assistant.' = 6, 'Hello' = 1, each role = 1.
    expect(countChatTokens('gpt-4o', messages)).toEqual({ tokens: 3 + (3 + 1 + 6) + (3 + 1 + 1), estimated: false });
    expect(countChatTokens('mistral-7b', messages).estimated).toBe(true);
  });
});
