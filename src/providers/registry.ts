// Which provider serves `<provider>/<model>`: the built-in echo, one OpenAI-compatible provider per
// configured endpoint, and any provider handed in (tests, or a future native API: one line here).
import type { ChatProvider } from './chatProvider.js';
import { createEchoProvider } from './echo.js';
import { createOpenAICompatibleProvider } from './openaiCompatible.js';
import type { ProviderSettings } from './settings.js';

export function createProviderRegistry(settings: ProviderSettings, extra: readonly ChatProvider[] = []): ReadonlyMap<string, ChatProvider> {
  const providers = new Map<string, ChatProvider>();
  const echo = createEchoProvider();
  providers.set(echo.name, echo);
  for (const config of Object.values(settings.providers)) providers.set(config.name, createOpenAICompatibleProvider(config));
  for (const provider of extra) providers.set(provider.name, provider);
  return providers;
}
