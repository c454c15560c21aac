// Server-sent events (docs/streaming.md, "Events"): what a streamed answer is written as. Every
// frame is one `event:` line and one `data:` line of compact JSON (which never holds a raw newline),
// then a blank line.
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { stringifyWithFloats } from './fastapi/floatJson.js';

/** Sent with every stream: no cache, and no buffering by a proxy in front (nginx reads X-Accel-Buffering). */
const SSE_HEADERS: Readonly<Record<string, string>> = { 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };

/** One frame; `floatKeys` as sendJson's (pydantic's floats written `0.0`). */
export function sseFrame(event: string, data: unknown, floatKeys?: ReadonlySet<string>): string {
  return `event: ${event}\ndata: ${floatKeys ? stringifyWithFloats(data, floatKeys) : JSON.stringify(data)}\n\n`;
}

/**
 * True when the caller asked for events: `Accept: text/event-stream`. Only the header: the runtime
 * contract ignores unknown body fields, `"stream": true` among them, and answers JSON to it.
 */
export function wantsEventStream(accept: string | undefined): boolean {
  return accept?.includes('text/event-stream') ?? false;
}

/** A route's answer of frames, written as they are made (a closed connection stops the iteration). */
export function eventStreamAnswer(frames: AsyncIterable<string>): {
  status: 200;
  headers: Record<string, string>;
  raw: { contentType: string; text: Readable };
} {
  return { status: 200, headers: { ...SSE_HEADERS }, raw: { contentType: 'text/event-stream', text: Readable.from(frames) } };
}

/**
 * An answer of events written as the client takes them (RouteResult.events). Used where each frame
 * is read from a model: the next frame is asked for only once the connection has taken the last.
 */
export interface EventStream {
  frames: AsyncIterable<string>;
  /**
   * performance.now() at the request's deadline: a client that has not taken what was written by
   * then loses its connection, and `frames` is left early (its source stops and keeps what it sent).
   */
  deadlineAt: number;
}

/**
 * Writes `stream` on `res` (the route hijacked its reply) with backpressure: when write() says the
 * connection's buffer is full (the client reads slower than the model writes, or not at all), no
 * further frame is asked for until 'drain'. So what is read from the model and held in memory is
 * what the client took, plus the response's own buffer (its highWaterMark, 16 KiB) and one frame;
 * the kernel's socket buffers hold the rest. A client still not taking the bytes at the deadline
 * has its connection closed. Resolves once the response has finished or been closed.
 */
export async function writeEventStream(
  res: ServerResponse,
  status: number,
  headers: Record<string, string | number | string[] | undefined>,
  stream: EventStream,
): Promise<void> {
  res.writeHead(status, { ...headers, ...SSE_HEADERS, 'content-type': 'text/event-stream' });
  const frames = stream.frames[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (let next = await frames.next(); next.done !== true; next = await frames.next()) {
      if (res.destroyed) return;
      if (!res.write(next.value) && !(await clientTook(res, 'drain', stream.deadlineAt))) return;
    }
    res.end();
    // Nothing left in the process: 'finish' follows on its own. Otherwise the client must take it.
    finished = res.writableLength === 0 || (await clientTook(res, 'finish', stream.deadlineAt));
  } finally {
    if (!finished) {
      // A reset rather than a FIN: the kernel drops at once what the client never took, where a FIN
      // would queue behind it and keep the socket, and its buffer, until delivery was given up.
      const socket = res.socket;
      if (socket && !socket.destroyed) socket.resetAndDestroy();
      res.destroy();
      // Left before its end (the client gone, or cut at the deadline): the source stops, and keeps what it sent.
      await oneAtATime(async () => {
        await frames.return?.();
      });
    }
  }
}

/** The last source left early, settled once it has finished (see oneAtATime). */
let lastLeft: Promise<void> = Promise.resolve();

/**
 * Runs `leave` after every earlier one has finished, in a turn of the event loop of its own.
 * Leaving a model's stream stores its run: the text its connection's buffers took (megabytes, on
 * loopback) and a tokenizer's count of it, which is tens of milliseconds each. Streams opened
 * together reach their deadline together: thirty left at once stalled the loop for two seconds
 * and stored their runs in one transaction, where one at a time each is a short pause.
 */
function oneAtATime(leave: () => Promise<void>): Promise<void> {
  const done = lastLeft.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(leave);
  lastLeft = done.catch(() => undefined);
  return done;
}

/**
 * True once the client took what was written (`drain`; `finish` after end()); false when the
 * connection closed first, or the deadline passed (at once if it has already).
 */
function clientTook(res: ServerResponse, event: 'drain' | 'finish', deadlineAt: number): Promise<boolean> {
  const left = deadlineAt - performance.now();
  if (left <= 0) return Promise.resolve(false);
  return new Promise((resolve) => {
    const settle = (took: boolean) => {
      clearTimeout(timer);
      res.off(event, onTaken);
      res.off('close', onClosed);
      resolve(took);
    };
    const onTaken = () => settle(true);
    const onClosed = () => settle(false);
    const timer = setTimeout(settle, left, false);
    res.once(event, onTaken);
    res.once('close', onClosed);
  });
}
