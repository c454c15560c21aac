export { Promptline } from './client.js';
export type {
  ClientStats,
  GetPromptParams,
  OutcomeResult,
  PromptlineOptions,
  PromptResult,
  RunPromptParams,
  RunResult,
  TrackOutcomeParams,
} from './types.js';
export { PromptlineApiError, PromptlineConnectionError, PromptlineError, PromptlineValidationError } from './errors.js';
export type { ValidationItem } from './evaluate.js';
export type { FallbackContent } from './fallback.js';
