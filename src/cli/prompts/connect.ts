import { httpClient, type ApiClient } from '../api/client.js';

export interface ConnectOptions {
  url?: string;
  apiKey?: string;
}

/**
 * The one place the prompts commands get their API client. For now a server only (the commands
 * plan and apply on the server, so that a push is one transaction); the CLI's own `connect()`
 * (HTTP, or the local database in-process) replaces this function as it is.
 */
export function connectPrompts(options: ConnectOptions): ApiClient {
  const url = options.url ?? process.env.PROMPTLINE_URL;
  const apiKey = options.apiKey ?? process.env.PROMPTLINE_API_KEY;
  if (!url || !apiKey) throw new Error('this command talks to a server: give --url and --api-key (or set PROMPTLINE_URL and PROMPTLINE_API_KEY)');
  return httpClient(url, apiKey);
}
