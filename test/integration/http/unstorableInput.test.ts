import { Kind } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable, type RouteEntry } from '../../../src/http/route.js';
import { RENDERED_ONLY } from '../../../src/lib/schemas.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenRouteFixtures } from '../../support/routeFixtures.js';
import { validSample } from '../../support/validSample.js';

// Values one backend can store and the other cannot: a NUL character (PostgreSQL's text refuses
// U+0000; SQLite keeps it) and integers beyond what a BIGINT column (or a JS number, exactly)
// holds; and values neither stores as sent: a lone UTF-16 surrogate (SQLite kept three U+FFFD,
// PostgreSQL one) and a number JSON decodes as NaN or ±Infinity (both kept null). Every string,
// number and free JSON value a route accepts, in its path, query and body, is tried here,
// generated from the route table, so a new route or field is covered without writing anything.
// Each must be the same 422 on SQLite and PostgreSQL (run with PROMPTLINE_TEST_BACKEND=postgres):
// an item at the field's loc, refused at validation, before any storage.

interface Schema {
  [Kind]?: string;
  [RENDERED_ONLY]?: boolean;
  anyOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
}

type Part = 'path' | 'query' | 'body';
/** A member of a union told apart by its `type` (pydantic's discriminated union): its tag is a step of the 422's loc, not of the value. */
type TagStep = { tag: string };
type Step = string | number | TagStep;
/** Where a value goes: the request part and the path inside it (`[key]` names a record's key). */
interface Slot {
  part: Part;
  path: Step[];
  kind: 'string' | 'integer' | 'number' | 'key' | 'any';
  /** Under a field marked renderedOnly (never stored): only NUL is refused there. */
  rendered: boolean;
}

/** An object member's `type` literal, when it has one. */
function tagOf(member: Schema): string | undefined {
  const type = member.properties?.type as (Schema & { const?: unknown }) | undefined;
  return member[Kind] === 'Object' && type?.[Kind] === 'Literal' && typeof type.const === 'string' ? type.const : undefined;
}

const isTag = (step: Step | undefined): step is TagStep => typeof step === 'object';
/** The loc pydantic reports for a path: a tag is named as itself. */
const locOf = (path: Step[]): (string | number)[] => path.map((step) => (isTag(step) ? step.tag : step));

const NUL = 'a\u0000b';
const HUGE_INT = 1e308;
const HUGE_INT_TEXT = '9'.repeat(30);
const LONE = 'a\ud800b';
/**
 * JSON has no spelling of these numbers in JSON.stringify: a body carries this string, replaced
 * by the literal in the text sent (`NaN`, `1e309`: what Python's json module and ours decode).
 */
const literal = (text: string) => `\u0001literal:${text}`;
const bodyText = (body: unknown) => JSON.stringify(body).replace(/"\\u0001literal:([^"]*)"/g, '$1');

/** Every string, integer, record key and free JSON value reachable in a schema. */
function slotsOf(schema: Schema | undefined, part: Part, path: Step[] = [], depth = 0, renderedAbove = false): Slot[] {
  if (schema === undefined || depth > 6) return [];
  const rendered = renderedAbove || schema[RENDERED_ONLY] === true;
  switch (schema[Kind]) {
    case 'String':
      return [{ part, path, kind: 'string', rendered }];
    case 'Integer':
      return [{ part, path, kind: 'integer', rendered }];
    case 'Number':
      return [{ part, path, kind: 'number', rendered }];
    case 'Any':
    case 'Unknown':
      return [{ part, path, kind: 'any', rendered }];
    case 'Union':
      return (schema.anyOf ?? []).flatMap((m) => {
        const tag = tagOf(m);
        return slotsOf(m, part, tag === undefined ? path : [...path, { tag }], depth, rendered);
      });
    case 'Array':
      return slotsOf(schema.items, part, [...path, 0], depth + 1, rendered);
    case 'Record': {
      const value = Object.values(schema.patternProperties ?? {})[0];
      return [{ part, path, kind: 'key' as const, rendered }, ...slotsOf(value, part, [...path, 'k'], depth + 1, rendered)];
    }
    case 'Object':
      return Object.entries(schema.properties ?? {}).flatMap(([name, s]) => slotsOf(s, part, [...path, name], depth + 1, rendered));
    default:
      return [];
  }
}

let t: TestApp;
let fixtures: Record<string, unknown>;

