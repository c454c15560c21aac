import { Kind, Type, type Static } from '@sinclair/typebox';
import { invalidIssue, type Issue } from '../../lib/errors.js';
import { Nullable } from '../../lib/schemas.js';

/**
 * The metrics an experiment is judged on. A metric reads either the outcomes the application sends
 * (`source: "outcomes"`, one event type) or the runs Promptline stored itself (`source: "runs"`:
 * latency, cost, errors, tokens, available without any outcome). Its role says what it is for:
 * the primary and secondary metrics are the goals (corrected together for multiple testing), a
 * guardrail must not get worse. Its direction says which way is better.
 */

export const OUTCOME_KINDS = ['success_rate', 'mean'] as const;
const RUN_KINDS = ['latency_ms', 'ttft_ms', 'cost_usd', 'error_rate', 'total_tokens', 'schema_valid_rate'] as const;
const EVALUATOR_KINDS = ['mean_score', 'pass_rate'] as const;
export type OutcomeKind = (typeof OUTCOME_KINDS)[number];
export type RunKind = (typeof RUN_KINDS)[number];
export type EvaluatorMetricKind = (typeof EVALUATOR_KINDS)[number];
export type MetricKindName = OutcomeKind | RunKind | EvaluatorMetricKind;

/** Kinds whose per-user value is a 0/1 share: they cannot be capped. */
const RATE_KINDS: ReadonlySet<MetricKindName> = new Set(['success_rate', 'error_rate', 'schema_valid_rate', 'pass_rate']);
/** Runs kinds where more is better (the default direction of runs metrics is lower). */
const HIGHER_RUN_KINDS: ReadonlySet<MetricKindName> = new Set(['schema_valid_rate']);
const isRateKind = (kind: MetricKindName) => RATE_KINDS.has(kind);

const KIND_DESCRIPTIONS: Record<MetricKindName, string> = {
  success_rate: 'share of exposed users with at least one outcome of the event type with is_success = true',
  mean: "mean over exposed users of each user's sum of numeric_value (0 for users without one)",
  latency_ms: "runs: mean over users with runs of each user's mean latency per run, in milliseconds",
  ttft_ms:
    "runs: mean over users with streamed runs of each user's mean time to first token per streamed run, in milliseconds (runs that were not streamed have none and are left out)",
  cost_usd: "runs: mean over users with runs of each user's mean cost per run, in USD",
  error_rate:
    "runs: mean over users with runs or failed renders of each user's share of calls that failed (a run with status error, or a call that failed to render the variant's version: 422)",
  total_tokens: "runs: mean over users with runs of each user's mean total tokens per run",
  schema_valid_rate:
    "runs: mean over users with checked runs of each user's share of outputs that satisfied the version's json response_format (runs without one, failed runs and answers of tool calls alone are not counted); higher is better",
  mean_score: "evaluator: mean over users with scored runs of each user's mean score per scored run (online scoring: docs/evaluations.md)",
  pass_rate: "evaluator: mean over users with scored runs of each user's share of scored runs that passed",
};

const literals = <T extends string>(values: readonly T[], description: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  );

export const MetricKindSchema = literals(
  [...OUTCOME_KINDS, ...RUN_KINDS, ...EVALUATOR_KINDS],
  Object.entries(KIND_DESCRIPTIONS)
    .map(([k, d]) => `${k}: ${d}`)
    .join('; '),
);
const RoleSchema = literals(
  ['primary', 'secondary', 'guardrail'] as const,
  'primary: decides the experiment (at most one); secondary: another goal, corrected together with the primary; guardrail: must not get worse (tested one-sided, on its own)',
);
export const DirectionSchema = literals(
  ['higher', 'lower'] as const,
  'which way is better (default: higher for outcomes and schema_valid_rate, lower for other runs metrics)',
);

const CAP_DESCRIPTION =
  'mean metrics only: per-user values above the cap are clamped to it before the statistics, so one whale cannot decide the experiment. Either an absolute number, or {"percentile": p} with 0 < p < 1, the nearest-rank percentile of the per-user values over all of the metric\'s users (users without data count as 0)';
/** Documented as number | {percentile}; checked in normaliseMetrics (the request validator handles unions of literals only). */
export type Cap = number | { percentile: number };
const CapSchema = Type.Unsafe<Cap>({
  [Kind]: 'Unknown',
  description: CAP_DESCRIPTION,
  anyOf: [Type.Number(), Type.Object({ percentile: Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 }) })],
});

export const MetricInputSchema = Type.Object({
  name: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'how the metric is shown; default "<event_type>:<kind>", "runs:<kind>" or "<evaluator>:<kind>"' }),
  ),
  source: Type.Optional(
    literals(
      ['outcomes', 'runs', 'evaluator'] as const,
      "outcomes (default): the event type the application tracks; runs: what Promptline measured on every run; evaluator: the online scores of an evaluator attached to the experiment's prompt",
    ),
  ),
  event_type: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'required for outcome metrics; absent for the others' })),
  evaluator: Type.Optional(
    Type.String({ minLength: 1, maxLength: 128, description: 'required for evaluator metrics: the evaluator whose online scores are read' }),
  ),
  kind: MetricKindSchema,
  role: RoleSchema,
  direction: Type.Optional(DirectionSchema),
  cap: Type.Optional(CapSchema),
});
export type MetricInput = Static<typeof MetricInputSchema>;

