/**
 * What the service reports about itself, for operators' dashboards. Domain code calls these
 * methods; only src/http/metrics.ts knows Prometheus. Every label value must come from a bounded set
 * (route templates, configured providers and models), never from a raw path or a user id.
 */
export interface Telemetry {
  /** One answered HTTP request: its route template (or "unmatched"), status and duration. */
  request(method: string, route: string, status: number, seconds: number): void;
  /** One attempt at a model: ok, retried (failed, and the same model was tried again), timeout, 4xx, 5xx or error. */
  modelAttempt(provider: string, model: string, outcome: ModelAttemptOutcome, seconds: number): void;
  /** Tokens and cost of a model call that answered. */
  usage(provider: string, model: string, promptTokens: number, completionTokens: number, costUsd: number): void;
  /** One group commit: how many writes it carried, and how long the transaction and its fsync took. */
  commit(writes: number, seconds: number): void;
  /** A lookup in one of the in-memory caches. */
  cache(name: CacheName, hit: boolean): void;
}

export type ModelAttemptOutcome = 'ok' | 'retried' | 'timeout' | '4xx' | '5xx' | 'error';
type CacheName = 'keys' | 'prompts' | 'experiments';

export const noTelemetry: Telemetry = {
  request() {},
  modelAttempt() {},
  usage() {},
  commit() {},
  cache() {},
};
