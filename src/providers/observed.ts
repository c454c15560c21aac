import type { ModelAttemptOutcome, Telemetry } from '../lib/telemetry.js';
import { ModelCallError } from './errors.js';
import { nanoToUsd } from './prices.js';
import type { AttemptRecord, ModelGateway } from './types.js';

/** `provider/model` → its two parts (a label without a slash is all model). */
function split(label: string): { provider: string; model: string } {
  const slash = label.indexOf('/');
  return slash < 0 ? { provider: '', model: label } : { provider: label.slice(0, slash), model: label.slice(slash + 1) };
}

/**
 * What became of attempt `i` of a request: ok; retried when it failed and the same model was tried
 * again; else its failure: a timeout (no status, the call or the request's deadline ran out), a 4xx,
 * a 5xx, or another error (connection reset, malformed answer, client gone).
 */
export function attemptOutcome(attempts: readonly AttemptRecord[], i: number): ModelAttemptOutcome {
  const a = attempts[i]!;
  if (a.status === 200) return 'ok';
  if (attempts[i + 1]?.model === a.model) return 'retried';
  if (a.status === null && a.error !== null && /timed out|deadline/.test(a.error)) return 'timeout';
  if (a.status !== null && a.status >= 400 && a.status < 500) return '4xx';
  if (a.status !== null && a.status >= 500) return '5xx';
  return 'error';
}

function reportAttempts(attempts: readonly AttemptRecord[], telemetry: Telemetry): void {
  attempts.forEach((a, i) => {
    const { provider, model } = split(a.model);
    telemetry.modelAttempt(provider, model, attemptOutcome(attempts, i), a.latency_ms / 1000);
  });
}

/** The gateway, reporting every attempt, and the tokens and cost of every answer, to telemetry. */
export function observeGateway(gateway: ModelGateway, telemetry: Telemetry): ModelGateway {
  return {
    ...gateway,
    async execute(req) {
      try {
        const result = await gateway.execute(req);
        reportAttempts(result.attempts, telemetry);
        const { model } = split(result.modelUsed);
        telemetry.usage(result.provider, model, result.promptTokens, result.completionTokens, nanoToUsd(result.costNanoUsd));
        return result;
      } catch (error) {
        if (error instanceof ModelCallError) reportAttempts(error.attempts, telemetry);
        throw error;
      }
    },
    async stream(req) {
      try {
        const stream = await gateway.stream(req);
        void stream.end.then(({ result }) => {
          reportAttempts(result.attempts, telemetry);
          const { model } = split(result.modelUsed);
          telemetry.usage(result.provider, model, result.promptTokens, result.completionTokens, nanoToUsd(result.costNanoUsd));
        });
        return stream;
      } catch (error) {
        if (error instanceof ModelCallError) reportAttempts(error.attempts, telemetry);
        throw error;
      }
    },
  };
}
