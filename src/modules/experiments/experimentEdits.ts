import type { Sql } from '../../db/sql.js';
import { invalidIssue, type Issue } from '../../lib/errors.js';
import * as repo from './experiments.repo.js';
import { normaliseWeights } from './experimentModel.js';
import { bucketRanges } from './assignment.js';
import { normaliseMetrics, withLegacyPrimary, type MetricDef } from './metrics.js';
import type { CreateExperimentInput, PatchExperimentInput } from './experiments.schemas.js';
import type { TypedShape } from './experimentTypes.js';

/**
 * What a create or an update checks and the record it writes, apart from the service's transaction
 * and change log, so each rule reads on its own.
 */

const item = (path: (string | number)[], why: string): Issue => invalidIssue('body', path, why);

/** What the variants' check asks of prompts, inside the write it guards. */
interface PromptVersions {
  versionExists(db: Sql, projectId: string, promptId: string, version: number): Promise<boolean>;
}

/** Variants must name versions of the experiment's prompt, with unique keys; control must be one of them. */
export async function checkVariants(
  db: Sql,
  prompts: PromptVersions,
  projectId: string,
  promptId: string,
  variants: ReadonlyArray<{ key: string; version: number }>,
  control: string | undefined,
): Promise<Issue[]> {
  const errors: Issue[] = [];
  const seen = new Set<string>();
  for (const [i, v] of variants.entries()) {
    if (seen.has(v.key)) errors.push(item(['variants', i, 'key'], `variant key '${v.key}' is used twice`));
    seen.add(v.key);
    if (!(await prompts.versionExists(db, projectId, promptId, v.version)))
      errors.push(item(['variants', i, 'version'], `prompt '${promptId}' has no version ${v.version}`));
  }
  if (control !== undefined && !seen.has(control)) errors.push(item(['control'], `control '${control}' is not one of the variant keys`));
  return errors;
}

/** A rollout's candidate must be a version of its prompt. */
export async function checkCandidate(db: Sql, prompts: PromptVersions, projectId: string, promptId: string, version: number): Promise<Issue[]> {
  return (await prompts.versionExists(db, projectId, promptId, version)) ? [] : [item(['candidate_version'], `prompt '${promptId}' has no version ${version}`)];
}

/** What an evaluator metric's check asks of evaluators (the evaluators module's), inside the write it guards. */
export interface MetricEvaluators {
  /** Whether the project has this evaluator, archived or not (an archived one's scores stay readable). */
  evaluatorExists(db: Sql, projectId: string, evaluatorId: string): Promise<boolean>;
}

/**
 * An evaluator metric must name an evaluator of the experiment's project: another project's id,
 * or one never made, would be a metric that can never have a value. Checked where a request
 * declares metrics (`metrics` of a create or a patch; `primary_metric` names no evaluator).
 */
export async function checkMetricEvaluators(
  db: Sql,
  evaluators: MetricEvaluators,
  projectId: string,
  metrics: PatchExperimentInput['metrics'],
): Promise<Issue[]> {
  const errors: Issue[] = [];
  for (const [i, m] of (metrics ?? []).entries()) {
    if (m.source !== 'evaluator' || m.evaluator === undefined) continue;
    if (!(await evaluators.evaluatorExists(db, projectId, m.evaluator)))
      errors.push(item(['metrics', i, 'evaluator'], `evaluator '${m.evaluator}' not found in this project`));
  }
  return errors;
}

/** Sticky assignments must keep their variant: a key with assigned users cannot disappear. */
export async function checkAssignedVariantsKept(db: Sql, projectId: string, id: string, variants: ReadonlyArray<{ key: string }>): Promise<Issue[]> {
  const errors: Issue[] = [];
  const kept = new Set(variants.map((v) => v.key));
  for (const [key, users] of await repo.assignedCountsByVariant(db, projectId, id)) {
    if (!kept.has(key)) errors.push(item(['variants'], `variant '${key}' has ${users} assigned users and cannot be removed`));
  }
  return errors;
}

