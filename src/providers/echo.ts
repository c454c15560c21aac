// The built-in `echo` provider: answers locally, instantly and deterministically with the
// rendered prompt, so everything runs with no key and no network. It is always reported as
// `echo/<model>`, never used as a silent fallback.
import { joinMessages } from '../lib/chatMessage.js';
import type { ChatProvider } from './chatProvider.js';
import { ECHO_PROVIDER } from './settings.js';
import { countTextTokens } from './tokens.js';
import type { ReportedUsage } from './types.js';

const WORDS = /\s*\S+\s*/gy;

/** Input and output are the same text, so one count serves both. */
function echoUsage(model: string, text: string): { usage: ReportedUsage; usageEstimated: boolean } {
  const count = countTextTokens(model, text);
  return {
    usage: { promptTokens: count.tokens, completionTokens: count.tokens, totalTokens: count.tokens * 2, cachedTokens: 0, reasoningTokens: 0 },
    usageEstimated: count.estimated,
  };
}

export function createEchoProvider(): ChatProvider {
  return {
    name: ECHO_PROVIDER,
    timeoutMs: null,
    limiter: null,
    fixedPrice: { input: 0, cached_input: 0, output: 0, source: 'echo' },
    baseURL: undefined,
    async call(request) {
      const text = request.promptText ?? joinMessages(request.messages);
      return { output: text, reportedModel: null, ...echoUsage(request.model, text) };
    },
    // Word by word (each word with the blanks after it), then the usage, as a model streams.
    async *stream(request, signal) {
      const text = request.promptText ?? joinMessages(request.messages);
      for (const word of text.match(WORDS) ?? (text === '' ? [] : [text])) {
        if (signal.aborted) return;
        yield { text: word, toolCalls: null, usage: null, reportedModel: null };
      }
      yield { text: '', toolCalls: null, reportedModel: null, ...echoUsage(request.model, text) };
    },
    classify(error) {
      return { kind: 'fatal', status: null, reason: `echo failed: ${error instanceof Error ? error.message : String(error)}` };
    },
    close: async () => undefined,
  };
}
