// Local token counting, used when a provider reports no usage and for the echo provider.
import { createRequire } from 'node:module';
import type * as Encoding from 'gpt-tokenizer/encoding/o200k_base';
import type { ChatMessage } from './types.js';

export type EncodingName = 'o200k_base' | 'cl100k_base';

export interface TokenCount {
  tokens: number;
  /** True when the model's encoding is unknown (o200k assumed) or the text was extrapolated. */
  estimated: boolean;
}

// An encoding takes 0.3-0.6 s of CPU to build: loaded on first use, so that the CLI and any process
// that never counts a token do not pay it at start; the server builds both before it listens
// (loadTokenizers), so that no request does. Loaded with `require` (the package's CommonJS build)
// because counting is synchronous.
const requireModule = createRequire(import.meta.url);
const ENCODINGS: Record<EncodingName, string> = { o200k_base: 'gpt-tokenizer/cjs/encoding/o200k_base', cl100k_base: 'gpt-tokenizer/cjs/encoding/cl100k_base' };
const loaded = new Map<EncodingName, typeof Encoding>();

function encoding(name: EncodingName): typeof Encoding {
  let found = loaded.get(name);
  if (found === undefined) {
    found = requireModule(ENCODINGS[name]) as typeof Encoding;
    loaded.set(name, found);
  }
  return found;
}

/** Builds every encoding now (the server, before it listens), rather than on the first count. */
export function loadTokenizers(): void {
  for (const name of Object.keys(ENCODINGS) as EncodingName[]) encoding(name);
}

// Special-token strings in user text (e.g. "<|endoftext|>") are plain text to the API; the
// library's default would throw on them.
const PLAIN = { disallowedSpecial: new Set<string>() };

/** Beyond this many characters, count a prefix and extrapolate by length. */
export const MAX_COUNTED_CHARS = 200_000;
/**
 * BPE is quadratic in the length of one pre-tokenized piece: 200k characters without a space
 * took 47 s here, 128 take well under a millisecond. Runs longer than this are cut (the count
 * may then be off by about a token per cut).
 */
const MAX_RUN = 128;
/** Text is handed to the tokenizer in chunks of about this size, cut only where it is safe. */
const CHUNK = 8_192;

const O200K_FAMILIES = /^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o\d)/;
const CL100K_FAMILIES = /^(gpt-4|gpt-3\.5|gpt-35|text-embedding-3|text-embedding-ada)/;

/** The encoding for a model; `exact` is false for models we can only approximate with o200k. */
export function encodingFor(model: string): { encoding: EncodingName; exact: boolean } {
  // OpenRouter-style ids ("openai/gpt-4o") and Ollama tags keep the family in the last segment.
  const bare = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  if (O200K_FAMILIES.test(bare)) return { encoding: 'o200k_base', exact: true };
  if (CL100K_FAMILIES.test(bare)) return { encoding: 'cl100k_base', exact: true };
  return { encoding: 'o200k_base', exact: false };
}

export function countTextTokens(model: string, text: string): TokenCount {
  const { encoding, exact } = encodingFor(model);
  const r = countWithEncoding(encoding, text);
  return { tokens: r.tokens, estimated: r.estimated || !exact };
}

/**
 * Prompt tokens of a chat as OpenAI bills them (the cookbook's rule for gpt-3.5-turbo-0613 and
 * later): 3 per message, plus role and content, plus 3 priming the reply.
 */
const IMAGE_BASE_TOKENS = 85;

export function countChatTokens(model: string, messages: readonly ChatMessage[]): TokenCount {
  const { encoding, exact } = encodingFor(model);
  let tokens = 3;
  let estimated = !exact;
  for (const m of messages) {
    const role = countWithEncoding(encoding, m.role);
    const parts = typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content;
    tokens += 3 + role.tokens;
    for (const part of parts) {
      if (part.type === 'image_url') {
        // OpenAI documents 85 tokens for a low-detail image and 85 + 170 per 512 px tile otherwise;
        // the tiles need the image's size, which is not read here: counted as 85, and estimated.
        tokens += IMAGE_BASE_TOKENS;
        estimated ||= part.image_url.detail !== 'low';
        continue;
      }
      const content = countWithEncoding(encoding, part.text);
      tokens += content.tokens;
      estimated ||= content.estimated;
    }
  }
  return { tokens, estimated };
}

export function countWithEncoding(name: EncodingName, text: string): TokenCount {
  const { countTokens } = encoding(name);
  const count = (t: string) => countTokens(t, PLAIN);
  if (text.length <= MAX_COUNTED_CHARS) return { tokens: countPiecewise(count, text), estimated: false };
  let end = MAX_COUNTED_CHARS;
  if (isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
  const prefix = countPiecewise(count, text.slice(0, end));
  return { tokens: Math.round((prefix * text.length) / end), estimated: true };
}

/**
 * Counts in chunks cut just before a single space that sits between two non-space characters:
 * OpenAI's pre-tokenizers never join across that point (the space starts the next word), so
 * for ordinary text the sum equals the whole-text count.
 */
function countPiecewise(count: (text: string) => number, text: string): number {
  if (text.length <= MAX_RUN) return count(text);
  let total = 0;
  let start = 0; // start of the chunk not yet counted
  let runStart = 0; // last cut point; no piece crosses it
  for (let i = 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 && !isSpace(text.charCodeAt(i - 1)) && i + 1 < text.length && !isSpace(text.charCodeAt(i + 1))) {
      runStart = i;
      if (i - start >= CHUNK) {
        total += count(text.slice(start, i));
        start = i;
      }
    } else if (i - runStart >= MAX_RUN && !isLowSurrogate(c)) {
      total += count(text.slice(start, i));
      start = runStart = i;
    }
  }
  return total + count(text.slice(start));
}

function isSpace(c: number): boolean {
  if (c < 0x80) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  return /\s/.test(String.fromCharCode(c));
}
function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}
function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
