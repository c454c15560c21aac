import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: any;
}

/** How the receiver answers: 204, an error status, or never (it holds the request until released). */
export type ReceiverMode = { answer: number } | 'hang';

/**
 * A real loopback HTTP server standing in for an application's webhook endpoint. It can go down
 * (its port then refuses connections) and come back on the same port.
 */
export async function startReceiver() {
  const received: Received[] = [];
  let mode: ReceiverMode = { answer: 204 };
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ path: req.url ?? '', headers: req.headers, body, json: JSON.parse(body) });
      if (mode === 'hang') held.push(res);
      else res.writeHead(mode.answer, { 'content-type': 'text/plain' }).end(mode.answer < 300 ? '' : `receiver says ${mode.answer}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const stopListening = () =>
    new Promise<void>((resolve) => {
      for (const res of held.splice(0)) res.destroy();
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    received,
    port,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    set mode(next: ReceiverMode) {
      mode = next;
    },
    /** Answers the requests held in 'hang' mode. */
    release(status = 204) {
      for (const res of held.splice(0)) res.writeHead(status).end();
    },
    get heldCount() {
      return held.length;
    },
    down: stopListening,
    up: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
    close: stopListening,
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
