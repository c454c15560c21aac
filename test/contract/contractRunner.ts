/**
 * Runs contract tables against the real app: every case goes through Fastify's `inject` and, by
 * default, through a real loopback socket too (exact request bytes, Node's own HTTP parser), and
 * is compared on status, the exact body bytes, content-type, `allow` (405) and `location` (307).
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestApp, type TestApp } from '../support/harness.js';
import type { ContractCase, Transport } from './contractCase.js';

interface ContractContext {
  t: TestApp;
  port: number;
  fixtures: Record<string, string>;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

async function must(t: TestApp, method: string, url: string, body?: unknown, key: string = ADMIN_KEY): Promise<any> {
  const res = await t.request(method, url, { key, ...(body === undefined ? {} : { body }) });
  if (res.status < 200 || res.status > 299) throw new Error(`fixture ${method} ${url} answered ${res.status}: ${res.text}`);
  return res.json;
}

/** The app with the fixtures every table refers to (see contractCase.ts for the placeholders). */
async function startContractApp(): Promise<ContractContext> {
  const t = await startTestApp();
  await must(t, 'POST', '/prompts', { prompt_id: 'support', template: 'Hello {{name}}, about {{topic}}' });
  await must(t, 'POST', '/prompts', {
    prompt_id: 'chat',
    messages: [
      { role: 'system', content: 'You are {{tone}}.' },
      { role: 'user', content: '{{question}}' },
    ],
  });
  // A running experiment whose weights put every user (hash > 0) in variant b = version 2.
  await must(t, 'POST', '/prompts', { prompt_id: 'exp', template: 'V1 {{name}}' });
  await must(t, 'POST', '/prompts/exp/versions', { template: 'V2 {{name}}' });
  await must(t, 'POST', '/experiments', {
    experiment_id: 'exp_ab',
    prompt_id: 'exp',
    seed: 'contract',
    variants: [
      { key: 'a', version: 1, weight: 0.000001 },
      { key: 'b', version: 2, weight: 1_000_000 },
    ],
  });
  await must(t, 'POST', '/experiments/exp_ab/start');

  const revoked = await must(t, 'POST', '/keys', { name: 'revoked', role: 'runtime' });
  await must(t, 'DELETE', `/keys/${revoked.key_id}`);
  const expired = await t.expiredKey('runtime');
  const other = await t.keyFor('admin', 'other');
  await must(t, 'POST', '/prompts', { prompt_id: 'support', template: 'Other {{name}}' }, other);

  const runSupport = await must(t, 'POST', '/run_prompt', { prompt_id: 'support', inputs: { name: 'A', topic: 'B' } });
  const runChat = await must(t, 'POST', '/run_prompt', { prompt_id: 'chat', inputs: { tone: 'kind', question: 'Why?' } });
  const runExp = await must(t, 'POST', '/run_prompt', { prompt_id: 'exp', inputs: { name: 'A' }, external_user_id: 'u1' });
  // u2 gets an assignment (no run), so an outcome for u2 is attributed through it.
  await must(t, 'POST', '/get_prompt', { prompt_id: 'exp', inputs: { name: 'A' }, external_user_id: 'u2' });

  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (t.app.server.address() as AddressInfo).port;
  return {
    t,
    port,
    fixtures: {
      ADMIN: ADMIN_KEY,
      RUNTIME: await t.keyFor('runtime'),
      READ: await t.keyFor('read'),
      REVOKED: revoked.key,
      EXPIRED: expired,
      OTHER: other,
      RUN_SUPPORT: runSupport.run_id,
      RUN_CHAT: runChat.run_id,
      RUN_EXP: runExp.run_id,
    },
  };
}

const FIXTURE = /⟦([A-Z_]+)⟧/g;

function fill(text: string, fixtures: Record<string, string>): string {
  return text.replace(FIXTURE, (_m, name: string) => {
    const value = fixtures[name];
    if (value === undefined) throw new Error(`unknown fixture ${name}`);
    return value;
  });
}

