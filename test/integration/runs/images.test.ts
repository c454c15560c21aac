import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI } from '../../support/fakeOpenAI.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';

/**
 * Images in chat messages (docs/tools-and-structured-output.md, "Images"): content parts whose text
 * and URLs are templates, checked at creation and after rendering, sent upstream as parts, and
 * stored with data URLs as placeholders.
 */
let t: TestApp;
let fake: FakeOpenAI;
const MiB = 1024 * 1024;

const IMAGE_MESSAGES = [
  { role: 'system', content: 'Describe images.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is in {{what}}?' },
      { type: 'image_url', image_url: { url: '{{image_url}}', detail: 'low' } },
    ],
  },
];
/** A data URL of `chars` characters in all. */
const dataUrl = (chars: number) => {
  const head = 'data:image/png;base64,';
  return head + 'A'.repeat(chars - head.length);
};

beforeAll(async () => {
  fake = new FakeOpenAI();
  // Large enough bodies and renders that the image's own limit is the one reached.
  t = await startTestApp({
    PROMPTLINE_PROVIDER_FAKE_BASE_URL: (await fake.start()).baseURL,
    PROMPTLINE_BODY_LIMIT_BYTES: String(12 * MiB),
    PROMPTLINE_RENDER_MAX_BYTES: String(12 * MiB),
  });
  await givenPrompt(t, { prompt_id: 'vision', messages: IMAGE_MESSAGES as never, model: 'fake/m' });
});
afterAll(async () => {
  await t?.cleanup();
  await fake?.close();
});

const run = (inputs: Record<string, string>) => t.request('POST', '/run_prompt', { body: { prompt_id: 'vision', inputs } });
const create = (content: unknown) => t.request('POST', '/prompts', { body: { prompt_id: 'refused', messages: [{ role: 'user', content }] } });

describe('image parts are checked when a version is made', () => {
  it.each([
    [
      'a URL of another scheme',
      [{ type: 'image_url', image_url: { url: 'ftp://example.com/a.png' } }],
      ['body', 'messages', 0, 'content', 0, 'image_url', 'url'],
    ],
    [
      'a URL whose fixed start rules http(s) out',
      [{ type: 'image_url', image_url: { url: 'file:///{{path}}' } }],
      ['body', 'messages', 0, 'content', 0, 'image_url', 'url'],
    ],
  ])('refuses %s, storing nothing', async (_name, content, loc) => {
    const res = await create(content);
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(loc);
    expect((await t.request('GET', '/prompts/refused')).status).toBe(404);
  });

  it('refuses a part of an unknown type as pydantic does a tagged union', async () => {
    const res = await create([{ type: 'audio', audio: {} }]);
    expect(res.status).toBe(422);
    expect(res.json.detail[0]).toMatchObject({ type: 'union_tag_invalid', loc: ['body', 'messages', 0, 'content', 0] });
  });

  it('reports an image part missing its URL under its tag', async () => {
    const res = await create([{ type: 'image_url', image_url: {} }]);
    expect(res.json.detail[0]).toMatchObject({ type: 'missing', loc: ['body', 'messages', 0, 'content', 0, 'image_url', 'image_url', 'url'] });
  });

  it('answers a content that is neither text nor parts exactly as before', async () => {
    const res = await create(5);
    expect(res.json).toEqual({ detail: [{ type: 'string_type', loc: ['body', 'messages', 0, 'content'], msg: 'Input should be a valid string', input: 5 }] });
  });
});

describe('runs with images', () => {
  it('renders the URL and sends the parts upstream; /get_prompt shows them, its text an [image]', async () => {
    const res = await run({ what: 'this photo', image_url: 'https://example.com/cat.png' });
    expect(res.status).toBe(200);
    expect(fake.requests.at(-1)!.body).toMatchObject({
      messages: [
        { role: 'system', content: 'Describe images.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this photo?' },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } },
          ],
        },
      ],
    });
    const got = (await t.request('POST', '/get_prompt', { body: { prompt_id: 'vision', inputs: { what: 'it', image_url: 'https://example.com/cat.png' } } }))
      .json;
    expect(got.prompt_text).toBe('system: Describe images.\n\nuser: What is in it?\n[image]');
    expect(got.messages[1].content[1]).toEqual({ type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } });
  });

  it('sends a data URL whole and stores only its placeholder, in the inputs and the messages', async () => {
    const url = dataUrl(4096);
    const res = await run({ what: 'this', image_url: url });
    expect(res.status).toBe(200);
    expect(JSON.stringify(fake.requests.at(-1)!.body)).toContain(url);
    const placeholder = 'data:image/png;base64,…(4096 bytes)';
    const stored = await t.request('GET', `/runs/${res.json.run_id}`);
    expect(stored.text).not.toContain('AAAAAAAAAAAAAAAA');
    expect(stored.json.inputs.image_url).toBe(placeholder);
    expect(stored.json.messages[1].content[1].image_url.url).toBe(placeholder);
    expect((await t.request('GET', '/runs?prompt_id=vision&limit=1')).text).not.toContain('AAAAAAAAAAAAAAAA');
  });

  it('answers 422 naming the input for a data URL over 5 MiB, storing and sending nothing', async () => {
    const sent = fake.requests.length;
    const runs = (await t.request('GET', '/runs?prompt_id=vision')).json.data.length;
    const res = await run({ what: 'this', image_url: dataUrl(5 * MiB + 1) });
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(['body', 'inputs', 'image_url']);
    expect(res.json.detail[0].msg).toContain('more than the 5242880 allowed');
    expect(res.text.length).toBeLessThan(10_000);
    expect(fake.requests.length).toBe(sent);
    expect((await t.request('GET', '/runs?prompt_id=vision')).json.data.length).toBe(runs);
    // At the limit it goes through.
    expect((await run({ what: 'this', image_url: dataUrl(5 * MiB) })).status).toBe(200);
  });

  it.each([['javascript:alert(1)'], ['data:text/html;base64,PGgxPg==']])('answers 422 for the rendered URL %s', async (url) => {
    const res = await run({ what: 'this', image_url: url });
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(['body', 'inputs', 'image_url']);
  });

  it('leaves the prompt out of the SDK bundle: clients ask the server for it', async () => {
    const bundle = (await t.request('GET', '/sdk/bundle')).json;
    expect(bundle.prompts.map((p: { prompt_id: string }) => p.prompt_id)).not.toContain('vision');
  });
});
