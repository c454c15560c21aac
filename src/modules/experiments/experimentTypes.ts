import type { Sql } from '../../db/sql.js';
import { invalidIssue, type Issue } from '../../lib/errors.js';
import type { MetricDef } from './metrics.js';
import type { BanditSettings } from './bandit.schemas.js';
import { banditSettings } from './banditShape.js';
import type { CreateExperimentInput, RolloutState, RolloutStep } from './experiments.schemas.js';

/**
 * What each experiment type asks of a create (docs/rollouts-and-bandits.md): an A/B test names its
 * variants; a rollout names only its candidate, since its control is whatever production serves,
 * and its coverage follows its ramp. Pure but for the one read of production's label.
 */

const item = (path: (string | number)[], why: string): Issue => invalidIssue('body', path, why);
const missing = (path: (string | number)[], why: string): Issue => ({ part: 'body', path, kind: 'missing', reason: why });

/**
 * The ramp when none is given: small first, so a bad candidate reaches few users, and more users
 * before each later step, so that a harm inside the tolerance the first step needs (a candidate with
 * three times production's 5% errors) is caught before it reaches everyone (docs/rollouts-and-bandits.md,
 * "What the figures say").
 */
export const DEFAULT_STEPS: readonly RolloutStep[] = [
  { percent: 5, min_users: 100, min_minutes: 60 },
  { percent: 25, min_users: 1000, min_minutes: 60 },
  { percent: 50, min_users: 2000, min_minutes: 60 },
  { percent: 100, min_users: 4000, min_minutes: 60 },
];

/** The built-in guardrails every rollout watches, unless it declares a metric of the same measure itself. */
const BUILT_IN_GUARDRAILS: readonly MetricDef[] = [
  { name: 'runs:error_rate', source: 'runs', event_type: null, kind: 'error_rate', role: 'guardrail', direction: 'lower', cap: null },
  { name: 'runs:latency_ms', source: 'runs', event_type: null, kind: 'latency_ms', role: 'guardrail', direction: 'lower', cap: null },
];

const ROLLOUT_CONTROL = 'control';
const ROLLOUT_CANDIDATE = 'candidate';

/** The variants, control, coverage and plan a create ends with. */
export interface TypedShape {
  variants: Array<{ key: string; version: number; weight?: number }>;
  control: string | undefined;
  coverage: number | undefined;
  rollout: RolloutState | null;
  /** A bandit's settings (banditShape.ts); null for other types. */
  bandit: BanditSettings | null;
  metrics: MetricDef[];
}

const ROLLOUT_ONLY = ['candidate_version', 'steps', 'auto_ship', 'tolerances'] as const;

function abShape(input: CreateExperimentInput, metrics: MetricDef[], issues: Issue[]): TypedShape {
  for (const field of ROLLOUT_ONLY) if (input[field] !== undefined) issues.push(item([field], `${field} is for rollouts (type "rollout") only`));
  if (input.variants === undefined) issues.push(missing(['variants'], 'an A/B experiment needs its variants'));
  const bandit = input.type === 'bandit' ? banditSettings(input, metrics, issues) : null;
  if (bandit === null && input.bandit !== undefined) issues.push(item(['bandit'], 'bandit is for bandits (type "bandit") only'));
  return { variants: input.variants ?? [], control: input.control, coverage: input.coverage, rollout: null, bandit, metrics };
}

/** A ramp's rules the schema cannot say: each step reaches further than the one before. */
function rolloutSteps(input: CreateExperimentInput, issues: Issue[]): RolloutStep[] {
  const steps = input.steps?.map((s) => ({ percent: s.percent, min_users: s.min_users ?? 100, min_minutes: s.min_minutes ?? 60 })) ?? [...DEFAULT_STEPS];
  steps.forEach((step, i) => {
    if (i > 0 && step.percent <= steps[i - 1]!.percent) issues.push(item(['steps', i, 'percent'], 'each step must cover more users than the one before'));
  });
  return steps;
}

async function rolloutShape(
  db: Sql,
  labelVersion: (db: Sql, label: string) => Promise<number | null>,
  input: CreateExperimentInput,
  metrics: MetricDef[],
  issues: Issue[],
): Promise<TypedShape> {
  for (const field of ['variants', 'control', 'coverage'] as const) {
    if (input[field] !== undefined)
      issues.push(
        item([field], `a rollout sets its own ${field}: control serves production's version, the candidate is candidate_version, coverage follows the steps`),
      );
  }
  const steps = rolloutSteps(input, issues);
  const production = await labelVersion(db, 'production');
  if (production === null) issues.push(item(['prompt_id'], `prompt '${input.prompt_id}' has no production label: a rollout ramps a candidate up against it`));
  if (input.candidate_version === undefined) issues.push(missing(['candidate_version'], 'a rollout needs the version it ramps up'));
  else if (input.candidate_version === production) issues.push(item(['candidate_version'], `version ${production} is already what production serves`));
  const measures = new Set(metrics.map((m) => `${m.source}\u0000${m.kind}`));
  const guardrails = BUILT_IN_GUARDRAILS.filter((g) => !measures.has(`${g.source}\u0000${g.kind}`));
  const watched = new Set([...metrics.filter((m) => m.role === 'guardrail'), ...guardrails].map((m) => m.name));
  const tolerances = input.tolerances ?? {};
  for (const [name, t] of Object.entries(tolerances)) {
    if (!watched.has(name)) issues.push(item(['tolerances', name], `'${name}' is not one of the rollout's guardrails (${[...watched].join(', ')})`));
    else if (t.absolute === undefined && t.relative === undefined) issues.push(item(['tolerances', name], 'a tolerance needs absolute, relative or both'));
  }
  return {
    variants: [
      { key: ROLLOUT_CONTROL, version: production ?? 1 },
      { key: ROLLOUT_CANDIDATE, version: input.candidate_version ?? 1 },
    ],
    control: ROLLOUT_CONTROL,
    coverage: steps[0]!.percent / 100,
    rollout: {
      candidate: ROLLOUT_CANDIDATE,
      steps,
      auto_ship: input.auto_ship ?? true,
      step: 0,
      step_started_at: null,
      awaiting_approval: false,
      tolerances,
      evidence_since: null,
    },
    bandit: null,
    metrics: [...metrics, ...guardrails],
  };
}

export async function typedShape(
  db: Sql,
  labelVersion: (db: Sql, label: string) => Promise<number | null>,
  input: CreateExperimentInput,
  metrics: MetricDef[],
  issues: Issue[],
): Promise<TypedShape> {
  const type = input.type ?? 'ab';
  if (type === 'rollout') return rolloutShape(db, labelVersion, input, metrics, issues);
  return abShape(input, metrics, issues);
}
