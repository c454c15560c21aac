import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';

/**
 * Typed variables (docs/management-api.md, "Typed variables"): declarations refused at creation
 * when they do not fit the templates, and checked on every runtime route before the render.
 */
let t: TestApp;
const TYPED = {
  prompt_id: 'typed',
  template: 'Plan {{tier}}.{{#vip}} VIP!{{/vip}}{{^vip}} standard{{/vip}} Note: [{{note}}] code={{code}}',
  variables: {
    tier: { enum: ['free', 'pro'], description: 'the plan' },
    vip: { required: false },
    note: { required: false, default: 'none', max_length: 5 },
    code: { pattern: '^[A-Z]{2}\\d+$', min_length: 3 },
  },
};
const good = { tier: 'pro', code: 'AB12' };

beforeAll(async () => {
  t = await startTestApp();
  await givenPrompt(t, TYPED);
  await givenPrompt(t, { prompt_id: 'plain', template: 'Hi {{name}}' });
});
afterAll(async () => t.cleanup());

const create = (body: Record<string, unknown>) => t.request('POST', '/prompts', { body: { prompt_id: 'bad', ...body } });
const detail = (res: { json: { detail: Array<{ type: string; loc: unknown[]; msg: string }> } }) =>
  res.json.detail.map((d) => ({ type: d.type, loc: d.loc, msg: d.msg }));

describe('creating a version with declarations', () => {
  it('stores them normalised and keeps `variables` the template names', async () => {
    const version = (await t.request('GET', '/prompts/typed/versions/1')).json;
    expect(version.variables).toEqual(['tier', 'vip', 'note', 'code']);
    expect(version.declared_variables).toEqual({
      tier: { required: true, description: 'the plan', enum: ['free', 'pro'] },
      vip: { required: false },
      note: { required: false, max_length: 5, default: 'none' },
      code: { required: true, pattern: '^[A-Z]{2}\\d+$', min_length: 3 },
    });
    expect(Object.keys(version.declared_variables)).toEqual(['tier', 'vip', 'note', 'code']);
    expect((await t.request('GET', '/prompts/plain/versions/1')).json.declared_variables).toBeNull();
  });

  it('accepts declarations on a new version too', async () => {
    await givenPrompt(t, { prompt_id: 'later', template: 'Hi {{name}}' });
    const res = await t.request('POST', '/prompts/later/versions', { body: { template: 'Yo {{name}}', variables: { name: { max_length: 10 } } } });
    expect([res.status, res.json.declared_variables]).toEqual([201, { name: { required: true, max_length: 10 } }]);
  });

  it.each([
    ['an undeclared name', { template: '{{a}} {{b}}', variables: { a: {} } }, ['b'], 'not declared'],
    ['a declared name never used', { template: '{{a}}', variables: { a: {}, z: {} } }, ['z'], 'no template uses it'],
    ['a required variable with a default', { template: '{{a}}', variables: { a: { default: 'x' } } }, ['a', 'default'], 'only an optional'],
    [
      'a default breaking its rules',
      { template: '{{a}}', variables: { a: { required: false, default: 'xyz', max_length: 2 } } },
      ['a', 'default'],
      'at most 2',
    ],
    [
      'a default outside the enum',
      { template: '{{a}}', variables: { a: { required: false, default: 'c', enum: ['a', 'b'] } } },
      ['a', 'default'],
      "'a' or 'b'",
    ],
    ['min_length over max_length', { template: '{{a}}', variables: { a: { min_length: 3, max_length: 2 } } }, ['a', 'min_length'], 'greater than'],
    ['an empty enum', { template: '{{a}}', variables: { a: { enum: [] } } }, ['a', 'enum'], 'empty'],
    ['an invalid pattern', { template: '{{a}}', variables: { a: { pattern: '([a-z]' } } }, ['a', 'pattern'], 'not a valid regular expression'],
    ['a back-reference', { template: '{{a}}', variables: { a: { pattern: '^(a)\\1$' } } }, ['a', 'pattern'], 'which the linear-time engine does not support'],
    ['a name read inside a section, undeclared', { template: '{{#on}}Dear {{name}}{{/on}}', variables: { on: {} } }, ['name'], 'not declared'],
    ['a declared name read with a dot', { template: '{{user.name}}', variables: { user: {} } }, ['user'], 'is a string'],
    ['a pattern only valid without the u flag', { template: '{{a}}', variables: { a: { pattern: '\\-{' } } }, ['a', 'pattern'], 'not a valid'],
  ])('refuses %s (422 at body.variables…)', async (_, body, path, words) => {
    const res = await create(body);
    expect(res.status).toBe(422);
    expect(res.json.detail).toHaveLength(1);
    expect(res.json.detail[0]).toMatchObject({ type: 'value_error', loc: ['body', 'variables', ...path] });
    expect(res.json.detail[0].msg).toContain(words);
    expect((await t.request('GET', '/prompts/bad')).status).toBe(404);
  });

  it('refuses declarations without a version to hold them', async () => {
    const res = await t.request('POST', '/prompts', { body: { prompt_id: 'empty', variables: {} } });
    expect(detail(res)).toEqual([
      { type: 'value_error', loc: ['body', 'variables'], msg: 'Value error, variables belong to a version: give a template or messages' },
    ]);
  });

  it('refuses unknown keys and wrong types with pydantic items', async () => {
    const res = await create({ template: '{{a}}', variables: { a: { type: 'string', min_length: -1 } } });
    expect(detail(res)).toEqual([
      { type: 'greater_than_equal', loc: ['body', 'variables', 'a', 'min_length'], msg: 'Input should be greater than or equal to 0' },
      { type: 'extra_forbidden', loc: ['body', 'variables', 'a', 'type'], msg: 'Extra inputs are not permitted' },
    ]);
  });

  it('counts a section name as used, and {} declares nothing for a template without names', async () => {
    expect((await create({ prompt_id: 'sec', template: '{{#on}}x{{/on}}', variables: { on: { required: false } } })).status).toBe(201);
    expect((await create({ prompt_id: 'none', template: 'static', variables: {} })).json.version.declared_variables).toEqual({});
  });
});

