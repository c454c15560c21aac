import { givenExperiment, givenPrompt } from './fixtures.js';
import type { TestApp } from './harness.js';

/**
 * The conformance suites every client SDK must pass (sdk/conformance/*.json): a bundle, and cases of
 * a /get_prompt request with what the server answered to it. Generated here, from the real server,
 * so the files say what the server does, not what someone believed it does.
 */

interface Request {
  prompt_id: string;
  inputs: Record<string, unknown>;
  external_user_id?: string | null;
}

/** A case the client must not answer itself (`remote: true`): it asks the server (whose answer `status` is). */
interface CaseSpec {
  name: string;
  request: Request;
  remote?: true;
}

type Expected = { status: 200 | 422; body: unknown; exposure: { experiment_id: string; variant: string } | null } | { remote: true; status: number };

export interface ConformanceSuite {
  description: string;
  bundle: unknown;
  cases: Array<{ name: string; request: Request; expected: Expected }>;
}

/** The app the suites are generated on: the smallest render budget the server allows, so cases can reach it. */
export const CONFORMANCE_ENV = { PROMPTLINE_RENDER_MAX_BYTES: '65536', PROMPTLINE_RENDER_MAX_STEPS: '10000' };

async function answer(t: TestApp, key: string, specs: CaseSpec[]): Promise<ConformanceSuite['cases']> {
  const cases: ConformanceSuite['cases'] = [];
  for (const spec of specs) {
    const res = await t.request('POST', '/get_prompt', { key, body: spec.request });
    if (spec.remote) {
      cases.push({ name: spec.name, request: spec.request, expected: { remote: true, status: res.status } });
      continue;
    }
    if (res.status !== 200 && res.status !== 422) throw new Error(`case '${spec.name}': the server answered ${res.status}: ${res.text}`);
    const userId = spec.request.external_user_id;
    const stored =
      typeof userId === 'string'
        ? await t.store.sql.get<{ experiment_id: string; variant: string }>(
            `SELECT a.experiment_id, a.variant FROM assignments a JOIN experiments e ON e.project_id = a.project_id AND e.id = a.experiment_id
            WHERE e.prompt_id = ? AND e.status = 'running' AND a.external_user_id = ?`,
            [spec.request.prompt_id, userId],
          )
        : undefined;
    cases.push({ name: spec.name, request: spec.request, expected: { status: res.status, body: res.json, exposure: stored ?? null } });
  }
  return cases;
}

async function bundleOf(t: TestApp, key: string): Promise<unknown> {
  const res = await t.request('GET', '/sdk/bundle', { key });
  if (res.status !== 200) throw new Error(`GET /sdk/bundle answered ${res.status}: ${res.text}`);
  return res.json;
}

const req = (prompt_id: string, inputs: Record<string, unknown>, external_user_id?: string | null): Request =>
  external_user_id === undefined ? { prompt_id, inputs } : { prompt_id, inputs, external_user_id };