export const MetricSchema = Type.Object({
  name: Type.String(),
  source: literals(['outcomes', 'runs', 'evaluator'] as const, 'where the per-user values come from'),
  event_type: Nullable(Type.String()),
  evaluator: Type.Optional(Type.String({ description: 'evaluator metrics only: whose online scores' })),
  kind: MetricKindSchema,
  role: RoleSchema,
  direction: DirectionSchema,
  cap: Nullable(CapSchema),
});
export type MetricDef = Static<typeof MetricSchema>;

const MAX_METRICS = 20;

const issue = (path: (string | number)[], why: string) => invalidIssue('body', ['metrics', ...path], why);

function checkCap(cap: unknown, i: number, kind: MetricKindName, issues: Issue[]): Cap | null {
  if (cap === undefined || cap === null) return null;
  if (isRateKind(kind)) {
    issues.push(issue([i, 'cap'], `a ${kind} metric cannot be capped: capping applies to mean metrics`));
    return null;
  }
  if (typeof cap === 'number' && Number.isFinite(cap)) return cap;
  if (typeof cap === 'object' && !Array.isArray(cap) && Object.keys(cap).length === 1) {
    const p = (cap as { percentile?: unknown }).percentile;
    if (typeof p === 'number' && p > 0 && p < 1) return { percentile: p };
  }
  issues.push(issue([i, 'cap'], 'cap must be a number or {"percentile": p} with 0 < p < 1'));
  return null;
}

/**
 * Checks declared metrics and fills in their defaults. Pure: every problem becomes an issue at the
 * field's location, so one 422 lists them all.
 */
export function normaliseMetrics(inputs: readonly MetricInput[]): { metrics: MetricDef[]; issues: Issue[] } {
  const issues: Issue[] = [];
  const metrics: MetricDef[] = [];
  if (inputs.length > MAX_METRICS) return { metrics, issues: [issue([], `at most ${MAX_METRICS} metrics`)] };
  const names = new Set<string>();
  const measures = new Set<string>();
  inputs.forEach((m, i) => {
    const source = m.source ?? 'outcomes';
    const kinds: readonly string[] = source === 'runs' ? RUN_KINDS : source === 'evaluator' ? EVALUATOR_KINDS : OUTCOME_KINDS;
    if (!kinds.includes(m.kind)) issues.push(issue([i, 'kind'], `a ${source} metric's kind is one of ${kinds.join(', ')}`));
    if (source === 'outcomes' && m.event_type === undefined) issues.push(issue([i, 'event_type'], 'an outcome metric needs its event_type'));
    if (source !== 'outcomes' && m.event_type !== undefined) issues.push(issue([i, 'event_type'], `a ${source} metric has no event_type`));
    if (source === 'evaluator' && m.evaluator === undefined) issues.push(issue([i, 'evaluator'], 'an evaluator metric names its evaluator'));
    if (source !== 'evaluator' && m.evaluator !== undefined) issues.push(issue([i, 'evaluator'], 'only an evaluator metric names an evaluator'));
    // Scores are bounded (0–1, 1–5): there is no whale to cap.
    if (source === 'evaluator' && m.cap !== undefined && m.cap !== null) issues.push(issue([i, 'cap'], 'an evaluator metric cannot be capped'));
    if (m.role === 'primary' && metrics.some((d) => d.role === 'primary')) issues.push(issue([i, 'role'], 'at most one metric can be primary'));
    const eventType = source === 'outcomes' ? (m.event_type ?? null) : null;
    const evaluator = source === 'evaluator' ? m.evaluator : undefined;
    const measure = `${source}\u0000${eventType ?? evaluator}\u0000${m.kind}`;
    if (measures.has(measure)) issues.push(issue([i], 'this metric is declared twice'));
    measures.add(measure);
    const name = m.name ?? `${eventType ?? evaluator ?? 'runs'}:${m.kind}`;
    if (names.has(name)) issues.push(issue([i, 'name'], `metric name '${name}' is used twice`));
    names.add(name);
    const cap = source === 'evaluator' ? null : checkCap(m.cap, i, m.kind, issues);
    metrics.push({
      name,
      source,
      event_type: eventType,
      ...(evaluator === undefined ? {} : { evaluator }),
      kind: m.kind,
      role: m.role,
      direction: m.direction ?? (source === 'runs' && !HIGHER_RUN_KINDS.has(m.kind) ? 'lower' : 'higher'),
      cap,
    });
  });
  return { metrics, issues };
}

/** The legacy `primary_metric` field: the primary metric when it reads outcomes, else null. */
export function legacyPrimary(metrics: readonly MetricDef[]): { event_type: string; kind: OutcomeKind } | null {
  const p = metrics.find((m) => m.role === 'primary');
  return p?.source === 'outcomes' && p.event_type !== null ? { event_type: p.event_type, kind: p.kind as OutcomeKind } : null;
}

/** A stored metric as the input that declares it again (to re-check a list after a change). */
function asInput({ event_type, cap, ...rest }: MetricDef): MetricInput {
  return { ...rest, ...(event_type === null ? {} : { event_type }), ...(cap === null ? {} : { cap }) };
}

/** `primary_metric: X` means "X is the primary metric, higher is better": it replaces the primary and keeps the rest. */
export function withLegacyPrimary(metrics: readonly MetricDef[], primary: { event_type: string; kind: OutcomeKind } | null): MetricInput[] {
  const rest = metrics.filter((m) => m.role !== 'primary').map(asInput);
  return primary === null ? rest : [{ event_type: primary.event_type, kind: primary.kind, role: 'primary', direction: 'higher' }, ...rest];
}
