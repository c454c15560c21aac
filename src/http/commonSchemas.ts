import { Type } from '@sinclair/typebox';

/** `{"detail": "..."}`: every non-validation error body. */
export const Detail = Type.Object({ detail: Type.String() }, { title: 'HTTPError' });

/** Standard error responses of an authenticated route, for the OpenAPI document. */
export const AUTH_ERRORS = { 401: Detail, 403: Detail, 429: Detail } as const;