async function renderingSuite(t: TestApp): Promise<ConformanceSuite> {
  const admin = await t.keyFor('admin', 'rendering');
  await givenPrompt(t, { key: admin, prompt_id: 'values', template: '[{{s}}|{{n}}|{{b}}|{{z}}|{{o}}|{{a}}|{{d.e.f}}|{{a.length}}|{{a.1}}]' });
  await givenPrompt(t, {
    key: admin,
    prompt_id: 'sections',
    template: '{{#list}}<{{.}}>{{/list}}{{^list}}empty{{/list}}|{{#obj}}{{k}}{{/obj}}|{{#flag}}yes{{/flag}}{{^flag}}no{{/flag}}|{{#num}}n={{num}}{{/num}}',
  });
  await givenPrompt(t, { key: admin, prompt_id: 'nested', template: '{{#rows}}{{#cells}}[{{v}}:{{k}}:{{top}}]{{/cells}};{{/rows}}' });
  await givenPrompt(t, { key: admin, prompt_id: 'standalone', template: 'start\n{{#s}}\n  inside {{x}}\n{{/s}}\n{{! a comment }}\nend {{^s}}none{{/s}}' });
  await givenPrompt(t, {
    key: admin,
    prompt_id: 'chat',
    messages: [
      { role: 'system', content: 'You help {{user.name}} ({{user.tier}}).' },
      { role: 'user', content: '{{question}}' },
      { role: 'assistant', content: '{{#hints}}- {{.}}\n{{/hints}}{{^hints}}no hints{{/hints}}' },
    ],
  });
  await givenPrompt(t, { key: admin, prompt_id: 'steps', template: '{{#a}}{{#a}}{{#a}}{{x}}{{/a}}{{/a}}{{/a}}' });
  await givenPrompt(t, { key: admin, prompt_id: 'bytes', template: `{{#a}}${'0123456789'.repeat(100)}{{/a}}` });
  await givenPrompt(t, { key: admin, prompt_id: 'labelled', template: 'v1 {{x}}', labels: ['production'], versions: ['v2 {{x}}'] });
  await givenPrompt(t, { key: admin, prompt_id: 'latest', template: 'v1 {{x}}', versions: ['v2 {{x}}'] });

  const full = { s: 'text', n: 1.5, b: true, z: null, o: { k: 'v' }, a: ['x', 'y'], d: { e: { f: 'deep' } } };
  const numbers: Array<[string, unknown]> = [
    ['an integer', 42],
    ['a float', 0.1],
    ['a large one', 1e21],
    ['a small one', 1e-7],
    ['a negative zero', -0],
    ['a negative', -12.5],
    // JSON's digits past 2^53 are rounded to a double by the server (and by this literal's parse).
    ['past 2^53', Number('12345678901234567890')],
    ['the largest double', 1.7976931348623157e308],
  ];
  const specs: CaseSpec[] = [
    { name: 'every kind of value', request: req('values', full) },
    ...numbers.map(([what, n]): CaseSpec => ({ name: `a number: ${what}`, request: req('values', { ...full, n }) })),
    {
      name: 'structures as JSON, integer-like keys first',
      request: req('values', { ...full, o: { b: 1, 2: [1.5, true, null], 1: 'é', '01': 0, 4294967295: 1, 4294967294: 2 } }),
    },
    { name: 'JSON escapes in a structure', request: req('values', { ...full, o: { q: 'q"\\\n\u001f\u007f\u2028' } }) },
    { name: 'unicode as is, a lone surrogate too', request: req('values', { ...full, s: 'ü 😀 \ud800 \u2028' }) },
    { name: 'a string has no own keys: its length and items are missing', request: req('values', { ...full, a: '123' }) },
    { name: 'one missing variable', request: req('values', { ...full, s: undefined }) },
    { name: 'missing variables, each once, in order', request: req('values', { n: 1 }) },
    { name: 'a missing dotted name is named whole', request: req('values', { ...full, d: { e: {} } }) },
    { name: 'extra inputs are ignored', request: req('values', { ...full, extra: 'x' }) },
    {
      name: 'sections over a list, an object, true and a number',
      request: req('sections', { list: [1, 'two', { x: 3 }], obj: { k: 'K' }, flag: true, num: 7 }),
    },
    { name: 'falsy: empty list, false, zero; an empty object is truthy', request: req('sections', { list: [], obj: {}, flag: false, num: 0 }) },
    { name: 'a missing section is missing; a missing inverted section renders', request: req('sections', { obj: { k: 1 }, num: '' }) },
    { name: 'null and an empty string are falsy', request: req('sections', { list: null, obj: null, flag: '', num: null }) },
    {
      name: 'nested sections look up through the stack',
      request: req('nested', { top: 'T', rows: [{ cells: [{ v: 1, k: 'a' }, { v: 2 }], k: 'row-k' }, { cells: [] }] }),
    },
    { name: 'a name missing at every level', request: req('nested', { rows: [{ cells: [{ v: 1 }] }] }) },
    { name: 'standalone tags take their line', request: req('standalone', { s: true, x: 'X' }) },
    { name: 'standalone tags, section off', request: req('standalone', { s: false }) },
    { name: 'a chat prompt', request: req('chat', { user: { name: 'Ada', tier: 'pro' }, question: 'Why?', hints: ['one', 'two'] }) },
    { name: 'a chat prompt, missing names across messages', request: req('chat', { user: { name: 'Ada' }, hints: [] }) },
    { name: 'the step budget', request: req('steps', { a: Array.from({ length: 30 }, (_, i) => i), x: 'x' }) },
    { name: 'the byte budget', request: req('bytes', { a: Array.from({ length: 70 }, (_, i) => i) }) },
    { name: 'just under the byte budget', request: req('bytes', { a: Array.from({ length: 65 }, (_, i) => i) }) },
    { name: 'the production label is served', request: req('labelled', { x: '1' }) },
    { name: 'without a production label, the latest version', request: req('latest', { x: '1' }) },
    { name: 'a user id changes nothing without an experiment', request: req('latest', { x: '1' }, 'user-1') },
    { name: 'an unknown prompt is the server’s 404', request: req('nope', {}), remote: true },
    { name: 'a NUL character is the server’s 422', request: req('values', { ...full, s: 'a\u0000b' }), remote: true },
    { name: 'a NUL character in a key', request: req('values', { ...full, 'k\u0000': 'x' }), remote: true },
    {
      name: 'more inputs than allowed',
      request: req('values', { ...full, ...Object.fromEntries(Array.from({ length: 256 }, (_, i) => [`k${i}`, 'v'])) }),
      remote: true,
    },
    { name: 'an over-long user id', request: req('values', full, 'u'.repeat(257)), remote: true },
    { name: 'a lone surrogate in a user id is the server’s 422', request: req('values', full, 'u\ud800'), remote: true },
    // Errors are answered locally only well within the server's bounds on what it echoes (docs/sdks.md).
    { name: 'an error echoing a 500-character string', request: req('values', { s: 'x'.repeat(500) }) },
    { name: 'an error echoing a 501-character string', request: req('values', { s: 'x'.repeat(501) }), remote: true },
    { name: 'an error echoing a string the server cuts', request: req('values', { big: 'x'.repeat(1500) }), remote: true },
    {
      name: 'an error echoing over 2 048 bytes',
      request: req('values', {
        cjk: ['中'.repeat(100), '中'.repeat(100), '中'.repeat(100), '中'.repeat(100), '中'.repeat(100), '中'.repeat(100), '中'.repeat(100)],
      }),
      remote: true,
    },
  ];
  // JSON has no undefined: a case's request is what goes on the wire.
  for (const spec of specs) spec.request = JSON.parse(JSON.stringify(spec.request)) as Request;
  return {
    description: 'Rendering: values, sections, the budget, chat prompts, labels; requests the server refuses for their shape go to the server.',
    bundle: await bundleOf(t, admin),
    cases: await answer(t, admin, specs),
  };
}