/** Shapes a response-derived value must have to be substituted. */
const DERIVED: Record<string, RegExp> = {
  run_id: /^run_[0-9a-f]{32}$/,
  outcome_id: /^out_[0-9a-f]{32}$/,
  latency_ms: /^(0|[1-9][0-9]*)$/,
  prompt_tokens: /^(0|[1-9][0-9]*)$/,
  completion_tokens: /^(0|[1-9][0-9]*)$/,
  total_tokens: /^(0|[1-9][0-9]*)$/,
};

function derive(expected: string, actualText: string): string {
  if (!expected.includes('⟦=')) return expected;
  let actual: Record<string, unknown> = {};
  try {
    actual = JSON.parse(actualText) as Record<string, unknown>;
  } catch {
    // leave the placeholders in: the comparison fails and shows both
  }
  return expected.replace(/⟦=([a-z_]+)⟧/g, (m, field: string) => {
    const value = actual?.[field];
    const shape = DERIVED[field];
    if (shape === undefined) throw new Error(`no shape for derived field ${field}`);
    if ((typeof value !== 'string' && typeof value !== 'number') || !shape.test(String(value))) return m;
    return String(value);
  });
}

function headerList(headers: Record<string, string | string[]>, fixtures: Record<string, string>): Array<[string, string]> {
  const list: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : [value]) list.push([name, fill(v, fixtures)]);
  }
  return list;
}

function payloadOf(c: ContractCase, fixtures: Record<string, string>): Buffer | undefined {
  if (c.rawBody === undefined) return undefined;
  return Buffer.isBuffer(c.rawBody) ? c.rawBody : Buffer.from(fill(c.rawBody, fixtures), 'utf8');
}

async function viaInject(ctx: ContractContext, c: ContractCase): Promise<Answer> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of headerList(c.headers, ctx.fixtures)) {
    const prev = headers[name];
    headers[name] = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), value];
  }
  const payload = payloadOf(c, ctx.fixtures);
  const res = await ctx.t.app.inject({ method: c.method as 'POST', url: c.path, headers, ...(payload === undefined ? {} : { payload }) });
  return { status: res.statusCode, headers: res.headers as Answer['headers'], bytes: res.rawPayload };
}

/** One HTTP/1.1 exchange over a fresh loopback connection, request bytes written by hand. */
function viaSocket(ctx: ContractContext, c: ContractCase): Promise<Answer> {
  const payload = payloadOf(c, ctx.fixtures);
  const lines = [`${c.method} ${c.path} HTTP/1.1`, `Host: 127.0.0.1:${ctx.port}`];
  for (const [name, value] of headerList(c.headers, ctx.fixtures)) lines.push(`${name}: ${value}`);
  if (payload !== undefined) lines.push(`Content-Length: ${payload.length}`);
  lines.push('Connection: close', '', '');
  const head = Buffer.from(lines.join('\r\n'), 'latin1');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(ctx.port, '127.0.0.1');
    socket.on('data', (chunk) => chunks.push(chunk));
    // The server may answer (413) and close before reading everything we send: keep what arrived.
    socket.on('error', (err) => (chunks.length > 0 ? socket.destroy() : reject(err)));
    socket.on('close', () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks), c.method === 'HEAD'));
      } catch (err) {
        reject(err);
      }
    });
    socket.write(payload === undefined ? head : Buffer.concat([head, payload]));
  });
}

function parseResponse(raw: Buffer, head: boolean): Answer {
  const end = raw.indexOf('\r\n\r\n');
  if (end === -1) throw new Error(`incomplete response: ${JSON.stringify(raw.toString('latin1'))}`);
  const [statusLine, ...headerLines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine!)?.[1]);
  const headers: Answer['headers'] = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    const value = Buffer.from(line.slice(colon + 1).trim(), 'latin1').toString('utf8');
    const prev = headers[name];
    headers[name] = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), value];
  }
  let body = raw.subarray(end + 4);
  if (head) body = Buffer.alloc(0);
  else if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
  else if (typeof headers['content-length'] === 'string') body = body.subarray(0, Number(headers['content-length']));
  return { status, headers, bytes: body };
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf('\r\n', at);
    const size = parseInt(data.subarray(at, eol).toString('latin1'), 16);
    if (!size) return Buffer.concat(parts);
    parts.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

/**
 * The JSON value of a body as a client that parses it sees it: -0 read as 0, and validation items
 * compared as a set (their order follows key order, which is the documented deviation).
 */
