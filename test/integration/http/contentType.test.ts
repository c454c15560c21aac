import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';

// The runtime endpoints' cases are in test/contract/tables/body.ts; this is the same rule on a
// management endpoint, as `curl -d` without `-H 'content-type: application/json'` meets it.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.cleanup());

const PROMPT = JSON.stringify({ prompt_id: 'welcome', template: 'Hello {{name}}' });

describe('a JSON body sent without content-type: application/json', () => {
  it("answers 422 with FastAPI's item, whose message says how the body was sent and what to send, and stores nothing", async () => {
    const res = await t.request('POST', '/prompts', { raw: PROMPT, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      detail: [
        {
          type: 'model_attributes_type',
          loc: ['body'],
          msg: 'Input should be a valid dictionary or object to extract fields from (the body was sent as application/x-www-form-urlencoded; send JSON with the header content-type: application/json)',
          input: PROMPT,
        },
      ],
    });
    expect((await t.request('GET', '/prompts')).json.data).toEqual([]);
  });

  it('is read as JSON when there is no content-type at all', async () => {
    const res = await t.request('POST', '/prompts', { raw: PROMPT });
    expect(res.status).toBe(201);
    expect(res.json.prompt_id).toBe('welcome');
  });
});
