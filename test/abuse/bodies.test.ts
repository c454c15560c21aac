import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUNTIME_MAX } from '../../src/modules/runtimeLimits.js';
import { startTestApp, type TestApp } from '../support/harness.js';
import { givenPrompt } from '../support/fixtures.js';
import { healthDuring } from '../support/healthProbe.js';
import { callServer, startServer, tempDataDir, type RunningServer } from '../support/processes.js';

// Oversized and deeply nested input: a documented 4xx for each, nothing stored, the server unharmed.
let t: TestApp;
let runtime: string;
const count = (table: string) => t.sqlite.prepare(`SELECT count(*) FROM ${table}`).pluck().get();

beforeAll(async () => {
  t = await startTestApp();
  runtime = await t.keyFor('runtime');
  await givenPrompt(t);
});
afterAll(async () => t.cleanup());

const long = (n: number) => 'x'.repeat(n + 1);

describe('every string field of the runtime endpoints has a maximum length', () => {
  it.each([
    ['/track_outcome', 'prompt_id', RUNTIME_MAX.promptId],
    ['/track_outcome', 'prompt_run_id', RUNTIME_MAX.promptRunId],
    ['/track_outcome', 'external_user_id', RUNTIME_MAX.externalUserId],
    ['/track_outcome', 'event_type', RUNTIME_MAX.eventType],
    ['/track_outcome', 'label', RUNTIME_MAX.label],
    ['/track_outcome', 'value', RUNTIME_MAX.value],
    ['/track_outcome', 'source', RUNTIME_MAX.source],
    ['/get_prompt', 'prompt_id', RUNTIME_MAX.promptId],
    ['/get_prompt', 'external_user_id', RUNTIME_MAX.externalUserId],
    ['/run_prompt', 'prompt_id', RUNTIME_MAX.promptId],
    ['/run_prompt', 'external_user_id', RUNTIME_MAX.externalUserId],
  ])('%s %s: at most %d characters', async (url, field, max) => {
    const base: Record<string, unknown> = url === '/track_outcome' ? { prompt_id: 'p' } : { prompt_id: 'p', inputs: { name: 'A' } };
    const before = [count('outcomes'), count('runs')];
    const res = await t.request('POST', url, { key: runtime, body: { ...base, [field]: long(max) } });
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual([
      {
        type: 'string_too_long',
        loc: ['body', field],
        msg: `String should have at most ${max} characters`,
        // An echo is cut after 1000 characters (docs/runtime-contract.md, error answers are bounded).
        input: max < 1000 ? long(max) : `${'x'.repeat(1000)}…[truncated: ${max + 1 - 1000} more characters]`,
        ctx: { max_length: max },
      },
    ]);
    expect([count('outcomes'), count('runs')]).toEqual(before);
    // Exactly the maximum is accepted (validation passes; an unknown prompt is then a 404).
    const atMax = await t.request('POST', url, { key: runtime, body: { ...base, [field]: 'x'.repeat(max) } });
    expect([200, 404]).toContain(atMax.status);
  });

  it.each(['/get_prompt', '/run_prompt'])('%s: at most 256 inputs', async (url) => {
    const inputs = Object.fromEntries(Array.from({ length: RUNTIME_MAX.inputs + 1 }, (_, i) => [`k${i}`, 'v']));
    const res = await t.request('POST', url, { key: runtime, body: { prompt_id: 'p', inputs } });
    expect(res.status).toBe(422);
    expect(res.json.detail[0]).toMatchObject({
      type: 'too_long',
      loc: ['body', 'inputs'],
      msg: 'Dictionary should have at most 256 items after validation, not 257',
      ctx: { field_type: 'Dictionary', max_length: 256, actual_length: 257 },
    });
  });
});

describe('metadata is bounded in size and depth', () => {
  const nested = (depth: number): unknown => (depth === 1 ? {} : { a: nested(depth - 1) });

  it('accepts 10 levels and refuses 11', async () => {
    const ok = await t.request('POST', '/track_outcome', { key: runtime, body: { prompt_id: 'p', metadata: nested(10) } });
    expect(ok.status).toBe(200);
    const before = count('outcomes');
    const deep = await t.request('POST', '/track_outcome', { key: runtime, body: { prompt_id: 'p', metadata: nested(11) } });
    expect(deep.status).toBe(422);
    expect(deep.json.detail[0]).toMatchObject({ type: 'value_error', loc: ['body', 'metadata'], msg: 'Value error, metadata may nest at most 10 levels deep' });
    // Up to the body's nesting limit (100 levels, the body included) this is metadata's own 422;
    // deeper, the body is refused before it is parsed (below).
    const veryDeep = await t.request('POST', '/track_outcome', { key: runtime, body: { prompt_id: 'p', metadata: nested(99) } });
    expect(veryDeep.status).toBe(422);
    expect(veryDeep.json.detail[0]).toMatchObject({ type: 'value_error', loc: ['body', 'metadata'] });
    expect(count('outcomes')).toBe(before);
  });

  it('counts UTF-8 bytes of the stored JSON', async () => {
    const res = await t.request('POST', '/track_outcome', { key: runtime, body: { prompt_id: 'p', metadata: { note: 'é'.repeat(8_200) } } });
    expect(res.status).toBe(422);
    expect(res.json.detail[0].msg).toBe('Value error, metadata must serialise to at most 16384 bytes of JSON');
  });
});

