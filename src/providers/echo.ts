// The built-in `echo` provider: answers locally, instantly and deterministically with the
// rendered prompt, so everything runs with no key and no network. It is always reported as
// `echo/<model>`, never used as a silent fallback.
import { countTextTokens } from './tokens.js';
import type { ChatMessage, ModelRequest, ModelResult } from './types.js';

/** The text form of a chat prompt, shared with /get_prompt's `prompt_text`. */
export function joinMessages(messages: readonly ChatMessage[]): string {
  return messages.map((m) => `${m.role}: ${m.content}`).join('\n\n');
}

export const ECHO_PRICE = { input: 0, cached_input: 0, output: 0, source: 'echo' as const };

export function runEcho(model: string, req: ModelRequest, startedAt: number): ModelResult {
  const text = req.promptText ?? joinMessages(req.messages);
  // Input and output are the same text, so one count serves both.
  const count = countTextTokens(model, text);
  const latencyMs = Math.round(performance.now() - startedAt);
  return {
    output: text,
    modelRequested: req.model,
    modelUsed: `echo/${model}`,
    provider: 'echo',
    promptTokens: count.tokens,
    completionTokens: count.tokens,
    totalTokens: count.tokens * 2,
    cachedTokens: 0,
    reasoningTokens: 0,
    tokensEstimated: count.estimated,
    costNanoUsd: 0,
    costKnown: true,
    price: { ...ECHO_PRICE },
    latencyMs,
    attempts: [{ model: `echo/${model}`, attempt: 1, status: 200, error: null, latency_ms: latencyMs }],
  };
}
