import { Kind, type TSchema } from '@sinclair/typebox';

interface Schema {
  [Kind]?: string;
  pattern?: string;
  format?: string;
  minLength?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  const?: unknown;
  anyOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
}

/** Strings tried in order until one fits a pattern: ids, labels, model strings, dates. */
const CANDIDATES = ['a', 'a/b', '2030-01-01T00:00:00Z'];

/**
 * The smallest value a TypeBox schema accepts: required properties only, named values taken from
 * `named` (so a sample can point at fixtures, e.g. `prompt_id`). Used to get a request past
 * validation when what is tested comes after it (authentication, roles, tenancy).
 */
export function validSample(schema: TSchema, named: Record<string, unknown> = {}): unknown {
  const s = schema as unknown as Schema;
  switch (s[Kind]) {
    case 'String': {
      if (s.format === 'date-time') return '2030-01-01T00:00:00Z';
      const re = s.pattern ? new RegExp(s.pattern) : null;
      const fit = CANDIDATES.find((c) => (!re || re.test(c)) && c.length >= (s.minLength ?? 0));
      if (fit === undefined) throw new Error(`no sample for pattern ${s.pattern}`);
      return fit;
    }
    case 'Integer':
    case 'Number':
      return Math.max(s.minimum ?? 1, (s.exclusiveMinimum ?? 0) + 1, 1);
    case 'Boolean':
      return true;
    case 'Literal':
      return s.const;
    case 'Union':
      return validSample((s.anyOf!.find((m) => m[Kind] !== 'Null') ?? s.anyOf![0]!) as unknown as TSchema, named);
    case 'Array':
      // Items that carry a `key` (experiment variants) get distinct ones.
      return Array.from({ length: s.minItems ?? 0 }, (_, i) => {
        const item = validSample(s.items! as unknown as TSchema, named);
        return item !== null && typeof item === 'object' && 'key' in item ? { ...item, key: `k${i}` } : item;
      });
    case 'Record':
      return {};
    case 'Object': {
      const out: Record<string, unknown> = {};
      for (const name of s.required ?? []) {
        out[name] = name in named ? named[name] : validSample(s.properties![name]! as unknown as TSchema, named);
      }
      return out;
    }
    default:
      return null;
  }
}
