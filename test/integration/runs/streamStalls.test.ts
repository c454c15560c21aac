// A streamed run whose client stops reading (docs/streaming.md, "A client that stops reading"):
// the server reads the model's answer only as fast as the client takes it, and the request
// deadline closes the connection, aborts the provider's call and stores the run as cancelled
// with what was sent. Real sockets on both ends: a client that never reads, and the loopback
// provider streaming an answer far larger than any socket buffer, writing as a server does
// (waiting for 'drain' when its writes are refused).
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countChatTokens, countTextTokens } from '../../../src/providers/tokens.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { behave, FakeOpenAI } from '../../support/fakeOpenAI.js';
import { givenPrompt } from '../../support/fixtures.js';
import { ssePost, stalledSsePost, wholeEvents } from '../../support/sse.js';
import { testBackend } from '../../support/postgres.js';
import { timeLimit } from '../../support/timeLimits.js';

/** Small, so the tests wait little for it. */
const DEADLINE_MS = 5_000;
const PIECE_CHARS = 4_096;
/** 64 MiB of text: were the server to read it whole, no socket buffer could explain it. */
const LONG_PIECES = 16_384;
/** 8 MiB: more than the sockets' buffers hold, so a reading client is written with backpressure too. */
const READ_PIECES = 2_048;
/** Piece `i`: its number, then filler, so any text can be checked to be the answer's pieces in order. */
const piece = (i: number) => `${String(i).padStart(6, '0')}${'x'.repeat(PIECE_CHARS - 6)}`;
const answer = (pieces: number) => Array.from({ length: pieces }, (_, i) => piece(i)).join('');

let fake: FakeOpenAI;
/** The app with the small deadline, for the clients that stop reading. */
let t: TestApp;
let port: number;
/**
 * The same app with the default deadline, for the client that reads: how long a long answer takes
 * to read depends on the machine, and a reader slower than the deadline is cut too (that is the deadline).
 */
let reading: TestApp;
let readingPort: number;

beforeAll(async () => {
  fake = new FakeOpenAI();
  const { baseURL } = await fake.start();
  t = await startTestApp({
    PROMPTLINE_PROVIDER_FAKE_BASE_URL: baseURL,
    PROMPTLINE_MAX_RETRIES: '0',
    PROMPTLINE_REQUEST_DEADLINE_MS: String(DEADLINE_MS),
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
  for (const id of ['stalled-runtime', 'stalled-playground']) {
    await givenPrompt(t, { prompt_id: id, template: 'Tell {{who}} a long story', model: 'fake/gpt-4o-mini' });
  }
  reading = await startTestApp({ PROMPTLINE_PROVIDER_FAKE_BASE_URL: baseURL, PROMPTLINE_MAX_RETRIES: '0' });
  await reading.app.listen({ port: 0, host: '127.0.0.1' });
  readingPort = (reading.app.server.address() as AddressInfo).port;
  await givenPrompt(reading, { prompt_id: 'read', template: 'Tell {{who}} a long story', model: 'fake/gpt-4o-mini' });
});
afterAll(async () => {
  await Promise.all([t?.cleanup(), reading?.cleanup()]);
  await fake?.close();
});

/** The newest run of a prompt, once it is stored. */
async function storedRun(promptId: string, app = t): Promise<any> {
  await expect.poll(async () => (await app.request('GET', `/runs?prompt_id=${promptId}&limit=1`)).json.data.length).toBe(1);
  const { run_id } = (await app.request('GET', `/runs?prompt_id=${promptId}&limit=1`)).json.data[0];
  return (await app.request('GET', `/runs/${run_id}`)).json;
}

describe(`a streaming client that stops reading (${testBackend()})`, () => {
  it.each([
    ['POST /run_prompt', 'stalled-runtime', '/run_prompt', { prompt_id: 'stalled-runtime', inputs: { who: 'Ada' } }],
    ['the playground', 'stalled-playground', '/prompts/stalled-playground/versions/1/run', { inputs: { who: 'Ada' } }],
  ])(
    '%s: the provider is held back, and at the deadline the connection is closed and the run stored cancelled with what was sent',
    async (_what, promptId, path, body) => {
      fake.script([behave.stream({ chunks: LONG_PIECES, piece })]);
      const client = stalledSsePost(port, path, body);

      // The server stops reading: the provider's writes are refused and wait for a drain that does not come.
      await expect.poll(() => fake.requests.at(-1)?.waitingForDrain ?? false).toBe(true);
      const provider = fake.requests.at(-1)!;

      const run = await storedRun(promptId);
      expect(run).toMatchObject({ status: 'cancelled', error: null, ttft_ms: expect.any(Number) });
      // What was sent: the answer's first pieces, whole and in order, and only a small part of it.
      const pieces = run.output.length / PIECE_CHARS;
      expect(Number.isInteger(pieces) && pieces > 0).toBe(true);
      expect(run.output === answer(pieces)).toBe(true);
      expect(pieces).toBeLessThan(LONG_PIECES / 4);
      // The provider was never read to the end: held back, then its call aborted.
      expect(provider.refusedWrites).toBeGreaterThan(0);
      expect(provider.clientClosed).toBe(true);
      expect(provider.streamedBytes).toBeLessThan((LONG_PIECES * PIECE_CHARS) / 2);
      // No usage chunk came: the tokens are the tokenizer's count of the prompt sent and the text written.
      expect(run.tokens_estimated).toBe(true);
      expect(run.completion_tokens).toBe(countTextTokens('gpt-4o-mini', run.output).tokens);
      expect(run.prompt_tokens).toBe(countChatTokens('gpt-4o-mini', run.messages).tokens);

      // The connection was closed mid-answer: the client reads what its own buffer held, then the end
      // (a reset, which the client may see as an error or not), with no last chunk and no run event.
      const received = await client.readRest();
      expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(received.endsWith('\r\n0\r\n\r\n')).toBe(false);
      const events = wholeEvents(received);
      expect(events.length).toBeGreaterThan(0);
      expect(events.every((e) => e.event === 'delta')).toBe(true);
      expect(run.output.startsWith(events.map((e) => e.data.text).join(''))).toBe(true);
    },
    timeLimit({ steps: 3, ms: DEADLINE_MS }),
  );

  it('a client that reads gets the whole answer, longer than the sockets hold, with the provider’s usage', async () => {
    fake.script([behave.stream({ chunks: READ_PIECES, piece, usage: { prompt_tokens: 12, completion_tokens: READ_PIECES } })]);
    const res = await ssePost(readingPort, '/run_prompt', { prompt_id: 'read', inputs: { who: 'Ada' } });
    const events = res.events;
    expect(events.at(-1)!.event).toBe('run');
    const whole = answer(READ_PIECES);
    expect(
      events
        .filter((e) => e.event === 'delta')
        .map((e) => e.data.text)
        .join('') === whole,
    ).toBe(true);
    const run = await storedRun('read', reading);
    expect(run).toMatchObject({ status: 'ok', prompt_tokens: 12, completion_tokens: READ_PIECES, tokens_estimated: false });
    expect(run.output === whole).toBe(true);
    expect(events.at(-1)!.data).toMatchObject({ run_id: run.run_id, completion_tokens: READ_PIECES });
    expect(fake.requests.at(-1)!.clientClosed).toBe(false);
  });
});