beforeAll(async () => {
  t = await startTestApp();
  fixtures = { ...(await givenRouteFixtures(t)), inputs: { name: 'A' } };
});
afterAll(async () => t.cleanup());

/**
 * `base` with `value` at `path`, the objects and arrays on the way filled with valid samples of
 * their schemas, so the only thing wrong with the request is the value tried.
 */
function placed(schema: Schema, base: unknown, path: Step[], value: unknown, asKey: boolean): unknown {
  if (path.length === 0) return asKey ? { ...(base as object), [value as string]: 'v' } : value;
  const [step, ...rest] = path as [Step, ...Step[]];
  const sample = (s: Schema | undefined) => (s === undefined ? {} : validSample(s as never, fixtures));
  if (schema[Kind] === 'Union') {
    const members = (schema.anyOf ?? []).filter((m) => m[Kind] !== 'Null');
    if (isTag(step)) {
      // The tagged member, from a sample of its own when the value there is another member.
      const member = members.find((m) => tagOf(m) === step.tag)!;
      const fitting = (base as { type?: unknown } | null)?.type === step.tag ? base : sample(member);
      return placed(member, fitting, rest, value, asKey);
    }
    const fits = members.find((m) => (typeof step === 'number' ? m[Kind] === 'Array' : m[Kind] === 'Object' || m[Kind] === 'Record')) ?? members[0]!;
    return placed(fits, base, path, value, asKey);
  }
  if (schema[Kind] === 'Array') {
    const items = Array.isArray(base) && base.length > 0 ? structuredClone(base) : [sample(schema.items)];
    items[step as number] = placed(schema.items!, items[step as number] ?? sample(schema.items), rest, value, asKey);
    return items;
  }
  const key = step as string;
  const child = schema[Kind] === 'Record' ? Object.values(schema.patternProperties ?? {})[0]! : schema.properties![key]!;
  const node = base !== null && typeof base === 'object' && !Array.isArray(base) ? structuredClone(base) : sample(schema);
  const current = (node as Record<string, unknown>)[key];
  (node as Record<string, unknown>)[key] = placed(child, current === undefined ? sample(child) : current, rest, value, asKey);
  return node;
}

/** One value tried: what it is, the value, the loc its item names, the item's type. */
type Tried = [what: string, value: unknown, at: (string | number)[], type: string | undefined];

interface Case {
  name: string;
  method: string;
  url: string;
  body?: unknown;
  /** The loc the 422 must name. */
  loc: (string | number)[];
  /** The item's type: value_error (NUL), string_unicode, finite_number (undefined: any item at `loc`). */
  type?: string;
}

