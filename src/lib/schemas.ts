import { Type, type TSchema } from '@sinclair/typebox';

/** `X | None` in pydantic terms: the value, or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** `?limit&cursor` of every newest-first list. */
export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
};
