// The writer of streamed answers (src/http/sse.ts, writeEventStream) on a real loopback socket:
// it asks its source for the next frame only once the connection took the last, and gives a
// client that has not taken the answer by the deadline no more time, the end of the answer included.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type EventStream, writeEventStream } from '../../../src/http/sse.js';

const frame = (chars: number) => `event: delta\ndata: ${JSON.stringify({ text: 'x'.repeat(chars) })}\n\n`;
const FRAME = frame(64 * 1024);
const SMALL = frame(1024);

interface Served {
  port: number;
  /** The writer's promise and its response, once the request came. */
  written: Promise<{ done: Promise<void>; res: http.ServerResponse }>;
  close(): Promise<void>;
}

let served: Served | undefined;
afterEach(async () => served?.close());

/** A server answering its one request with `stream(res)` written by writeEventStream; `highWaterMark`: its responses' buffer. */
async function serve(stream: (res: http.ServerResponse) => EventStream, highWaterMark?: number): Promise<Served> {
  let gotten!: (value: { done: Promise<void>; res: http.ServerResponse }) => void;
  const written = new Promise<{ done: Promise<void>; res: http.ServerResponse }>((resolve) => (gotten = resolve));
  const server = http.createServer(highWaterMark === undefined ? {} : { highWaterMark }, (_req, res) =>
    gotten({ done: writeEventStream(res, 200, {}, stream(res)), res }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    written,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A GET whose answer is never read (the socket paused before it connects). */
function stalledGet(port: number): net.Socket {
  const socket = net.connect(port, '127.0.0.1');
  socket.pause();
  socket.on('error', () => undefined);
  socket.on('connect', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
  return socket;
}

describe('writeEventStream', () => {
  it('asks for no frame while the connection holds back the last, and cuts a stalled client at the deadline', async () => {
    let asked = 0;
    let left = false;
    served = await serve((res) => ({
      deadlineAt: performance.now() + 500,
      frames: (async function* () {
        try {
          for (;;) {
            asked += 1;
            yield FRAME;
            // Asked again only once the connection took what write() had refused.
            expect(res.writableNeedDrain).toBe(false);
          }
        } finally {
          left = true;
        }
      })(),
    }));
    const socket = stalledGet(served.port);
    const { done, res } = await served.written;
    await done;
    expect(res.destroyed).toBe(true);
    expect(left).toBe(true);
    // What was asked for is what the sockets' buffers took, not an endless source.
    expect(asked * FRAME.length).toBeLessThan(64 * 1024 * 1024);
    socket.destroy();
  });

  it('cuts a client that has not taken the end of a finished answer by the deadline', async () => {
    // A response buffer so large that write() never refuses here: the answer ends with 256 KiB the
    // kernel has not taken, all written. Each frame waits for the loop's next turn, as a model's do:
    // Node holds a response's writes of one turn (it corks the socket) and hands them over after it.
    served = await serve(
      (res) => ({
        deadlineAt: performance.now() + 500,
        frames: (async function* () {
          while (res.writableLength < 256 * 1024) {
            yield SMALL;
            await new Promise(setImmediate);
          }
        })(),
      }),
      64 * 1024 * 1024,
    );
    const socket = stalledGet(served.port);
    const { done, res } = await served.written;
    await done;
    expect(res.writableEnded).toBe(true);
    expect(res.writableFinished).toBe(false);
    expect(res.destroyed).toBe(true);
    socket.destroy();
  });

  it('writes a reading client every frame and ends the answer, the connection kept for the next request', async () => {
    const frames = 200;
    served = await serve(() => ({
      deadlineAt: performance.now() + 600_000,
      frames: (async function* () {
        for (let i = 0; i < frames; i++) yield FRAME;
      })(),
    }));
    const answer = await fetch(`http://127.0.0.1:${served.port}/`);
    expect(answer.headers.get('content-type')).toBe('text/event-stream');
    expect(await answer.text()).toBe(FRAME.repeat(frames));
    const { done, res } = await served.written;
    await done;
    expect(res.writableFinished).toBe(true);
    expect(res.socket?.destroyed ?? false).toBe(false);
  });

  it('leaves its source at once when the client goes away', async () => {
    let left = false;
    served = await serve(() => ({
      deadlineAt: performance.now() + 600_000,
      frames: (async function* () {
        try {
          for (;;) yield FRAME;
        } finally {
          left = true;
        }
      })(),
    }));
    const socket = stalledGet(served.port);
    const { done } = await served.written;
    socket.destroy();
    await done;
    expect(left).toBe(true);
  });
});