const render = (inputs: Record<string, unknown>, route = '/get_prompt') =>
  t.request('POST', route, { body: route === '/get_prompt' || route === '/run_prompt' ? { prompt_id: 'typed', inputs } : { inputs } });
const ROUTES = ['/get_prompt', '/run_prompt', '/prompts/typed/versions/1/render', '/prompts/typed/versions/1/run'];

/** /run_prompt's inputs are strings by its own schema (a non-string is refused before any check of ours). */
const onlyStrings = (route: string) => route === '/run_prompt';

describe.each(ROUTES)('the runtime checks on %s', (route) => {
  it('serves valid inputs, filling optional ones (default, else "" which skips a section)', async () => {
    const res = await render(good, route);
    expect(res.status).toBe(200);
    const text = route === '/run_prompt' || route.endsWith('/run') ? res.json.output : res.json.prompt_text;
    expect(text).toContain('Plan pro. standard Note: [none] code=AB12');
    const vip = await render({ ...good, vip: 'yes', note: '' }, route);
    expect(route === '/run_prompt' || route.endsWith('/run') ? vip.json.output : vip.json.prompt_text).toContain('Plan pro. VIP! Note: [] code=AB12');
  });

  it('answers a missing required variable as the contract does today', async () => {
    const inputs = { code: 'AB12', extra: onlyStrings(route) ? 'x' : 1 };
    const res = await render(inputs, route);
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual([{ type: 'missing', loc: ['body', 'inputs', 'tier'], msg: 'Field required', input: inputs }]);
  });

  it('answers every broken rule at once, in declaration order, with pydantic types', async () => {
    const res = await render({ tier: 'gold', ...(onlyStrings(route) ? {} : { vip: 1 }), note: 'toolong', code: 'ab' }, route);
    expect(res.status).toBe(422);
    expect(res.text).toBe(
      JSON.stringify({
        detail: [
          {
            type: 'literal_error',
            loc: ['body', 'inputs', 'tier'],
            msg: "Input should be 'free' or 'pro'",
            input: 'gold',
            ctx: { expected: "'free' or 'pro'" },
          },
          ...(onlyStrings(route) ? [] : [{ type: 'string_type', loc: ['body', 'inputs', 'vip'], msg: 'Input should be a valid string', input: 1 }]),
          {
            type: 'string_too_long',
            loc: ['body', 'inputs', 'note'],
            msg: 'String should have at most 5 characters',
            input: 'toolong',
            ctx: { max_length: 5 },
          },
          { type: 'string_too_short', loc: ['body', 'inputs', 'code'], msg: 'String should have at least 3 characters', input: 'ab', ctx: { min_length: 3 } },
        ],
      }),
    );
    const pattern = await render({ tier: 'free', code: 'abc1' }, route);
    expect(pattern.json.detail).toEqual([
      {
        type: 'string_pattern_mismatch',
        loc: ['body', 'inputs', 'code'],
        msg: "String should match pattern '^[A-Z]{2}\\d+$'",
        input: 'abc1',
        ctx: { pattern: '^[A-Z]{2}\\d+$' },
      },
    ]);
    if (!onlyStrings(route)) {
      expect((await render({ tier: 'free', code: 'AB1', note: null }, route)).json.detail[0]).toMatchObject({ type: 'string_type', input: null });
    }
  });
});

