import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, browserMissing, expectAccessible, launchChromium, screenshot, signedInPage } from '../support/browser.js';
import { behave, FakeOpenAI } from '../support/fakeOpenAI.js';
import { processFixtures, type RunningServer } from '../support/processes.js';
import { timeLimit } from '../support/timeLimits.js';

/**
 * The run page and the version page of the console with tools, structured output and images
 * (docs/tools-and-structured-output.md), against the built server: what the page shows, and that
 * a data URL reaches neither the page nor the server's log.
 */
const skip = browserMissing();
const ADMIN = 'pl_a_browser-tools-admin-key-0000000000000';
const fx = processFixtures(ADMIN);
const WEATHER = {
  type: 'function',
  function: { name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};
const IMAGE = `data:image/png;base64,${'QUJD'.repeat(1000)}`;

let server: RunningServer;
let browser: Browser;
let fake: FakeOpenAI;
const api = apiClient(() => server.origin, ADMIN);

describe.skipIf(skip !== null)(`tools and structured output in the console${skip === null ? '' : ` (skipped: ${skip})`}`, () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());
  afterEach(async () => fake?.close());

  it('shows the tool calls, the validity of the output and the config sent, and never a data URL', {
    timeout: timeLimit({ starts: 1, steps: 19 }),
  }, async () => {
    fake = new FakeOpenAI();
    server = await fx.serve(undefined, { PROMPTLINE_PROVIDER_FAKE_BASE_URL: (await fake.start()).baseURL, LOG_LEVEL: 'debug' });
    const made = await api('POST', '/prompts', {
      prompt_id: 'weather',
      model: 'fake/m',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather in {{city}}, and what is on this map?' },
            { type: 'image_url', image_url: { url: '{{map}}' } },
          ],
        },
      ],
      tools: [WEATHER],
      tool_choice: 'required',
      response_format: { type: 'json_object' },
    });
    expect(made.status).toBe(201);
    fake.script([behave.ok({ content: 'Not JSON', toolCalls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }] })]);
    const run = await api('POST', '/run_prompt', { prompt_id: 'weather', inputs: { city: 'Oslo', map: IMAGE } });
    expect(run.status).toBe(200);
    expect(JSON.stringify(fake.requests.at(-1)!.body)).toContain(IMAGE);

    const page = await signedInPage(browser, server.origin, ADMIN);
    await page.goto(`${server.origin}/ui/runs/${run.json.run_id}`);
    await page.getByRole('heading', { name: 'Tool calls' }).waitFor();
    expect(await page.locator('[data-tool-call="get_weather"] .tool-arguments').textContent()).toBe('{\n  "city": "Oslo"\n}');
    expect(await page.locator('[data-fact="output-valid"]').textContent()).toBe('invalid: the output is not valid JSON');
    expect(await page.locator('[data-fact="tools"]').textContent()).toContain('get_weather');
    expect(await page.locator('[data-fact="tool-choice"]').textContent()).toBe('required');
    expect(await page.locator('[data-fact="response-format"]').textContent()).toBe('json_object');
    const message = await page.locator('.message-content').first().textContent();
    expect(message).toBe('Weather in Oslo, and what is on this map?\n[image: data:image/png;base64,…(4022 bytes)]');
    expect(await page.content()).not.toContain('QUJDQUJD');
    await expectAccessible(page);
    await screenshot(page, 'run-tools');

    await page.goto(`${server.origin}/ui/prompts/weather/versions/1`);
    await page.getByRole('heading', { name: 'Tools and output format' }).waitFor();
    expect(await page.locator('[data-fact="tools"]').textContent()).toContain('The weather in a city');
    expect(page.problems).toEqual([]);

    // The server logged every request at debug level, and never the image.
    expect(server.output()).toContain('"url":"/run_prompt"');
    expect(server.output()).not.toContain('QUJDQUJD');
  });
});
