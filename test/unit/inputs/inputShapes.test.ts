import { describe, expect, it } from 'vitest';
import { measureCalls } from '../../../src/modules/inputs/impact.js';
import { hourOf, InputShapeTally, keptShape, OTHER_SHAPE, SHAPE_LIMITS, shapeOf } from '../../../src/modules/inputs/inputShapes.js';
import { requiredVariables } from '../../../src/modules/prompts/requirements.js';
import { compileVersion } from '../../../src/modules/prompts/versionContent.js';

const AT = Date.parse('2026-11-27T14:59:59.999Z');

describe('shapeOf', () => {
  it.each([
    [{}, '[]'],
    [{ b: 1, a: 2 }, '["a","b"]'],
    [{ B: 1, a: 1, _: 1 }, '["B","_","a"]'], // code-unit order, as the database's "C" collation
    [Object.fromEntries(Array.from({ length: SHAPE_LIMITS.namesPerSet }, (_, i) => [`n${i}`, 1])), expect.stringMatching(/^\["n0",/)],
    [Object.fromEntries(Array.from({ length: SHAPE_LIMITS.namesPerSet + 1 }, (_, i) => [`n${i}`, 1])), OTHER_SHAPE],
    [{ ['x'.repeat(SHAPE_LIMITS.nameLength)]: 1 }, `["${'x'.repeat(SHAPE_LIMITS.nameLength)}"]`],
    [{ ['x'.repeat(SHAPE_LIMITS.nameLength + 1)]: 1 }, OTHER_SHAPE],
  ])('%j → %s', (inputs, shape) => {
    expect(shapeOf(inputs)).toEqual(shape);
  });
});

describe('InputShapeTally', () => {
  it('counts per prompt, hour, set of names and user id sent, and drains empty', () => {
    const tally = new InputShapeTally();
    tally.add('p1', 'a', AT, { x: 1 }, false);
    tally.add('p1', 'a', AT, { x: 2 }, false);
    tally.add('p1', 'a', AT, { x: 2 }, true);
    tally.add('p1', 'a', AT + 1, { x: 1 }, false); // the next hour
    tally.add('p2', 'a', AT, { x: 1 }, false); // another project
    expect(tally.drain()).toEqual([
      { projectId: 'p1', promptId: 'a', hour: '2026-11-27T14:00:00.000Z', names: '["x"]', withUserId: false, calls: 2 },
      { projectId: 'p1', promptId: 'a', hour: '2026-11-27T14:00:00.000Z', names: '["x"]', withUserId: true, calls: 1 },
      { projectId: 'p1', promptId: 'a', hour: '2026-11-27T15:00:00.000Z', names: '["x"]', withUserId: false, calls: 1 },
      { projectId: 'p2', promptId: 'a', hour: '2026-11-27T14:00:00.000Z', names: '["x"]', withUserId: false, calls: 1 },
    ]);
    expect(tally.size).toBe(0);
    expect(tally.drain()).toEqual([]);
  });

  it('keeps at most setsPerHour sets per prompt and hour; the rest (and sets past the limits) count as other', () => {
    const tally = new InputShapeTally();
    for (let i = 0; i < SHAPE_LIMITS.setsPerHour + 3; i++) tally.add('p', 'a', AT, { [`k${i}`]: 1 }, false);
    tally.add('p', 'a', AT, { k0: 1 }, false);
    tally.add('p', 'b', AT, { k99: 1 }, false); // another prompt has room of its own
    const counts = tally.drain();
    const ofA = counts.filter((c) => c.promptId === 'a');
    expect(ofA.filter((c) => c.names !== OTHER_SHAPE)).toHaveLength(SHAPE_LIMITS.setsPerHour);
    expect(ofA.find((c) => c.names === OTHER_SHAPE)?.calls).toBe(3);
    expect(ofA.find((c) => c.names === '["k0"]')?.calls).toBe(2);
    expect(counts.find((c) => c.promptId === 'b')?.names).toBe('["k99"]');
  });
});

describe('keptShape (a flush against what is stored)', () => {
  it.each([
    ['a set already stored', '["a"]', 16, true, '["a"]'],
    ['a new set with room', '["new"]', 15, false, '["new"]'],
    ['a new set without room', '["new"]', 16, false, OTHER_SHAPE],
    ['other stays other', OTHER_SHAPE, 0, false, OTHER_SHAPE],
  ])('%s', (_why, names, storedCount, alreadyStored, kept) => {
    const stored = new Set(Array.from({ length: storedCount }, (_, i) => (alreadyStored && i === 0 ? names : `["s${i}"]`)));
    expect(keptShape(names, stored)).toBe(kept);
  });
});

describe('hourOf', () => {
  it.each([
    ['2026-11-27T14:00:00.000Z', '2026-11-27T14:00:00.000Z'],
    ['2026-11-27T14:59:59.999Z', '2026-11-27T14:00:00.000Z'],
    ['2026-11-27T15:00:00.000Z', '2026-11-27T15:00:00.000Z'],
  ])('%s → %s', (at, hour) => expect(hourOf(Date.parse(at))).toBe(hour));
});

describe('measureCalls', () => {
  const rows = [
    { hour: 'h', names: '["a","b"]', with_user_id: 1, calls: 5 },
    { hour: 'h', names: '["a"]', with_user_id: 0, calls: 3 },
    { hour: 'h', names: '[]', with_user_id: 0, calls: 2 },
    { hour: 'h', names: OTHER_SHAPE, with_user_id: 1, calls: 4 },
  ];
  it.each([
    [[], { calls: 14, callsMissingAny: 0, missing: [], callsWithoutUserId: 5, callsWithUnrecordedInputs: 4 }],
    [['b'], { calls: 14, callsMissingAny: 5, missing: [{ variable: 'b', calls: 5 }], callsWithoutUserId: 5, callsWithUnrecordedInputs: 4 }],
    [
      ['a', 'b'],
      {
        calls: 14,
        callsMissingAny: 5,
        missing: [
          { variable: 'a', calls: 2 },
          { variable: 'b', calls: 5 },
        ],
        callsWithoutUserId: 5,
        callsWithUnrecordedInputs: 4,
      },
    ],
  ])('new required %j', (newRequired, measured) => expect(measureCalls(rows, newRequired)).toEqual(measured));
});

describe('requiredVariables: the names rendering refuses a call without', () => {
  const version = (template: string) =>
    compileVersion({
      prompt_id: 'p',
      version: 1,
      template,
      messages: null,
      model: null,
      params: {},
      fallbacks: [],
      variables: [],
      declared_variables: null,
      commit_message: null,
      created_at: '',
      source_path: null,
      source_commit: null,
      source_author: null,
      content_hash: null,
      model_config: null,
    });
  it.each([
    ['Hi {{name}}', ['name']],
    ['{{{raw}}} {{&amp}}', ['raw', 'amp']],
    ['{{user.name}}', ['user']],
    ['{{#items}}{{x}}{{/items}}', ['items']],
    ['{{^tone}}plain{{/tone}}', []],
    ['{{^tone}}{{y}}{{/tone}}', []],
    ['{{.}} {{! a comment }}', []],
  ])('%s → %j', (template, required) => expect(requiredVariables(version(template))).toEqual(required));

  it('reads every message of a chat version', () => {
    const chat = compileVersion({
      prompt_id: 'p',
      version: 1,
      template: null,
      messages: [
        { role: 'system', content: 'You are {{persona}}' },
        { role: 'user', content: '{{question}} {{persona}}' },
      ],
      model: null,
      params: {},
      fallbacks: [],
      variables: [],
      declared_variables: null,
      commit_message: null,
      created_at: '',
      source_path: null,
      source_commit: null,
      source_author: null,
      content_hash: null,
      model_config: null,
    });
    expect(requiredVariables(chat)).toEqual(['persona', 'question']);
  });
});
