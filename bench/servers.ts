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

/** A zero-latency model speaking OpenAI chat completions, with usage. */
function fakeModelServer(): http.Server {
  return http.createServer(async (req, res) => {
    const body = JSON.parse(await readBody(req)) as { model: string; messages: Array<{ content: string }> };
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

const kind = process.argv[2];
const server = kind === 'bare' ? bareServer() : kind === 'fake' ? fakeModelServer() : kind === 'proxy' ? proxyServer(process.argv[3]!) : null;
if (server === null) {
  process.stderr.write('usage: servers.js bare|fake|proxy <target>\n');
  process.exit(2);
}
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`LISTENING ${(server.address() as AddressInfo).port}\n`));
