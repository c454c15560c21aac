// Server-sent events as a client reads them (docs/streaming.md): a POST over a real socket, its
// frames parsed into events, for the tests of streamed runs.
import http from 'node:http';
import net from 'node:net';
import { ADMIN_KEY } from './harness.js';
import { STEP_MS } from './timeLimits.js';

export interface SseEvent {
  event: string;
  data: any;
}
export interface SseAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The raw body (a JSON error when the answer is not a stream). */
  text: string;
  events: SseEvent[];
}

function parseEvents(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const lines = frame.split('\n');
      return { event: lines[0]!.replace(/^event: /, ''), data: JSON.parse(lines[1]!.replace(/^data: /, '')) };
    });
}

export interface SseOptions {
  /** The Accept header (text/event-stream unless given; null: none). */
  accept?: string | null;
  /** The X-API-Key (the admin key unless given; null: none). */
  key?: string | null;
  /** Destroys the request once that many events arrived (a client going away). */
  stopAfter?: number;
}

/** A POST to the app listening on `port`, its answer read as server-sent events when it is a stream. */
export function ssePost(port: number, path: string, body: unknown, opts: SseOptions = {}): Promise<SseAnswer & { stopped: boolean }> {
  const payload = JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) };
  const accept = opts.accept === undefined ? 'text/event-stream' : opts.accept;
  if (accept !== null) headers.accept = accept;
  const key = opts.key === undefined ? ADMIN_KEY : opts.key;
  if (key !== null) headers['x-api-key'] = key;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (piece: string) => {
        text += piece;
        if (opts.stopAfter !== undefined && parseEvents(text.slice(0, text.lastIndexOf('\n\n') + 2)).length >= opts.stopAfter) {
          req.destroy();
          resolve({ status: res.statusCode!, headers: res.headers, text, events: [], stopped: true });
        }
      });
      res.on('end', () => {
        const json = (res.headers['content-type'] ?? '').startsWith('text/event-stream');
        resolve({ status: res.statusCode!, headers: res.headers, text, events: json ? parseEvents(text) : [], stopped: false });
      });
      res.on('error', () => undefined);
    });
    req.on('error', (error) => {
      if (!req.destroyed || opts.stopAfter === undefined) reject(error);
    });
    req.end(payload);
  });
}

/** A streaming client that reads nothing until told to (stalledSsePost). */
export interface StalledClient {
  /** Starts reading at last: everything that came, once the server closed the connection (within STEP_MS). */
  readRest(): Promise<string>;
}

/**
 * A POST asking for a stream over a raw socket that reads nothing: paused before it connects, so
 * what the server writes fills the sockets' buffers and stays there.
 */
export function stalledSsePost(port: number, path: string, body: unknown, key: string = ADMIN_KEY): StalledClient {
  const payload = JSON.stringify(body);
  const socket = net.connect(port, '127.0.0.1');
  socket.pause();
  socket.on('connect', () =>
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\n` +
        `Content-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`,
    ),
  );
  socket.on('error', () => undefined);
  return {
    readRest: () =>
      new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        const timer = setTimeout(() => reject(new Error(`the server still held the connection after ${STEP_MS} ms more`)), STEP_MS);
        socket.on('data', (c: Buffer) => chunks.push(c));
        socket.on('close', () => {
          clearTimeout(timer);
          resolve(Buffer.concat(chunks).toString('utf8'));
        });
        socket.resume();
      }),
  };
}

/** The events whose frames came whole in a chunked HTTP answer cut anywhere (its head, chunk sizes, frames). */
export function wholeEvents(answer: string): SseEvent[] {
  let rest = answer.slice(answer.indexOf('\r\n\r\n') + 4);
  let body = '';
  for (;;) {
    const eol = rest.indexOf('\r\n');
    if (eol < 0) break;
    const size = Number.parseInt(rest.slice(0, eol), 16);
    body += rest.slice(eol + 2, eol + 2 + size);
    if (size === 0 || rest.length < eol + 2 + size + 2) break;
    rest = rest.slice(eol + 2 + size + 2);
  }
  return parseEvents(body.slice(0, body.lastIndexOf('\n\n') + 2));
}
