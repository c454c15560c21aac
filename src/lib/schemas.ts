import { Type, type TSchema } from '@sinclair/typebox';

/** `X | None` in pydantic terms: the value, or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** `?limit&cursor` of every newest-first list. */
export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
};

/**
 * A version number as a request gives it: from 1 to 2^53 − 1, what a JS number holds exactly and
 * a BIGINT column stores (an unbounded integer such as 1e308 would overflow PostgreSQL's column).
 */
export const VersionNumber = (options: { description?: string } = {}) => Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, ...options });

/**
 * Marks a request field whose values are rendered into the answer and never stored (the inputs of
 * `/get_prompt` and of a render). Everywhere else the validator refuses what the database would not
 * keep exactly (a lone surrogate, a non-finite number: docs/management-api.md); here such values
 * render as the client SDKs render them locally. A symbol, so /openapi.json never shows it.
 */
export const RENDERED_ONLY = Symbol.for('promptline.renderedOnly');

export function renderedOnly<T extends TSchema>(schema: T): T {
  return Object.assign(schema, { [RENDERED_ONLY]: true });
}
