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
