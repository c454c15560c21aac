// A real loopback HTTP server speaking OpenAI's chat-completions protocol, scripted per request.
// Tests reach it through the real `openai` SDK, so only the network edge is fake.
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';

interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
  cached_tokens?: number;
  reasoning_tokens?: number;
}

export type Behaviour =
  | { type: 'success'; content?: string; model?: string; usage?: FakeUsage | null; delayMs?: number; toolCalls?: FakeToolCall[] }
  | { type: 'hang' }
  | { type: 'error'; status: number; message?: string; headers?: Record<string, string>; delayMs?: number }
  | { type: 'reset' }
  | { type: 'malformed' }
  | { type: 'stream'; opts: StreamOptions };

/**
 * How a streamed answer (a request with `"stream": true`) is sent: `chunks` pieces of text (or
 * `content` split in that many), `delayMs` apart; with `cutAfter` the connection is destroyed after
 * that many content chunks (a failure mid-stream); `toolCalls` sends tool-call pieces (after the text
 * when `content` is given too, else instead of it). The usage chunk is sent when the request asks for
 * it (`stream_options.include_usage`). A plain `ok` behaviour answers a streaming request as a stream
 * of the answer it would give (answerFor: its tool calls and JSON too).
 */
export interface StreamOptions {
  chunks?: number;
  content?: string;
  /**
   * Each of the `chunks` pieces is this function's text for its index (a long answer made as it is
   * sent, never held whole); instead of `content`.
   */
  piece?: (index: number) => string;
  delayMs?: number;
  /** Wait before the first chunk (headers are sent at once). */
  firstDelayMs?: number;
  cutAfter?: number;
  usage?: FakeUsage | null;
  model?: string;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
}

/** A function call the fake answers with (answerFor: by default, a call of the chosen tool whenever the request has tools). */
interface FakeToolCall {
  name: string;
  arguments: string;
}

/** Constructors for the scripted behaviours. */
export const behave = {
  ok: (opts: Omit<Extract<Behaviour, { type: 'success' }>, 'type'> = {}): Behaviour => ({ type: 'success', ...opts }),
  withoutUsage: (opts: { content?: string; model?: string } = {}): Behaviour => ({ type: 'success', usage: null, ...opts }),
  slow: (delayMs: number, opts: { content?: string; model?: string } = {}): Behaviour => ({ type: 'success', delayMs, ...opts }),
  hang: (): Behaviour => ({ type: 'hang' }),
  status: (status: number, message = `status ${status}`, headers: Record<string, string> = {}): Behaviour => ({
    type: 'error',
    status,
    message,
    headers,
  }),
  rateLimited: (headers: Record<string, string>): Behaviour => ({
    type: 'error',
    status: 429,
    message: 'Rate limit reached for requests',
    headers,
  }),
  serverError: (): Behaviour => ({ type: 'error', status: 500, message: 'The server had an error' }),
  badRequest: (message = "Invalid value for 'temperature'"): Behaviour => ({ type: 'error', status: 400, message }),
  unauthorized: (message = 'Incorrect API key provided: sk-test-****cret.'): Behaviour => ({ type: 'error', status: 401, message }),
  reset: (): Behaviour => ({ type: 'reset' }),
  malformed: (): Behaviour => ({ type: 'malformed' }),
  /** A streamed answer to a streaming request (a non-streaming request gets `ok` with the same content). */
  stream: (opts: StreamOptions = {}): Behaviour => ({ type: 'stream', opts }),
};

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (or the raw text when it is not JSON). */
  body: unknown;
  /** Local port of the client socket: equal ports mean a reused keep-alive connection. */
  clientPort: number;
  /** True when the client closed the connection before we answered. */
  clientClosed: boolean;
  /**
   * A streamed answer's bytes written so far. The fake writes as a server does, waiting for
   * 'drain' whenever write() refuses more: a client that stops reading stops the answer.
   */
  streamedBytes: number;
  /** How many writes of the streamed answer were refused (write() false), each waited out until 'drain'. */
  refusedWrites: number;
  /** True while the streamed answer waits for 'drain': its reader is not taking what was written. */
  waitingForDrain: boolean;
}

export class FakeOpenAI {
  readonly requests: RecordedRequest[] = [];
  private queue: Behaviour[] = [];
  private fallback: Behaviour = behave.ok();
  private picker: ((body: unknown) => Behaviour) | null = null;
  private active = 0;
  /** Highest number of requests being answered at the same time. */
  maxInFlight = 0;
  private readonly server = http.createServer((req, res) => void this.handle(req, res));
  private readonly timers = new Set<NodeJS.Timeout>();

  /** Queues behaviours for the next requests, in order; then the default applies. */
  script(behaviours: Behaviour[]): this {
    this.queue.push(...behaviours);
    return this;
  }

  setDefault(behaviour: Behaviour): this {
    this.fallback = behaviour;
    return this;
  }