/**
 * The metrics a create or patch ends with: `metrics` replaces the list, `primary_metric` (the
 * older shorthand) replaces only its primary; both at once would be ambiguous.
 */
export function declaredMetrics(input: PatchExperimentInput, current: readonly MetricDef[]): { metrics: MetricDef[]; issues: Issue[] } {
  if (input.metrics !== undefined && input.primary_metric !== undefined)
    return { metrics: [], issues: [item(['primary_metric'], 'give metrics or primary_metric, not both: metrics can name the primary itself')] };
  if (input.metrics !== undefined) return normaliseMetrics(input.metrics);
  if (input.primary_metric !== undefined) return normaliseMetrics(withLegacyPrimary(current, input.primary_metric));
  return { metrics: [...current], issues: [] };
}

/** A new experiment's record: a draft, every setting the input leaves out at its default (`shape`: what its type set). */
export function newExperimentRecord(input: CreateExperimentInput, shape: TypedShape, id: string, now: string): repo.ExperimentRecord {
  return {
    id,
    prompt_id: input.prompt_id,
    name: input.name ?? null,
    hypothesis: input.hypothesis ?? null,
    status: 'draft',
    variants: normaliseWeights(shape.variants),
    control: shape.control ?? shape.variants[0]!.key,
    coverage: shape.coverage ?? 1,
    seed: input.seed ?? id,
    metrics: shape.metrics,
    target_mde: input.target_mde ?? 0.1,
    cuped: input.cuped ?? false,
    cuped_days: input.cuped_days ?? 14,
    assignments_diverge: false,
    winner: null,
    shipped_version: null,
    created_at: now,
    updated_at: now,
    started_at: null,
    stopped_at: null,
    type: input.type ?? 'ab',
    rollout: shape.rollout,
    bandit: shape.bandit,
    ended_as: null,
    end_reason: null,
  };
}

/** The control a patch ends with: the one named, else the current one while its variant stays, else the first variant. */
export function patchedControl(row: repo.ExperimentRecord, input: PatchExperimentInput): string {
  const variants = input.variants ?? row.variants;
  return input.control ?? (variants.some((v) => v.key === row.control) ? row.control : variants[0]!.key);
}

/** A record after a patch: what the input names replaces what the record had (a null name or hypothesis clears it). */
export function patchedRecord(
  row: repo.ExperimentRecord,
  input: PatchExperimentInput,
  control: string,
  metrics: MetricDef[],
  now: string,
): repo.ExperimentRecord {
  return {
    ...row,
    name: input.name !== undefined ? input.name : row.name,
    hypothesis: input.hypothesis !== undefined ? input.hypothesis : row.hypothesis,
    variants: input.variants ? normaliseWeights(input.variants) : row.variants,
    control,
    coverage: input.coverage ?? row.coverage,
    seed: input.seed ?? row.seed,
    metrics,
    target_mde: input.target_mde ?? row.target_mde,
    cuped: input.cuped ?? row.cuped,
    cuped_days: input.cuped_days ?? row.cuped_days,
    updated_at: now,
  };
}

/**
 * Whether an update can move a user who is already assigned: the hash then may put them in another
 * variant (or none) than the one stored. Growing coverage cannot (each variant's range only grows,
 * GrowthBook's property); a new seed, new weights, a shrunk coverage or reordered variants can.
 */
export function assignmentsMayMove(before: repo.ExperimentRecord, after: repo.ExperimentRecord): boolean {
  if (before.seed !== after.seed) return true;
  const rangesOf = (record: repo.ExperimentRecord) => {
    const ranges = bucketRanges(
      record.variants.map((v) => v.weight),
      record.coverage,
    );
    return new Map(record.variants.map((v, i) => [v.key, ranges[i]!]));
  };
  const now = rangesOf(after);
  for (const [key, [lo, hi]] of rangesOf(before)) {
    const range = now.get(key);
    if (range === undefined || range[0] > lo || range[1] < hi) return true;
  }
  return false;
}
