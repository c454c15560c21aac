/**
 * How a CLI command reaches Promptline: the management API's own paths and bodies, answered either
 * by a running server over HTTP (`--url` and `--api-key`, or PROMPTLINE_URL and PROMPTLINE_API_KEY:
 * what a CI runner has) or by the local database through the same app in-process. A command is
 * written once, against the API, and behaves the same either way.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
}

export interface ApiClient {
  /** Resolves the parsed JSON answer (null for 204); throws ApiError for any status from 400 on. */
  request<T = unknown>(method: HttpMethod, path: string, options?: RequestOptions): Promise<T>;
  /** What it talks to, for messages: the server's URL, or the local database's folder. */
  readonly target: string;
}

/** A client and what ends it: the local one holds the database and the app, HTTP nothing. */
export interface Connection {
  api: ApiClient;
  close(): Promise<void>;
}

/**
 * An answer from 400 on: its status and the API's `detail` (a string, or FastAPI's list of items).
 * Its message is the detail as lines a person reads, unless `message` gives other words (the local
 * client gives the service's own, as the CLI has always printed them).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
    message?: string,
  ) {
    super(message ?? describeDetail(status, detail));
    this.name = 'ApiError';
  }
}

/** `detail` as lines a person reads: a string as it is, FastAPI's items as `loc: msg`. */
function describeDetail(status: number, detail: unknown): string {
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    // A rule's own words (a value_error's ctx.error), as the CLI prints them on the local database.
    return detail
      .map((item: { loc?: unknown[]; msg?: string; ctx?: { error?: unknown } }) => {
        const msg = typeof item.ctx?.error === 'string' ? item.ctx.error : (item.msg ?? JSON.stringify(item));
        return `${(item.loc ?? []).join('.')}: ${msg}`;
      })
      .join('\n');
  }
  return `the server answered ${status}`;
}

export function withQuery(path: string, query: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) params.set(name, String(value));
  const text = params.toString();
  return text === '' ? path : `${path}${path.includes('?') ? '&' : '?'}${text}`;
}

/** A running server at `baseUrl`, called with `apiKey` (whose project the commands act on). */
export function httpClient(baseUrl: string, apiKey: string): ApiClient {
  const origin = baseUrl.replace(/\/+$/, '');
  return {
    target: origin,
    async request<T>(method: HttpMethod, path: string, options: RequestOptions = {}): Promise<T> {
      let res: Response;
      try {
        res = await fetch(origin + withQuery(path, options.query), {
          method,
          headers: { 'x-api-key': apiKey, ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: options.body === undefined ? undefined : JSON.stringify(options.body),
        });
      } catch (error) {
        throw new Error(`cannot reach ${origin}: ${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}`);
      }
      const text = await res.text();
      const json: unknown = text === '' ? null : safeJson(text);
      if (res.status >= 400) throw new ApiError(res.status, (json as { detail?: unknown } | null)?.detail ?? text);
      return json as T;
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
