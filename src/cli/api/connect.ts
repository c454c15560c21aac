import fs from 'node:fs';
import path from 'node:path';
import { databasePath } from '../../db/open.js';
import { configOrExit } from '../config.js';
import { httpClient, type ApiClient, type Connection } from './client.js';

/** The environment variables the global `--url` and `--api-key` options set (main.ts), and CI sets itself. */
export const URL_ENV = 'PROMPTLINE_URL';
export const API_KEY_ENV = 'PROMPTLINE_API_KEY';

export interface ConnectOptions {
  /**
   * `--project`: on the local database, the name of the project to act on ('default' when absent).
   * Over HTTP the project is the API key's, so a project named there is refused rather than ignored:
   * a command must not act on another project than the one its caller named.
   */
  project?: string;
}

/**
 * How a command reaches Promptline. PROMPTLINE_URL and PROMPTLINE_API_KEY (or `--url` and
 * `--api-key`) together: a running server over HTTP. Neither: the local database of
 * PROMPTLINE_DATA_DIR / PROMPTLINE_DATABASE_URL, through the same API in-process. One without the
 * other is a mistake, said as such rather than guessed at.
 */
export async function connect(options: ConnectOptions = {}): Promise<Connection> {
  const url = nonEmpty(process.env[URL_ENV]);
  const apiKey = nonEmpty(process.env[API_KEY_ENV]);
  if (url !== undefined || apiKey !== undefined) {
    if (url === undefined) throw new Error(`--api-key (${API_KEY_ENV}) needs --url (${URL_ENV}): the server to call`);
    if (apiKey === undefined) throw new Error(`--url (${URL_ENV}) needs --api-key (${API_KEY_ENV}): the key to call it with`);
    if (!/^https?:\/\/[^/]/.test(url)) throw new Error(`--url (${URL_ENV}) must be an http:// or https:// URL, not ${JSON.stringify(url)}`);
    if (options.project !== undefined) {
      throw new Error("--project is for the local database: over HTTP the project is the API key's (leave --project out)");
    }
    return { api: httpClient(url, apiKey), close: async () => {} };
  }
  const config = configOrExit();
  const file = databasePath(config.dataDir);
  if (config.databaseUrl === null && !fs.existsSync(file)) {
    throw new Error(`no database at ${path.resolve(file)}: give --data-dir (or PROMPTLINE_DATA_DIR) the folder the server uses`);
  }
  // Loaded only here: the in-process app (Fastify, every service) is most of the CLI's start-up
  // time, and a command sent over HTTP never needs it.
  const { localConnection } = await import('./local.js');
  return localConnection(config, options.project ?? 'default');
}

/** Runs an action on a connection and closes it, whatever the action does. */
export async function withApi<T>(options: ConnectOptions, action: (api: ApiClient) => Promise<T>): Promise<T> {
  const connection = await connect(options);
  try {
    return await action(connection.api);
  } finally {
    await connection.close();
  }
}

/** Whether the commands go to a server over HTTP (the local-only commands refuse to). */
export function overHttp(): boolean {
  return nonEmpty(process.env[URL_ENV]) !== undefined || nonEmpty(process.env[API_KEY_ENV]) !== undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
