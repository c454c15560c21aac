import { httpClient, type ApiClient } from '../api/client.js';

/**
 * The management API this command talks to: a running server (`--url` and `--api-key`, or
 * PROMPTLINE_URL and PROMPTLINE_API_KEY). A stand-in for the CLI's shared connect(), which also
 * answers from the local database in-process; until then an import needs a server.
 */
export function connect(options: { url?: string; apiKey?: string }): ApiClient {
  const url = options.url ?? process.env.PROMPTLINE_URL;
  const apiKey = options.apiKey ?? process.env.PROMPTLINE_API_KEY;
  if (!url || !apiKey)
    throw new Error('promptline import talks to a running server: give --url and --api-key (or PROMPTLINE_URL and PROMPTLINE_API_KEY), with an admin key');
  return httpClient(url, apiKey);
}
