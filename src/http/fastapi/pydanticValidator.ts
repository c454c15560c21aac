// Validates a decoded JSON value against a TypeBox schema the way pydantic v2 validates a
// FastAPI body in lax ("python", from_attributes) mode: same coercions, same error items, same
// order. Schemas are compiled once into closures; the no-error path allocates only the result.
import { Kind, type TSchema } from '@sinclair/typebox';
import { RENDERED_ONLY } from '../../lib/schemas.js';
import {
  type Check,
  checkBool,
  checkFreeJson,
  checkKey,
  checkRenderedJson,
  compileLiterals,
  compileNumber,
  compileString,
  type ErrorItem,
  type Loc,
  num,
  passThrough,
  report,
  reportAt,
  type Schema,
  type State,
} from './pydanticScalars.js';
import { compileUnion } from './pydanticUnions.js';

export type { ErrorItem };

export interface ValidateOptions {
  loc: Loc;
  /**
   * Unknown object keys are `extra_forbidden` errors (pydantic `extra='forbid'`) instead of being
   * dropped. An object schema's explicit `additionalProperties: false | true` overrides this.
   */
  strict: boolean;
}

const compiledLax = new WeakMap<TSchema, Check>();
const compiledStrict = new WeakMap<TSchema, Check>();

export function validateValue(schema: TSchema, value: unknown, options: ValidateOptions): { value: unknown; errors: ErrorItem[] } {
  const cache = options.strict ? compiledStrict : compiledLax;
  let check = cache.get(schema);
  if (check === undefined) {
    check = compile(schema, options.strict, true);
    cache.set(schema, check);
  }
  const st: State = { errors: [], path: options.loc.slice() };
  const out = check(value, st);
  return { value: out, errors: st.errors };
}

/**
 * `stored`: whether the values under this schema are kept (false below a field marked
 * `renderedOnly`), which decides the checks of pydanticScalars.ts's "stored value" rule.
 */
function compile(raw: TSchema, strict: boolean, storedAbove: boolean): Check {
  const schema = raw as unknown as Schema;
  const stored = storedAbove && (raw as unknown as Record<symbol, unknown>)[RENDERED_ONLY] !== true;
  switch (schema[Kind]) {
    case 'Any':
    case 'Unknown':
      return stored ? checkFreeJson : checkRenderedJson;
    case 'String':
      return compileString(schema, stored);
    case 'Number':
      return compileNumber(schema, false);
    case 'Integer':
      return compileNumber(schema, true);
    case 'Boolean':
      return checkBool;
    case 'Null':
      return (v, st) => {
        if (v !== null) report(st, 'none_required', 'Input should be None', v);
        return v;
      };
    case 'Literal':
      return compileLiterals([schema.const]);
    case 'Union':
      return compileUnion(schema, strict, (member, memberStrict) => compile(member, memberStrict, stored));
    case 'Array':
      return compileArray(schema, strict, stored);
    case 'Record':
      return compileRecord(schema, strict, stored);
    case 'Object':
      return compileObject(schema, strict, stored);
    default:
      throw new Error(`pydanticValidator: unsupported schema kind ${String(schema[Kind])}`);
  }
}