describe('bodies beyond what the parser allows', () => {
  it.each([
    ['JSON nested deeper than Python parses', `{"prompt_id":"p","metadata":${'['.repeat(5000)}${']'.repeat(5000)}}`, 400],
    ['JSON nested 101 levels deep', `{"prompt_id":"p","extra":${'['.repeat(100)}${']'.repeat(100)}}`, 400],
    ['101 levels deep, and no valid JSON after them', `{"prompt_id":"p","extra":${'['.repeat(100)}`, 400],
    ['an integer of 5 000 digits', `{"prompt_id":"p","numeric_value":${'9'.repeat(5000)}}`, 400],
    ['a body over 1 MiB', `{"prompt_id":"p","value":"${'v'.repeat(1_048_576)}"}`, 413],
    ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), 400],
  ])('%s → %d', async (_name, raw, status) => {
    const before = count('outcomes');
    const res = await t.request('POST', '/track_outcome', { key: runtime, raw, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(status);
    expect(count('outcomes')).toBe(before);
  });

  it('JSON nested 100 levels deep, the limit, is read as usual', async () => {
    const raw = `{"prompt_id":"p","extra":${'['.repeat(99)}${']'.repeat(99)}}`;
    const res = await t.request('POST', '/track_outcome', { key: runtime, raw, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    // A body that is not JSON by its type is text, not parsed, and so not limited in depth.
    const text = await t.request('POST', '/track_outcome', { key: runtime, raw: '['.repeat(500), headers: { 'content-type': 'text/plain' } });
    expect(text.json.detail[0]).toMatchObject({ type: 'model_attributes_type', loc: ['body'] });
  });
});

describe('deep JSON from anonymous senders costs the server almost nothing', () => {
  const ADMIN = 'pl_a_abuse-bodies-admin-key-000000000000';
  let server: RunningServer;
  let dir: string;
  beforeAll(async () => {
    dir = tempDataDir();
    server = await startServer({ PROMPTLINE_DATA_DIR: dir, PROMPTLINE_BOOTSTRAP_ADMIN_KEY: ADMIN });
    expect((await callServer(server.origin, '/prompts', ADMIN, { prompt_id: 'p', template: 'Hi {{name}}' })).status).toBe(201);
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Completed /get_prompt calls per second of a legitimate client (4 at a time) over `ms`. */
  async function legitimateThroughput(ms: number): Promise<number> {
    const until = performance.now() + ms;
    let done = 0;
    const worker = async () => {
      while (performance.now() < until) {
        const res = await callServer(server.origin, '/get_prompt', ADMIN, { prompt_id: 'p', inputs: { name: 'A' } });
        expect(res.status).toBe(200);
        done++;
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    return done / (ms / 1000);
  }

  it('four senders of 1 MB of "[[[…]]]" without a key: each refused with 400, legitimate throughput and /healthz kept', async () => {
    const baseline = await legitimateThroughput(2_000);
    const attackers = deepJsonSenders(server.origin, 4);
    try {
      await new Promise((r) => setTimeout(r, 300));
      const { result: underAttack, health } = await healthDuring(server.origin, () => legitimateThroughput(3_000));
      const attack = await attackers.stop();
      console.log(
        `legitimate /get_prompt: ${baseline.toFixed(0)} req/s alone, ${underAttack.toFixed(1)} req/s beside 4 deep-JSON senders ` +
          `(${attack.sent} deep bodies answered: ${JSON.stringify(attack.statuses)}); /healthz p99 ${health.p99.toFixed(1)} ms, max ${health.max.toFixed(1)} ms`,
      );
      expect(Object.keys(attack.statuses)).toEqual(['400']);
      expect(attack.sent).toBeGreaterThan(20);
      expect(underAttack).toBeGreaterThan(baseline * 0.25);
      expect(health.failures).toEqual([]);
      expect(health.p99).toBeLessThan(100);
    } finally {
      await attackers.stop();
    }
  });
});

// The attackers run in a process of their own, so that the legitimate client in this process
// measures the server, not its own event loop shared with the senders.
const SENDERS_SCRIPT = `
const [origin, count] = process.argv.slice(1);
const body = Buffer.from('['.repeat(500000) + ']'.repeat(500000));
const statuses = {};
let sent = 0;
let stopping = false;
process.stdin.on('data', () => { stopping = true; });
const sender = async () => {
  while (!stopping) {
    try {
      const res = await fetch(origin + '/track_outcome', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      await res.arrayBuffer();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    } catch (error) {
      statuses[String(error?.cause?.code ?? error)] = (statuses[String(error?.cause?.code ?? error)] ?? 0) + 1;
    }
    sent++;
  }
};
Promise.all(Array.from({ length: Number(count) }, sender)).then(() => process.stdout.write(JSON.stringify({ sent, statuses })));
`;

function deepJsonSenders(origin: string, count: number): { stop(): Promise<{ sent: number; statuses: Record<string, number> }> } {
  const child = spawn(process.execPath, ['-e', SENDERS_SCRIPT, origin, String(count)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stopped: Promise<{ sent: number; statuses: Record<string, number> }> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        child.stdin.end('stop\n');
        const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        await exited;
        clearTimeout(killer);
        return JSON.parse(out || '{"sent":0,"statuses":{"senders died":1}}');
      })();
      return stopped;
    },
  };
}
