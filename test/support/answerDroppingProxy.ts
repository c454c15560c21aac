import http from 'node:http';
import type net from 'node:net';

export interface AnswerDroppingProxy {
  url: string;
  /** Requests the proxy forwarded, by path. */
  forwarded: string[];
  /** The next request for `path` reaches the server, whose whole answer is read and never passed on: the client's connection is cut instead. */
  dropNextAnswer(path: string): void;
  close(): Promise<void>;
}

/**
 * An HTTP proxy in front of a real server that can lose an answer: the request is committed by the
 * server, the client never hears so (the case an Idempotency-Key exists for).
 */
export async function startAnswerDroppingProxy(target: string): Promise<AnswerDroppingProxy> {
  const forwarded: string[] = [];
  const dropping = new Set<string>();
  const sockets = new Set<net.Socket>();
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = req.url ?? '/';
    forwarded.push(path);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name))) as Record<
      string,
      string
    >;
    const upstream = await fetch(`${target}${path}`, { method: req.method, headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined });
    const body = Buffer.from(await upstream.arrayBuffer());
    if (dropping.delete(path.split('?')[0]!)) {
      req.socket.destroy();
      return;
    }
    const answerHeaders = Object.fromEntries(
      [...upstream.headers].filter(([name]) => !['transfer-encoding', 'content-encoding', 'connection', 'keep-alive'].includes(name)),
    );
    res.writeHead(upstream.status, answerHeaders);
    res.end(body);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    forwarded,
    dropNextAnswer: (path) => dropping.add(path),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