async function experimentsSuite(t: TestApp): Promise<ConformanceSuite> {
  const admin = await t.keyFor('admin', 'experiments');
  await givenPrompt(t, { key: admin, prompt_id: 'welcome', template: 'Hello {{name}}', labels: ['production'], versions: ['Hi {{name}}!', 'Hey {{name}}'] });
  await givenExperiment(t, {
    key: admin,
    experiment_id: 'welcome-test',
    prompt_id: 'welcome',
    variants: [
      { key: 'control', version: 1, weight: 1 },
      { key: 'warm', version: 2, weight: 2 },
      { key: 'casual', version: 3, weight: 1 },
    ],
    start: false,
  });
  if ((await t.request('PATCH', '/experiments/welcome-test', { key: admin, body: { coverage: 0.6, seed: 'conformance-seed' } })).status !== 200)
    throw new Error('could not set the coverage');
  if ((await t.request('POST', '/experiments/welcome-test/start', { key: admin })).status !== 200) throw new Error('could not start welcome-test');
  await givenPrompt(t, {
    key: admin,
    prompt_id: 'assistant',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: '{{question}}' },
    ],
    versions: [
      {
        messages: [
          { role: 'system', content: 'Be thorough, {{name}}.' },
          { role: 'user', content: '{{question}}' },
        ],
      },
    ],
  });
  await givenExperiment(t, { key: admin, experiment_id: 'assistant-test', prompt_id: 'assistant', variants: { brief: 1, thorough: 2 }, start: true });
  // remote_only: weights changed while paused, after users were assigned.
  await givenPrompt(t, { key: admin, prompt_id: 'moved', template: 'A', versions: ['B'] });
  await givenExperiment(t, { key: admin, experiment_id: 'moved-test', prompt_id: 'moved', start: true });
  await t.request('POST', '/get_prompt', { key: admin, body: { prompt_id: 'moved', external_user_id: 'early' } });
  await t.request('POST', '/experiments/moved-test/pause', { key: admin });
  await t.request('PATCH', '/experiments/moved-test', {
    key: admin,
    body: {
      variants: [
        { key: 'a', version: 1, weight: 9 },
        { key: 'b', version: 2, weight: 1 },
      ],
    },
  });
  await t.request('POST', '/experiments/moved-test/start', { key: admin });

  const bundle = await bundleOf(t, admin);
  const users = [...Array.from({ length: 200 }, (_, i) => `user-${i}`), 'ü-1', '😀', 'x'.repeat(256), 'a b', '0', ''];
  const specs: CaseSpec[] = [
    ...users.map((user): CaseSpec => ({ name: `a text prompt, user '${user.slice(0, 20)}'`, request: req('welcome', { name: 'Ada' }, user) })),
    ...users
      .slice(0, 40)
      .map((user): CaseSpec => ({ name: `a chat prompt, user '${user}'`, request: req('assistant', { name: 'Ada', question: 'Why?' }, user) })),
    { name: 'no user while an experiment runs', request: req('welcome', { name: 'Ada' }) },
    { name: 'a null user while an experiment runs', request: req('welcome', { name: 'Ada' }, null) },
    { name: 'an assigned user, a missing variable: exposed and refused', request: req('welcome', {}, 'user-1') },
    { name: 'a missing variable only in the assigned version', request: req('assistant', { question: 'Why?' }, 'user-3') },
    { name: 'an experiment only the server can assign', request: req('moved', {}, 'early'), remote: true },
  ];
  return {
    description: 'Assignment: a three-variant experiment at 60% coverage with its own seed, a chat experiment, an experiment only the server can assign.',
    bundle,
    cases: await answer(t, admin, specs),
  };
}