  /**
   * Picks the behaviour from the request itself when the queue is empty (before the default): a
   * provider that fails more often for one prompt than another. Null: back to the default.
   */
  respondBy(pick: ((body: unknown) => Behaviour) | null): this {
    this.picker = pick;
    return this;
  }

  get inFlight(): number {
    return this.active;
  }

  async start(): Promise<{ baseURL: string }> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    return { baseURL: `http://127.0.0.1:${port}/v1` };
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/chat/completions')) {
      sendJson(res, 404, { error: { message: `Unknown path ${req.method} ${req.url}`, type: 'invalid_request_error' } });
      return;
    }
    let body: unknown = raw;
    try {
      body = JSON.parse(raw);
    } catch {
      // keep the raw text
    }
    const record: RecordedRequest = {
      method: req.method,
      url: req.url ?? '',
      headers: req.headers,
      body,
      clientPort: req.socket.remotePort ?? 0,
      clientClosed: false,
      streamedBytes: 0,
      refusedWrites: 0,
      waitingForDrain: false,
    };
    this.requests.push(record);
    res.on('close', () => {
      if (!res.writableFinished) record.clientClosed = true;
    });
    const behaviour = this.queue.shift() ?? this.picker?.(body) ?? this.fallback;
    this.active += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.active);
    res.on('close', () => {
      this.active -= 1;
    });
    await this.respond(behaviour, body, req, res, record);
  }

  private async respond(given: Behaviour, body: unknown, req: IncomingMessage, res: ServerResponse, record: RecordedRequest): Promise<void> {
    let b = given;
    if (b.type === 'hang') return; // never answers; close() destroys the socket
    if (b.type === 'reset') {
      req.socket.destroy();
      return;
    }
    if (b.type === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id":"chatcmpl-broken","object":"chat.completion","choices":[{"index":0,');
      return;
    }
    const streaming = (body as { stream?: unknown } | null)?.stream === true;
    if (b.type === 'stream' && streaming) return this.streamAnswer(b.opts, body, res, record);
    // A plain success asked for as a stream is streamed too: the same answer (text in 5 pieces, then its tool calls).
    if (b.type === 'success' && streaming) {
      const answer = answerFor(b, body, `fake answer to: ${(body as { messages?: Array<{ content?: string }> }).messages?.at(-1)?.content ?? ''}`);
      const calls = answer.toolCalls?.tool_calls as Array<{ id: string; function: { name: string; arguments: string } }> | undefined;
      const opts: StreamOptions = {
        ...(answer.content === null ? {} : { content: answer.content }),
        ...(calls ? { toolCalls: calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })) } : {}),
        ...(b.model ? { model: b.model } : {}),
        ...(b.delayMs ? { firstDelayMs: b.delayMs } : {}),
      };
      return this.streamAnswer(b.usage === undefined ? opts : { ...opts, usage: b.usage }, body, res, record);
    }
    if (b.type === 'stream') b = { type: 'success', ...(b.opts.content === undefined ? {} : { content: b.opts.content }) };
    if ((b.type === 'success' || b.type === 'error') && b.delayMs) await this.wait(b.delayMs);
    if (res.destroyed) return;
    if (b.type === 'error') {
      sendJson(res, b.status, { error: { message: b.message ?? `status ${b.status}`, type: 'fake_error', code: null } }, b.headers);
      return;
    }
    const requested = (body as { model?: string; messages?: Array<{ content?: string }> }) ?? {};
    const { content, toolCalls } = answerFor(b, body, `fake answer to: ${requested.messages?.at(-1)?.content ?? ''}`);
    const u = b.usage === undefined ? { prompt_tokens: 11, completion_tokens: 7 } : b.usage;
    const usage =
      u === null
        ? undefined
        : {
            prompt_tokens: u.prompt_tokens,
            completion_tokens: u.completion_tokens,
            total_tokens: u.total_tokens ?? u.prompt_tokens + u.completion_tokens,
            prompt_tokens_details: { cached_tokens: u.cached_tokens ?? 0, audio_tokens: 0 },
            completion_tokens_details: { reasoning_tokens: u.reasoning_tokens ?? 0, audio_tokens: 0 },
          };
    sendJson(res, 200, {
      id: `chatcmpl-${this.requests.length}`,
      object: 'chat.completion',
      created: 1_700_000_000,
      model: b.model ?? requested.model ?? 'unknown',
      choices: [
        { index: 0, message: { role: 'assistant', content, refusal: null, ...toolCalls }, finish_reason: toolCalls ? 'tool_calls' : 'stop', logprobs: null },
      ],
      ...(usage ? { usage } : {}),
    });
  }

  /** Server-sent `data:` chunks as OpenAI sends them: role, content pieces, finish, usage (if asked), [DONE]. */
  private async streamAnswer(o: StreamOptions, body: unknown, res: ServerResponse, record: RecordedRequest): Promise<void> {
    const requested = (body as { model?: string; stream_options?: { include_usage?: boolean } }) ?? {};
    const model = o.model ?? requested.model ?? 'unknown';
    const base = { id: `chatcmpl-${this.requests.length}`, object: 'chat.completion.chunk', created: 1_700_000_000, model };
    const send = async (chunk: unknown) => {
      if (res.destroyed) return;
      const line = `data: ${JSON.stringify(chunk)}\n\n`;
      record.streamedBytes += Buffer.byteLength(line);
      if (res.write(line)) return;
      record.refusedWrites += 1;
      record.waitingForDrain = true;
      await drained(res);
      record.waitingForDrain = false;
    };
    const choice = (delta: unknown, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] });
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    if (o.firstDelayMs) await this.wait(o.firstDelayMs);
    if (res.destroyed) return;
    await send(choice({ role: 'assistant', content: '', refusal: null }));
    // Tool calls alone, unless text is given too (a model may say something, then call).
    const pieces = o.toolCalls && o.content === undefined ? [] : o.piece ? madePieces(o.piece, o.chunks ?? 5) : streamPieces(o.content, o.chunks ?? 5);
    let sent = 0;
    for (const piece of pieces) {
      if (o.delayMs) await this.wait(o.delayMs);
      if (res.destroyed) return;
      if (o.cutAfter !== undefined && sent >= o.cutAfter) {
        res.socket?.destroy();
        return;
      }
      await send(choice({ content: piece }));
      if (res.destroyed) return;
      sent += 1;
    }
    for (const [index, call] of (o.toolCalls ?? []).entries()) {
      const half = Math.ceil(call.arguments.length / 2);
      await send(choice({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
      await send(choice({ tool_calls: [{ index, function: { arguments: call.arguments.slice(0, half) } }] }));
      await send(choice({ tool_calls: [{ index, function: { arguments: call.arguments.slice(half) } }] }));
    }
    await send(choice({}, o.toolCalls ? 'tool_calls' : 'stop'));
    const u = o.usage === undefined ? { prompt_tokens: 11, completion_tokens: sent } : o.usage;
    if (requested.stream_options?.include_usage && u !== null) {
      await send({
        ...base,
        choices: [],
        usage: {
          prompt_tokens: u.prompt_tokens,
          completion_tokens: u.completion_tokens,
          total_tokens: u.total_tokens ?? u.prompt_tokens + u.completion_tokens,
        },
      });
    }
    if (!res.destroyed) res.end('data: [DONE]\n\n');
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      this.timers.add(t);
    });
  }
}