function jsonValue(text: string): unknown {
  const value = JSON.parse(text, (_key, v: unknown) => (Object.is(v, -0) ? 0 : v)) as { detail?: unknown };
  if (Array.isArray(value.detail)) value.detail = value.detail.map((item) => JSON.stringify(item)).sort();
  return value;
}

/**
 * A case whose answer deliberately differs from FastAPI's in a message: the two must differ (else
 * the flag is stale), and only there, each of our items being FastAPI's with its `msg` extended.
 */
function expectOnlyMessagesExtended(ours: string, fastapi: string): void {
  expect(ours, 'a case that differs from FastAPI must differ, else drop its fastapi answer').not.toBe(fastapi);
  const items = (text: string) => (JSON.parse(text) as { detail: Array<{ msg: string }> }).detail;
  const [a, b] = [items(ours), items(fastapi)];
  expect(a.map(({ msg, ...rest }) => rest)).toEqual(b.map(({ msg, ...rest }) => rest));
  for (const [i, item] of a.entries()) expect(item.msg.startsWith(b[i]!.msg), `${item.msg} extends ${b[i]!.msg}`).toBe(true);
}

async function check(ctx: ContractContext, c: ContractCase, transport: Transport): Promise<void> {
  const res = transport === 'inject' ? await viaInject(ctx, c) : await viaSocket(ctx, c);
  const text = res.bytes.toString('utf8');
  const expected = derive(fill(c.body, ctx.fixtures), text);
  if (c.fastapi !== undefined) expectOnlyMessagesExtended(c.body, c.fastapi);
  if (c.deviation !== undefined) {
    expect(text, 'a deviation case must actually deviate, else drop its flag').not.toBe(expected);
    expect({ status: res.status, body: jsonValue(text) }).toEqual({ status: c.status, body: jsonValue(expected) });
  } else {
    expect({ status: res.status, body: text }).toEqual({ status: c.status, body: expected });
    expect(res.bytes.equals(Buffer.from(expected, 'utf8')), 'body bytes').toBe(true);
  }

  const contentType = c.contentType !== undefined ? c.contentType : c.status === 307 ? null : 'application/json';
  expect(res.headers['content-type'], 'content-type').toBe(contentType ?? undefined);
  if (c.status === 405) expect(res.headers.allow, 'allow').toBe(c.allow ?? 'POST');
  if (c.status === 307) {
    expect(c.location, 'a 307 case names its location').toBeTypeOf('string');
    expect(res.headers.location, 'location').toBe(c.location);
  } else {
    expect(res.headers.location, 'location').toBeUndefined();
  }
  if (expected.includes('"total_tokens":')) {
    const json = JSON.parse(text) as Record<string, number>;
    expect(json.total_tokens, 'total_tokens = prompt_tokens + completion_tokens').toBe(json.prompt_tokens! + json.completion_tokens!);
  }
  if (c.stored) {
    const id = (JSON.parse(text) as { outcome_id: string }).outcome_id;
    const row = await ctx.t.store.sql.get<Record<string, unknown>>('SELECT is_success, numeric_value, event_type FROM outcomes WHERE id = ?', [id]);
    expect(row, 'stored outcome').toMatchObject(c.stored);
  }
}

/** Defines one vitest test per case and transport, on a fresh app with the fixtures. */
export function defineContractSuite(title: string, cases: readonly ContractCase[]): void {
  const names = new Set<string>();
  for (const c of cases) {
    if (names.has(c.name)) throw new Error(`duplicate case name: ${c.name}`);
    names.add(c.name);
  }
  let ctx: ContractContext | undefined;
  beforeAll(async () => {
    ctx = await startContractApp();
  });
  afterAll(async () => {
    await ctx?.t.cleanup();
  });
  describe(title, () => {
    it('has cases', () => {
      expect(cases.length).toBeGreaterThan(0);
    });
    for (const c of cases) {
      for (const transport of c.transports ?? (['inject', 'socket'] as const)) {
        it(`${c.name} [${transport}]`, async () => {
          if (ctx === undefined) throw new Error('the contract app did not start');
          await check(ctx, c, transport);
        });
      }
    }
  });
}
