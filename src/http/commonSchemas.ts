import { Type, type TSchema } from '@sinclair/typebox';

/** `{"detail": "..."}`: every non-validation error body. */
export const Detail = Type.Object({ detail: Type.String() }, { title: 'HTTPError' });

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const RoleSchema = Type.Union([Type.Literal('runtime'), Type.Literal('read'), Type.Literal('admin')]);

/** Standard error responses of an authenticated route, for the OpenAPI document. */
export const AUTH_ERRORS = { 401: Detail, 403: Detail } as const;

/** `?limit&cursor` of every newest-first list. */
export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
};
