import http from 'node:http';
import https from 'node:https';
import { checkLiteralHost, DestinationRefused, publicOnlyLookup } from './destination.js';

export interface PostOutcome {
  /** The receiver's status, or null when no answer came. */
  statusCode: number | null;
  /** Why it failed (null on a 2xx). */
  error: string | null;
}

/** What of a failed answer's body goes into `last_error`: enough to recognise the receiver's message. */
const ERROR_BODY_BYTES = 512;

/**
 * POSTs one delivery and settles with what happened; never throws. A 2xx is success. Redirects
 * are not followed (a redirect could lead to an address the destination check refused). The whole
 * exchange has `timeoutMs`, so a receiver that stalls costs a delivery slot that long at most.
 */
export function postDelivery(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; allowPrivate: boolean; signal: AbortSignal },
): Promise<PostOutcome> {
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(rawUrl);
      checkLiteralHost(url, options.allowPrivate);
    } catch (error) {
      resolve({ statusCode: null, error: error instanceof DestinationRefused ? `refused: ${error.message}` : 'invalid URL' });
      return;
    }
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      signal: options.signal,
      ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup }),
    });
    const timer = setTimeout(() => request.destroy(new Error(`timed out after ${options.timeoutMs} ms`)), options.timeoutMs);
    const settle = (outcome: PostOutcome) => {
      clearTimeout(timer);
      resolve(outcome);
    };
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let kept = 0;
      response.on('data', (chunk: Buffer) => {
        if (kept < ERROR_BODY_BYTES) chunks.push(chunk);
        kept += chunk.length;
      });
      response.on('end', () => {
        if (status >= 200 && status < 300) return settle({ statusCode: status, error: null });
        const text = Buffer.concat(chunks).toString('utf8').slice(0, ERROR_BODY_BYTES).trim();
        const why = status >= 300 && status < 400 ? 'redirects are not followed: register the final URL' : text;
        settle({ statusCode: status, error: why === '' ? `HTTP ${status}` : `HTTP ${status}: ${why}` });
      });
      response.on('error', (error) => settle({ statusCode: status, error: `the answer broke off: ${error.message}` }));
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      settle({ statusCode: null, error: error instanceof DestinationRefused ? `refused: ${error.message}` : describeNetworkError(error) });
    });
    request.end(body);
  });
}

function describeNetworkError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
      return 'the host name does not resolve';
    case 'ECONNRESET':
      return 'the connection was reset';
    case 'ABORT_ERR':
      return 'aborted: the server was shutting down';
    default:
      return error.message;
  }
}
