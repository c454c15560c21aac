import type { ErrorItem } from './pydanticValidator.js';

/** An HTTP error answered as `{"detail": "..."}` (FastAPI's HTTPException shape). */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

/** A 422 answered as `{"detail": [items]}`; raised by services for rules a schema cannot express. */
export class ValidationFailed extends Error {
  constructor(readonly items: ErrorItem[]) {
    super('validation failed');
  }
}

export const notFound = (detail: string) => new HttpError(404, detail);
export const conflict = (detail: string) => new HttpError(409, detail);

/** One pydantic `value_error` item, as FastAPI reports a failed field validator. */
export function valueError(loc: (string | number)[], input: unknown, why: string): ValidationFailed {
  return new ValidationFailed([
    { type: 'value_error', loc, msg: `Value error, ${why}`, input, ctx: { error: why } },
  ]);
}