describe('versions without declarations', () => {
  it('are served exactly as before: any JSON value, and missing names listed by the render', async () => {
    expect((await t.request('POST', '/get_prompt', { body: { prompt_id: 'plain', inputs: { name: 3 } } })).json.prompt_text).toBe('Hi 3');
    const res = await t.request('POST', '/get_prompt', { body: { prompt_id: 'plain', inputs: {} } });
    expect(res.text).toBe('{"detail":[{"type":"missing","loc":["body","inputs","name"],"msg":"Field required","input":{}}]}');
  });
});

describe('typed variables in experiments and impact', () => {
  it("check each variant's own declarations, and count their 422s as render failures", async () => {
    await givenPrompt(t, {
      prompt_id: 'exp',
      template: 'Hi {{name}}',
      labels: ['production'],
      versions: [{ template: 'Hi {{name}}', variables: { name: { max_length: 3 } } }],
    });
    await givenExperiment(t, { experiment_id: 'typed-exp', prompt_id: 'exp', variants: { plain: 1, typed: 2 }, start: true });
    const statuses: Record<string, number[]> = { plain: [], typed: [] };
    for (let i = 0; i < 40; i++) {
      const res = await t.request('POST', '/get_prompt', { body: { prompt_id: 'exp', external_user_id: `u${i}`, inputs: { name: 'Adalbert' } } });
      const variant = res.status === 200 ? (res.json.variant_assigned as string) : 'typed';
      statuses[variant]!.push(res.status);
    }
    expect(new Set(statuses.plain)).toEqual(new Set([200]));
    expect(new Set(statuses.typed)).toEqual(new Set([422]));
    const report = (await t.request('GET', '/experiments/typed-exp/results')).json;
    expect(report.variants.map((v: { render_failures: number }) => v.render_failures)).toEqual([0, statuses.typed!.length]);
  });

  it('impact: an optional declared variable is not a new required one', async () => {
    await givenPrompt(t, {
      prompt_id: 'imp',
      template: 'Hi {{name}}',
      labels: ['production'],
      versions: [{ template: 'Hi {{name}} {{tone}} {{lang}}', variables: { name: {}, tone: { required: false }, lang: {} } }],
    });
    const impact = (await t.request('GET', '/prompts/imp/versions/2/impact')).json;
    expect([impact.required_variables, impact.new_required_variables]).toEqual([['name', 'lang'], ['lang']]);
  });
});
