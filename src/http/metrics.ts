import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { ModelAttemptOutcome, Telemetry } from '../lib/telemetry.js';

/** What the metrics need to read at scrape time: the running experiments and which of them fail the sample-ratio check. */
export type ExperimentGauges = () => Promise<{ running: number; srmFlagged: number }>;

export interface Metrics {
  telemetry: Telemetry;
  contentType: string;
  /** The Prometheus text exposition of every metric. */
  render(): Promise<string>;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * Prometheus metrics with prom-client, in a registry of this app's own (so two apps in one process,
 * as in tests, never mix). Names follow Prometheus conventions: seconds, totals, a `promptline_` prefix.
 */
export function createMetrics(experiments: ExperimentGauges): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'promptline_' });
  const on = { registers: [registry] };

  const requests = new Counter({
    name: 'promptline_http_requests_total',
    help: 'HTTP requests answered, by route template and status',
    labelNames: ['method', 'route', 'status'],
    ...on,
  });
  const requestSeconds = new Histogram({
    name: 'promptline_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route template',
    labelNames: ['method', 'route'],
    buckets: LATENCY_BUCKETS,
    ...on,
  });
  const attempts = new Counter({
    name: 'promptline_model_attempts_total',
    help: 'Calls to a model, by outcome: ok, retried (failed and tried again), timeout, 4xx, 5xx, error',
    labelNames: ['provider', 'model', 'outcome'],
    ...on,
  });
  const attemptSeconds = new Histogram({
    name: 'promptline_model_attempt_duration_seconds',
    help: 'Duration of one call to a model',
    labelNames: ['provider', 'model'],
    buckets: LATENCY_BUCKETS,
    ...on,
  });
  const tokens = new Counter({
    name: 'promptline_model_tokens_total',
    help: 'Tokens of answered model calls, by kind (prompt, completion)',
    labelNames: ['provider', 'model', 'kind'],
    ...on,
  });
  const cost = new Counter({ name: 'promptline_model_cost_usd_total', help: 'Cost of answered model calls in USD', labelNames: ['provider', 'model'], ...on });
  const commitWrites = new Histogram({
    name: 'promptline_commit_batch_writes',
    help: 'Writes carried by one group commit',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000],
    ...on,
  });
  const commitSeconds = new Histogram({
    name: 'promptline_commit_duration_seconds',
    help: 'Time of one group commit: the transaction and its fsync',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    ...on,
  });
  const cache = new Counter({
    name: 'promptline_cache_lookups_total',
    help: 'In-memory cache lookups, by cache and result (hit, miss)',
    labelNames: ['cache', 'result'],
    ...on,
  });
  let gauges: Promise<{ running: number; srmFlagged: number }> | null = null;
  const readGauges = () => {
    gauges ??= experiments();
    return gauges;
  };
  new Gauge({
    name: 'promptline_experiments_running',
    help: 'Experiments running now',
    async collect() {
      this.set((await readGauges()).running);
    },
    ...on,
  });
  new Gauge({
    name: 'promptline_experiments_srm_flagged',
    help: 'Running experiments whose exposures do not follow their weights (sample-ratio mismatch, p < 0.001)',
    async collect() {
      this.set((await readGauges()).srmFlagged);
    },
    ...on,
  });

  const telemetry: Telemetry = {
    request(method, route, status, seconds) {
      requests.inc({ method, route, status: String(status) });
      requestSeconds.observe({ method, route }, seconds);
    },
    modelAttempt(provider, model, outcome: ModelAttemptOutcome, seconds) {
      attempts.inc({ provider, model, outcome });
      attemptSeconds.observe({ provider, model }, seconds);
    },
    usage(provider, model, promptTokens, completionTokens, costUsd) {
      tokens.inc({ provider, model, kind: 'prompt' }, promptTokens);
      tokens.inc({ provider, model, kind: 'completion' }, completionTokens);
      cost.inc({ provider, model }, costUsd);
    },
    commit(writes, seconds) {
      commitWrites.observe(writes);
      commitSeconds.observe(seconds);
    },
    cache(name, hit) {
      cache.inc({ cache: name, result: hit ? 'hit' : 'miss' });
    },
  };

  return {
    telemetry,
    contentType: registry.contentType,
    async render() {
      gauges = null; // read the experiments once per scrape, for both gauges
      return registry.metrics();
    },
  };
}
