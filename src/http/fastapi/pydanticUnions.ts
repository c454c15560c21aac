// The unions a request schema may hold, checked as pydantic checks them: nullable (`X | None`),
// literals, objects told apart by their `type` (a discriminated union) and `str | list[…]`.
import { Kind, type TSchema } from '@sinclair/typebox';
import { type Check, compileLiterals, report, type Schema } from './pydanticScalars.js';

/** The validator's own compile, for the members (passed in: this file is its helper, not its importer). */
type CompileMember = (schema: TSchema, strict: boolean) => Check;

export function compileUnion(schema: Schema, strict: boolean, compile: CompileMember): Check {
  const members = (schema.anyOf as Schema[] | undefined) ?? [];
  const nonNull = members.filter((m) => m[Kind] !== 'Null');
  let inner: Check;
  if (nonNull.length === 1) inner = compile(nonNull[0] as unknown as TSchema, strict);
  else if (nonNull.length > 1 && nonNull.every((m) => m[Kind] === 'Literal')) {
    inner = compileLiterals(nonNull.map((m) => m.const));
  } else if (nonNull.length > 1 && nonNull.every((m) => tagOf(m) !== undefined)) {
    inner = compileTagged(nonNull, strict, compile);
  } else if (nonNull.length === 2 && nonNull.some((m) => m[Kind] === 'String') && nonNull.some((m) => m[Kind] === 'Array')) {
    // `str | list[…]`: a list is checked as the list, anything else as the string it usually is (so
    // the errors of a value that is neither stay those of the plain string field).
    const asString = compile(nonNull.find((m) => m[Kind] === 'String') as unknown as TSchema, strict);
    const asList = compile(nonNull.find((m) => m[Kind] === 'Array') as unknown as TSchema, strict);
    inner = (v, st) => (Array.isArray(v) ? asList(v, st) : asString(v, st));
  } else {
    throw new Error('pydanticValidator: only nullable unions, unions of literals, tagged unions of objects and str | list are supported');
  }
  if (nonNull.length === members.length) return inner;
  // `X | None` is a nullable schema in pydantic: errors are X's alone, at the same loc.
  return (v, st) => (v === null ? null : inner(v, st));
}

/** An object schema's `type` literal: the tag of a discriminated union (`Field(discriminator='type')`). */
function tagOf(member: Schema): string | undefined {
  const tag = (member.properties as Record<string, Schema> | undefined)?.type;
  return member[Kind] === 'Object' && tag?.[Kind] === 'Literal' && typeof tag.const === 'string' ? tag.const : undefined;
}

/** A union of objects told apart by their `type`, as pydantic checks a discriminated union: the member's errors sit under the tag in `loc`. */
function compileTagged(members: readonly Schema[], strict: boolean, compile: CompileMember): Check {
  const byTag = new Map(members.map((m) => [tagOf(m)!, compile(m as unknown as TSchema, strict)]));
  const expected = [...byTag.keys()].map((t) => `'${t}'`).join(', ');
  return (v, st) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      report(st, 'model_attributes_type', 'Input should be a valid dictionary or object to extract fields from', v);
      return v;
    }
    const tag = (v as Record<string, unknown>).type;
    if (tag === undefined) {
      report(st, 'union_tag_not_found', "Unable to extract tag using discriminator 'type'", v, { discriminator: "'type'" });
      return v;
    }
    const check = typeof tag === 'string' ? byTag.get(tag) : undefined;
    if (check === undefined) {
      const msg = `Input tag '${String(tag)}' found using 'type' does not match any of the expected tags: ${expected}`;
      report(st, 'union_tag_invalid', msg, v, { discriminator: "'type'", tag: String(tag), expected_tags: expected });
      return v;
    }
    st.path.push(tag as string);
    const out = check(v, st);
    st.path.pop();
    return out;
  };
}