function casesFor(route: RouteEntry): Case[] {
  const params: Record<string, string> = Object.fromEntries(
    Object.keys((route.params as Schema | undefined)?.properties ?? {}).map((name) => [name, String(fixtures[name] ?? 'x')]),
  );
  const baseBody = route.body ? validSample(route.body, fixtures) : undefined;
  const urlWith = (path: Record<string, string>, query: string) =>
    route.url.replace(/:(\w+)/g, (_m, name: string) => encodeURIComponent(path[name] ?? 'x')) + (query ? `?${query}` : '');
  const cases: Case[] = [];
  const name = (slot: Slot, what: string) => `${route.method} ${route.url} ${slot.part}.${locOf(slot.path).join('.')} ${what}`;
  for (const slot of [...slotsOf(route.params as Schema, 'path'), ...slotsOf(route.query as Schema, 'query'), ...slotsOf(route.body as Schema, 'body')]) {
    const loc = locOf(slot.path);
    const inBody = slot.part === 'body';
    // A lone surrogate has no UTF-8 form, so no URL carries one: it is tried in bodies. Fields
    // marked renderedOnly are never stored: only NUL is refused there.
    const stored = !slot.rendered;
    const values: Tried[] = [];
    if (slot.kind === 'integer') values.push(['huge integer', inBody ? HUGE_INT : HUGE_INT_TEXT, loc, undefined]);
    else if (slot.kind === 'number') values.push(['an infinite number', inBody ? literal('1e309') : 'Infinity', loc, 'finite_number']);
    else if (slot.kind === 'key') {
      values.push(['NUL in a key', NUL, [...loc, NUL, '[key]'], undefined]);
      if (inBody && stored) values.push(['a lone surrogate in a key', LONE, [...loc, LONE, '[key]'], 'string_unicode']);
    } else if (slot.kind === 'any') {
      values.push(['NUL in a nested JSON string', { deep: [NUL] }, [...loc, 'deep', 0], 'value_error']);
      if (stored) {
        values.push(
          ['a lone surrogate in a nested JSON string', { deep: [LONE] }, [...loc, 'deep', 0], 'string_unicode'],
          ['a lone surrogate in a nested JSON key', { [LONE]: 1 }, [...loc, LONE, '[key]'], 'string_unicode'],
          ['NaN in nested JSON', { deep: [literal('NaN')] }, [...loc, 'deep', 0], 'finite_number'],
          ['-Infinity in nested JSON', { deep: literal('-Infinity') }, [...loc, 'deep'], 'finite_number'],
          ['1e309 in nested JSON', [literal('1e309')], [...loc, 0], 'finite_number'],
          ['a 401-digit integer in nested JSON', { n: literal('9'.repeat(401)) }, [...loc, 'n'], 'finite_number'],
        );
      }
    } else {
      // A field with a pattern refuses NUL as a mismatch first: any item at its loc will do.
      values.push(['NUL', NUL, loc, undefined]);
      if (inBody && stored) values.push(['a lone surrogate', LONE, loc, 'string_unicode']);
    }
    for (const [what, value, at, type] of values) {
      if (slot.part === 'body') {
        const body = placed(route.body as Schema, baseBody, slot.path, value, slot.kind === 'key');
        cases.push({ name: name(slot, what), method: route.method as string, url: urlWith(params, ''), body, loc: ['body', ...at], type });
      } else if (slot.part === 'path') {
        const url = urlWith({ ...params, [slot.path[0] as string]: String(value) }, '');
        cases.push({ name: name(slot, what), method: route.method as string, url, body: baseBody, loc: ['path', ...at], type });
      } else {
        const url = urlWith(params, `${encodeURIComponent(String(slot.path[0]))}=${encodeURIComponent(String(value))}`);
        cases.push({ name: name(slot, what), method: route.method as string, url, body: baseBody, loc: ['query', ...at], type });
      }
    }
  }
  return cases;
}

describe('values one backend cannot store are refused on both, at validation', () => {
  it('NUL, a lone surrogate and non-finite numbers in every string, key and free JSON value, and an out-of-range integer or number in every numeric field → 422 naming the field', async () => {
    const cases = routeTable(t.app).flatMap(casesFor);
    expect(cases.length).toBeGreaterThan(71);
    // Every kind of value is tried somewhere (a change to the generator must not drop one).
    const types = new Set(cases.map((c) => c.type));
    for (const type of ['value_error', 'string_unicode', 'finite_number']) expect(types).toContain(type);
    const wrong: string[] = [];
    for (const c of cases) {
      const res = await t.request(c.method, c.url, c.body === undefined ? {} : { raw: bodyText(c.body), headers: { 'content-type': 'application/json' } });
      const items: Array<{ type: string; loc: unknown[]; msg: string }> = Array.isArray(res.json?.detail) ? res.json.detail : [];
      const item = items.find((i) => JSON.stringify(i.loc) === JSON.stringify(c.loc) && (c.type === undefined || i.type === c.type));
      if (res.status !== 422 || item === undefined) wrong.push(`${c.name} → ${res.status} ${res.text.slice(0, 300)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('the NUL item says why, with its input; a plain string without a pattern gets it', async () => {
    const res = await t.request('POST', '/run_prompt', { body: { prompt_id: 'p', inputs: { name: 'A' }, external_user_id: NUL } });
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual([
      {
        type: 'value_error',
        loc: ['body', 'external_user_id'],
        msg: 'Value error, String should not contain the NUL character (U+0000)',
        input: NUL,
        ctx: { error: 'String should not contain the NUL character (U+0000)' },
      },
    ]);
  });

  it('PUT a label {"version": 1e308} → 422 less_than_equal, nothing moved', async () => {
    const res = await t.request('PUT', '/prompts/p/labels/production', { body: { version: 1e308 } });
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual([
      {
        type: 'less_than_equal',
        loc: ['body', 'version'],
        msg: 'Input should be less than or equal to 9007199254740991',
        input: 1e308,
        ctx: { le: 9007199254740991 },
      },
    ]);
    expect((await t.request('GET', '/prompts/p')).json.labels).toEqual({ production: 1 });
  });

  it('the largest accepted integer reaches the service and is an ordinary 404 there', async () => {
    const res = await t.request('GET', `/prompts/p/versions/${Number.MAX_SAFE_INTEGER}`);
    expect(res.status).toBe(404);
  });
});
