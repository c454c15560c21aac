import { randomBytes } from 'node:crypto';
import { buildApp } from '../../app.js';
import type { Config } from '../../config.js';
import { databasePath } from '../../db/open.js';
import { redactPassword } from '../../db/databaseUrl.js';
import { Invalid } from '../../lib/errors.js';
import { OPERATOR_PROJECT_HEADER, OPERATOR_TOKEN_HEADER, thrownBy } from '../../http/operator.js';
import { describeInvalid } from '../output.js';
import { ApiError, type ApiClient, type Connection, type HttpMethod, type RequestOptions, withQuery } from './client.js';

/**
 * The management API answered by the app itself, in-process (`app.inject`: no socket is opened), on
 * the configured database, as the operator of the project named `projectName` (no key: whoever can
 * open the database owns it). No timer of the app keeps the process alive (no webhook sender, no
 * retention sweep, no change feed); `close` flushes what the app holds in memory (exposure counts,
 * the summary of input names) before it closes the database.
 */
export async function localConnection(config: Config, projectName: string): Promise<Connection> {
  const token = randomBytes(32).toString('hex');
  // An operator's command may compute a whole report on this connection: it gets a report's deadline.
  // The app logs nothing: the command reports its own errors, and stdout is its output.
  const built = await buildApp(
    { ...config, logLevel: 'silent', postgres: { ...config.postgres, timeoutMs: config.postgres.reportTimeoutMs } },
    { operatorToken: token, webhookTimers: false },
  );
  let projectId: string;
  try {
    const project = await built.projects.findByName(projectName);
    if (project === null) throw new Error(`project ${JSON.stringify(projectName)} not found`);
    projectId = project.id;
  } catch (error) {
    await built.close();
    throw error;
  }
  const api: ApiClient = {
    target: config.databaseUrl === null ? databasePath(config.dataDir) : redactPassword(config.databaseUrl),
    async request<T>(method: HttpMethod, path: string, options: RequestOptions = {}): Promise<T> {
      const res = await built.app.inject({
        method,
        url: withQuery(path, options.query),
        headers: {
          [OPERATOR_TOKEN_HEADER]: token,
          [OPERATOR_PROJECT_HEADER]: projectId,
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(options.body === undefined ? {} : { payload: JSON.stringify(options.body) }),
      });
      if (res.statusCode >= 400) {
        // An ApiError whatever the mode, so that a command reads statuses one way; worded as the
        // error a service threw, as the CLI has always printed it, else as the answer's detail.
        const thrown = thrownBy(res.raw.res);
        throw new ApiError(res.statusCode, detailOf(res.body), thrown === undefined ? undefined : describeThrown(thrown));
      }
      return (res.body === '' ? null : JSON.parse(res.body)) as T;
    },
  };
  return { api, close: () => built.close() };
}

/** A service's error in its own words. */
function describeThrown(error: unknown): string {
  if (error instanceof Invalid) return describeInvalid(error);
  return error instanceof Error ? error.message : String(error);
}

function detailOf(text: string): unknown {
  try {
    return (JSON.parse(text) as { detail?: unknown }).detail ?? text;
  } catch {
    return text;
  }
}
