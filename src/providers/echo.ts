// The built-in `echo` provider: answers locally, instantly and deterministically with the
// rendered prompt, so everything runs with no key and no network. It is always reported as
// `echo/<model>`, never used as a silent fallback.
import { joinMessages } from '../lib/chatMessage.js';
import type { ChatProvider } from './chatProvider.js';
import { ECHO_PROVIDER } from './settings.js';
import { countTextTokens } from './tokens.js';

export function createEchoProvider(): ChatProvider {
  return {
    name: ECHO_PROVIDER,
    timeoutMs: null,
    limiter: null,
    fixedPrice: { input: 0, cached_input: 0, output: 0, source: 'echo' },
    baseURL: undefined,
    async call(request) {
      const text = request.promptText ?? joinMessages(request.messages);
      // Input and output are the same text, so one count serves both.
      const count = countTextTokens(request.model, text);
      return {
        output: text,
        reportedModel: null,
        usage: { promptTokens: count.tokens, completionTokens: count.tokens, totalTokens: count.tokens * 2, cachedTokens: 0, reasoningTokens: 0 },
        usageEstimated: count.estimated,
      };
    },
    classify(error) {
      return { kind: 'fatal', status: null, reason: `echo failed: ${error instanceof Error ? error.message : String(error)}` };
    },
    close: async () => undefined,
  };
}
