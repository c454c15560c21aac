/**
 * The errors services, repositories and providers throw: what went wrong, in the domain's words.
 * Only src/http/ turns them into answers (status codes, `{"detail": …}`, pydantic error items with
 * `loc` and `input`); the CLI prints them its own way.
 */

/** The part of a request a problem is about. */
export type RequestPart = 'body' | 'query' | 'path' | 'header';

export interface Issue {
  readonly part: RequestPart;
  /** Where inside that part: `['inputs', 'name']`, `['variants', 0, 'version']`, `[]` for the whole part. */
  readonly path: readonly (string | number)[];
  /**
   * `invalid`: the value given is wrong. `missing`: a value that is required was not given.
   * `constraint`: the value breaks a declared rule, reported as pydantic would (`type`, and
   * `reason` as its message).
   */
  readonly kind: 'invalid' | 'missing' | 'constraint';
  readonly reason: string;
  /** `constraint`: pydantic's error type (`string_too_long`). */
  readonly type?: string;
  /** `constraint`: pydantic's `ctx` (`{"max_length": 200}`). */
  readonly ctx?: Readonly<Record<string, unknown>>;
  /** Shown to the client as is (a `missing` whose cause is not obvious from the field alone). */
  readonly context?: Readonly<Record<string, string>>;
}

abstract class DomainError extends Error {}

/** Nothing with this id in the caller's project (another project's id is answered the same way). */
export class NotFound extends DomainError {}

/** The request is valid but the current state does not allow it. */
export class Conflict extends DomainError {
  /** When the state is expected to allow it (a lease another process holds): answered as Retry-After, in whole seconds. */
  readonly retryAfterSeconds: number | undefined;
  constructor(message: string, retryAfterSeconds?: number) {
    super(message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The request itself is wrong beyond what its schema could say; every problem found is listed. */
export class Invalid extends DomainError {
  constructor(readonly issues: readonly Issue[]) {
    super(issues.map((i) => `${[i.part, ...i.path].join('.')}: ${i.reason}`).join('; '));
  }
}

export const notFound = (message: string) => new NotFound(message);
export const conflict = (message: string, retryAfterSeconds?: number) => new Conflict(message, retryAfterSeconds);

export function invalidIssue(part: RequestPart, path: readonly (string | number)[], reason: string): Issue {
  return { part, path, kind: 'invalid', reason };
}

/** One invalid value. */
export function invalid(part: RequestPart, path: readonly (string | number)[], reason: string): Invalid {
  return new Invalid([invalidIssue(part, path, reason)]);
}

/** Template variables the inputs lack: one issue each, never an empty string in their place. */
export function missingInputs(names: readonly string[]): Invalid {
  return new Invalid(names.map((name) => ({ part: 'body', path: ['inputs', name], kind: 'missing', reason: 'required by the template' })));
}

/** An experiment runs on the prompt, so the call must say which user it is for. */
export function userIdRequired(experimentId: string, promptId: string): Invalid {
  return new Invalid([
    {
      part: 'body',
      path: ['external_user_id'],
      kind: 'missing',
      reason: 'an experiment is running',
      context: { reason: `experiment ${experimentId} is running on prompt ${promptId}` },
    },
  ]);
}
