// Server-sent events (docs/streaming.md, "Events"): what a streamed answer is written as. Every
// frame is one `event:` line and one `data:` line of compact JSON (which never holds a raw newline),
// then a blank line.
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
