import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Reference servers for the benchmarks, each started in its own process by `run.ts`
 * (`node dist/bench/servers.js <kind>` prints `LISTENING <port>`).
 */
function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The ceiling for the runtime endpoints: parses the same JSON body and returns a fixed answer. */
function bareServer(): http.Server {
  const answer = JSON.stringify({ prompt_text: 'Write a one-line welcome for Ada.', variant_assigned: null, experiment_id: null, prompt_version: 1 });
  return http.createServer(async (req, res) => {
    JSON.parse(await readBody(req));
    res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
  });
}

/** Chunks of a streamed answer (bench/stream.ts): each after the previous one's write, on its own turn of the event loop. */
const STREAM_CHUNKS = Number(process.env.BENCH_FAKE_CHUNKS ?? 50);

/**
 * A streamed answer as OpenAI sends it: the role chunk and the first token in one write (so the
 * first bytes a client sees carry the first token), then a chunk per turn of the event loop, the
 * finish chunk, the usage chunk (asked for or not) and [DONE].
 */
function streamAnswer(model: string, res: http.ServerResponse): void {
  const frame = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(frame({ role: 'assistant', content: '' }) + frame({ content: 'w0 ' }));
  let sent = 1;
  const next = () => {
    if (res.destroyed) return;
    if (sent < STREAM_CHUNKS) {
      res.write(frame({ content: `w${sent++} ` }));
      setImmediate(next);
      return;
    }
    const usage = {
      id: 'chatcmpl-bench',
      object: 'chat.completion.chunk',
      created: 0,
      model,
      choices: [],
      usage: { prompt_tokens: 12, completion_tokens: STREAM_CHUNKS, total_tokens: 12 + STREAM_CHUNKS },
    };
    res.end(`${frame({}, 'stop')}data: ${JSON.stringify(usage)}\n\ndata: [DONE]\n\n`);
  };
  setImmediate(next);
}

/** A zero-latency model speaking OpenAI chat completions, with usage; a request with `"stream": true` is streamed. */
function fakeModelServer(): http.Server {
  return http.createServer(async (req, res) => {
    const body = JSON.parse(await readBody(req)) as { model: string; messages: Array<{ content: string }>; stream?: boolean };
    if (body.stream === true) {
      streamAnswer(body.model, res);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'chatcmpl-bench',
        object: 'chat.completion',
        created: 0,
        model: body.model,
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: `ok: ${body.messages.at(-1)?.content ?? ''}` } }],
        usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
      }),
    );
  });
}

/** A minimal keep-alive proxy in front of the fake model: the floor any gateway should approach. */
function proxyServer(target: string): http.Server {
  const url = new URL(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  return http.createServer(async (req, res) => {
    const body = await readBody(req);
    const upstream = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: '/v1/chat/completions',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (up) => {
        const chunks: Buffer[] = [];
        up.on('data', (c: Buffer) => chunks.push(c));
        up.on('end', () => res.writeHead(up.statusCode ?? 502, { 'content-type': 'application/json' }).end(Buffer.concat(chunks)));
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    upstream.end(body);
  });
}

/**
 * A minimal streaming proxy in front of the fake model: the request's body sent on with
 * `"stream": true`, the upstream answer piped back as it arrives. The floor for a streaming gateway.
 */
function streamProxyServer(target: string): http.Server {
  const url = new URL(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  return http.createServer(async (req, res) => {
    const body = JSON.stringify({ ...(JSON.parse(await readBody(req)) as object), stream: true });
    const upstream = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: '/v1/chat/completions',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    upstream.end(body);
  });
}

const kind = process.argv[2];
const server =
  kind === 'bare'
    ? bareServer()
    : kind === 'fake'
      ? fakeModelServer()
      : kind === 'proxy'
        ? proxyServer(process.argv[3]!)
        : kind === 'stream-proxy'
          ? streamProxyServer(process.argv[3]!)
          : null;
if (server === null) {
  process.stderr.write('usage: servers.js bare|fake|proxy|stream-proxy <target>\n');
  process.exit(2);
}
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`LISTENING ${(server.address() as AddressInfo).port}\n`));
