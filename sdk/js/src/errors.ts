import type { ValidationItem } from './evaluate.js';

/** Every error the client throws. `status` is the HTTP status of the answer, null when there was none. */
export class PromptlineError extends Error {
  override readonly name: string = 'PromptlineError';
  constructor(
    message: string,
    readonly status: number | null,
    /** The API's `detail`: a message, or the 422's list of items. */
    readonly detail: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The server answered with an error (or the bundle did, the same way the server would). */
export class PromptlineApiError extends PromptlineError {
  override readonly name: string = 'PromptlineApiError';
  declare readonly status: number;
  constructor(
    status: number,
    detail: unknown,
    /** A 429's or 503's Retry-After, when the server sent one. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(`Promptline answered ${status}: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`, status, detail);
  }
}

/** A 422: the request is invalid (a missing template variable, a missing user while an experiment runs, …). */
export class PromptlineValidationError extends PromptlineApiError {
  override readonly name: string = 'PromptlineValidationError';
  constructor(readonly errors: ValidationItem[]) {
    super(422, errors);
  }
}

/** No answer: the connection failed or the request timed out. */
export class PromptlineConnectionError extends PromptlineError {
  override readonly name: string = 'PromptlineConnectionError';
  constructor(message: string, cause: unknown) {
    super(message, null, null, { cause });
  }
}

export function apiError(status: number, detail: unknown, retryAfterSeconds: number | null): PromptlineApiError {
  return status === 422 && Array.isArray(detail)
    ? new PromptlineValidationError(detail as ValidationItem[])
    : new PromptlineApiError(status, detail, retryAfterSeconds);
}