/** Resolves once `res` can take more ('drain'), or is closed. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve();
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** `n` pieces made one at a time as they are sent. */
function* madePieces(piece: (index: number) => string, n: number): Generator<string> {
  for (let i = 0; i < n; i++) yield piece(i);
}

/** `content` in `n` pieces (cut at character boundaries), or `n` pieces "w0 w1 …". */
function streamPieces(content: string | undefined, n: number): string[] {
  if (content === undefined) return Array.from({ length: n }, (_, i) => `w${i} `);
  const size = Math.max(1, Math.ceil(content.length / n));
  const pieces: string[] = [];
  for (let i = 0; i < content.length; i += size) pieces.push(content.slice(i, i + size));
  return pieces;
}

/**
 * What a success answers, as a model given the request's tools and response_format would: a call of
 * the chosen tool (tool_choice, else the first; arguments `{}`) when the request has tools and the
 * script gives no content, JSON `{"answer": …}` when it asks for a json response_format, else the
 * scripted or default text. A request with none of these is answered as always.
 */
function answerFor(b: Extract<Behaviour, { type: 'success' }>, body: unknown, text: string): { content: string | null; toolCalls?: { tool_calls: unknown[] } } {
  const req = (body ?? {}) as { tools?: Array<{ function: { name: string } }>; tool_choice?: unknown; response_format?: { type?: string } };
  const choice = req.tool_choice as { function?: { name?: string } } | string | undefined;
  const wantsCall = req.tools !== undefined && req.tools.length > 0 && choice !== 'none' && b.content === undefined;
  const calls =
    b.toolCalls ??
    (wantsCall ? [{ name: (typeof choice === 'object' ? choice.function?.name : undefined) ?? req.tools![0]!.function.name, arguments: '{}' }] : []);
  if (calls.length > 0) {
    const toolCalls = calls.map((c, i) => ({ id: `call_${i + 1}`, type: 'function', function: { name: c.name, arguments: c.arguments } }));
    return { content: b.content ?? null, toolCalls: { tool_calls: toolCalls } };
  }
  const json = req.response_format?.type === 'json_object' || req.response_format?.type === 'json_schema';
  return { content: b.content ?? (json ? JSON.stringify({ answer: text }) : text) };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** A pino logger that keeps its records in memory, for asserting on warnings. */
export function memoryLogger(): { logger: Logger; records: Array<Record<string, unknown>> } {
  const records: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void records.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, records };
}