function compileArray(schema: Schema, strict: boolean, stored: boolean): Check {
  const item = compile(schema.items as TSchema, strict, stored);
  const min = num(schema, 'minItems');
  const max = num(schema, 'maxItems');
  const items = (n: number) => (n === 1 ? 'item' : 'items');
  return (v, st) => {
    if (!Array.isArray(v)) {
      report(st, 'list_type', 'Input should be a valid list', v);
      return v;
    }
    const len = v.length;
    // A list that is too long is rejected before its items are looked at.
    if (max !== undefined && len > max) {
      const msg = `List should have at most ${max} ${items(max)} after validation, not ${len}`;
      report(st, 'too_long', msg, v, { field_type: 'List', max_length: max, actual_length: len });
      return v;
    }
    const errorsBefore = st.errors.length;
    let out: unknown[] | undefined;
    if (item !== passThrough) {
      for (let i = 0; i < len; i++) {
        const raw: unknown = v[i];
        st.path.push(i);
        const c = item(raw, st);
        st.path.pop();
        if (out !== undefined) out.push(c);
        else if (c !== raw) {
          out = v.slice(0, i);
          out.push(c);
        }
      }
    }
    if (min !== undefined && len < min && st.errors.length === errorsBefore) {
      const msg = `List should have at least ${min} ${items(min)} after validation, not ${len}`;
      report(st, 'too_short', msg, v, { field_type: 'List', min_length: min, actual_length: len });
    }
    return out ?? v;
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function put(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  } else obj[key] = value;
}

function compileRecord(schema: Schema, strict: boolean, stored: boolean): Check {
  const patterns = (schema.patternProperties ?? {}) as Record<string, TSchema>;
  const valueSchema = Object.values(patterns)[0];
  if (valueSchema === undefined) throw new Error('pydanticValidator: Record without a value schema');
  const item = compile(valueSchema, strict, stored);
  const max = num(schema, 'maxProperties');
  return (v, st) => {
    if (!isObject(v)) {
      report(st, 'dict_type', 'Input should be a valid dictionary', v);
      return v;
    }
    if (max !== undefined) {
      // As with lists, a dictionary that is too long is rejected before its values are looked at.
      const len = countKeys(v);
      if (len > max) {
        const msg = `Dictionary should have at most ${max} item${max === 1 ? '' : 's'} after validation, not ${len}`;
        report(st, 'too_long', msg, v, { field_type: 'Dictionary', max_length: max, actual_length: len });
        return v;
      }
    }
    if (item === passThrough) return v;
    let out: Record<string, unknown> | undefined;
    const keys = Object.keys(v);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      checkKey(st, key, stored);
      const raw = v[key];
      st.path.push(key);
      const c = item(raw, st);
      st.path.pop();
      if (out !== undefined) put(out, key, c);
      else if (c !== raw) {
        out = {};
        for (let j = 0; j < i; j++) put(out, keys[j] as string, v[keys[j] as string]);
        put(out, key, c);
      }
    }
    return out ?? v;
  };
}

interface Prop {
  name: string;
  check: Check;
  required: boolean;
  hasDefault: boolean;
  default: unknown;
  /** Names such as "constructor" would be found on Object.prototype by a plain lookup. */
  inherited: boolean;
}

function compileObject(schema: Schema, strictOption: boolean, stored: boolean): Check {
  const properties = (schema.properties ?? {}) as Record<string, TSchema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const forbid = schema.additionalProperties === false ? true : schema.additionalProperties === true ? false : strictOption;
  const props: Prop[] = Object.entries(properties).map(([name, s]) => ({
    name,
    check: compile(s, strictOption, stored),
    // As in pydantic, a default makes a field optional.
    required: required.has(name) && !('default' in s),
    hasDefault: 'default' in s,
    default: (s as unknown as Schema).default,
    inherited: name in Object.prototype,
  }));
  const declared = new Set(props.map((p) => p.name));

  // Builds the coerced object from the input's first `upto` declared properties, untouched so far.
  const copyDeclared = (obj: Record<string, unknown>, upto: number): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (let j = 0; j < upto; j++) {
      const p = props[j] as Prop;
      const raw = lookup(obj, p);
      if (raw !== undefined) put(out, p.name, raw);
    }
    return out;
  };

  return (v, st) => {
    if (!isObject(v)) {
      report(st, 'model_attributes_type', 'Input should be a valid dictionary or object to extract fields from', v);
      return v;
    }
    let out: Record<string, unknown> | undefined;
    let present = 0;
    for (let i = 0; i < props.length; i++) {
      const p = props[i] as Prop;
      const raw = lookup(v, p);
      if (raw === undefined) {
        if (p.hasDefault) {
          out ??= copyDeclared(v, i);
          put(out, p.name, cloneDefault(p.default));
        } else if (p.required) reportAt(st, p.name, 'missing', 'Field required', v);
        continue;
      }
      present++;
      st.path.push(p.name);
      const c = p.check(raw, st);
      st.path.pop();
      if (out !== undefined) put(out, p.name, c);
      else if (c !== raw) {
        out = copyDeclared(v, i);
        put(out, p.name, c);
      }
    }
    if (present !== countKeys(v)) {
      if (forbid) {
        for (const key of Object.keys(v)) {
          if (!declared.has(key)) reportAt(st, key, 'extra_forbidden', 'Extra inputs are not permitted', v[key]);
        }
      } else out ??= copyDeclared(v, props.length);
    }
    return out ?? v;
  };
}

function lookup(obj: Record<string, unknown>, p: Prop): unknown {
  if (p.inherited && !Object.hasOwn(obj, p.name)) return undefined;
  return obj[p.name];
}

function countKeys(obj: Record<string, unknown>): number {
  let n = 0;
  for (const key in obj) if (Object.hasOwn(obj, key)) n++;
  return n;
}

function cloneDefault(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? structuredClone(value) : value;
}