async function typedSuite(t: TestApp): Promise<ConformanceSuite> {
  const admin = await t.keyFor('admin', 'typed');
  await givenPrompt(t, {
    key: admin,
    prompt_id: 'plan',
    template: 'Plan {{tier}}.{{#vip}} VIP!{{/vip}}{{^vip}} standard{{/vip}} Note: [{{note}}] code={{code}}',
    variables: {
      tier: { enum: ['free', 'pro', "it's"], description: 'the plan' },
      vip: { required: false },
      note: { required: false, default: 'none', max_length: 5 },
      code: { pattern: '^[A-Z]{2}\\d+$', min_length: 3 },
    },
  });
  await givenPrompt(t, {
    key: admin,
    prompt_id: 'greet',
    template: 'Hello {{name}}',
    labels: ['production'],
    versions: [{ template: 'Hi {{name}}', variables: { name: { max_length: 3 } } }],
  });
  await givenExperiment(t, { key: admin, experiment_id: 'greet-test', prompt_id: 'greet', variants: { plain: 1, typed: 2 }, start: true });
  const ok = { tier: 'pro', code: 'AB12' };
  const specs: CaseSpec[] = [
    { name: 'valid inputs, optional ones filled (a default, else "")', request: req('plan', ok) },
    { name: 'an optional section driven by a string', request: req('plan', { ...ok, vip: 'yes', note: '' }) },
    { name: 'extra inputs are still allowed', request: req('plan', { ...ok, extra: 1 }) },
    { name: 'a required variable absent', request: req('plan', { code: 'AB12' }) },
    { name: 'every rule broken at once, in declaration order', request: req('plan', { tier: 'gold', vip: 1, note: 'toolong', code: 'ab' }) },
    { name: 'a pattern mismatch', request: req('plan', { tier: 'free', code: 'abc1' }) },
    { name: 'null is not a string', request: req('plan', { tier: 'free', code: 'AB1', note: null }) },
    { name: 'structures are not strings', request: req('plan', { tier: ['pro'], code: { v: 'AB1' } }) },
    { name: 'lengths in code points', request: req('plan', { ...ok, note: '😀😀😀😀😀' }) },
    { name: 'lengths in code points, one over', request: req('plan', { ...ok, note: '😀😀😀😀😀😀' }) },
    { name: 'a quote in an enum value', request: req('plan', { ...ok, tier: "it's" }) },
    ...['user-1', 'user-2', 'user-3', 'user-4', 'user-5', 'user-6'].map(
      (user): CaseSpec => ({ name: `each variant applies its own declarations, user ${user}`, request: req('greet', { name: 'Adalbert' }, user) }),
    ),
  ];
  return {
    description:
      'Typed variables: declared inputs checked before the render (missing, not a string, enum, lengths, pattern), defaults, and variants with their own declarations.',
    bundle: await bundleOf(t, admin),
    cases: await answer(t, admin, specs),
  };
}

export async function generateConformance(t: TestApp): Promise<Record<string, ConformanceSuite>> {
  return { 'rendering.json': await renderingSuite(t), 'experiments.json': await experimentsSuite(t), 'typed.json': await typedSuite(t) };
}
