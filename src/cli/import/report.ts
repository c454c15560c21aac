import type { Applied, Plan } from './plan.js';
import type { Problem } from './types.js';

/** The plan as a person reads it: per prompt, its versions (new or already there) and label moves. */
export function formatPlan(plan: Plan): string {
  const lines: string[] = [];
  for (const prompt of plan.prompts) {
    const created = prompt.steps.filter((s) => s.action === 'create').length;
    const state = prompt.exists ? (created === 0 && prompt.labels.length === 0 ? 'nothing to do' : 'exists') : 'new';
    lines.push(`prompt ${prompt.prompt_id} (${state})`);
    for (const step of prompt.steps) {
      lines.push(step.action === 'create' ? `  + version ${step.version} from ${step.origin}` : `  = ${step.origin} already there as version ${step.version}`);
    }
    for (const move of prompt.labels) lines.push(`  label ${move.label} → version ${move.version}`);
  }
  if (plan.prompts.length === 0) lines.push('nothing to import');
  return lines.join('\n');
}

export function formatProblems(problems: readonly Problem[]): string {
  if (problems.length === 0) return '';
  const lines = problems.map((p) => `  ${p.prompt}${p.version === null ? '' : ` ${p.version}`}: ${p.reason}`);
  return [`not mapped or only in part (${problems.length}):`, ...lines].join('\n');
}

export function formatApplied(applied: Applied): string {
  return applied.done.length === 0 ? 'nothing changed' : applied.done.join('\n');
}

/** The whole run for machines (`--json`): the plan without the versions' content, what was applied, every problem. */
export function planJson(plan: Plan, applied: Applied | null, counts: ReturnType<typeof summary>, dryRun: boolean) {
  return {
    dry_run: dryRun,
    prompts: plan.prompts.map((p) => ({
      prompt_id: p.prompt_id,
      exists: p.exists,
      versions: p.steps.map((s) => ({ from: s.origin, action: s.action, version: s.version })),
      labels: p.labels.map((l) => ({ label: l.label, version: l.version })),
    })),
    applied: applied?.done ?? null,
    problems: [...plan.problems, ...(applied?.problems ?? [])],
    counts,
  };
}

/** Counts for the last line: what a re-run would tell apart (new versions, versions already there). */
export function summary(plan: Plan): { create: number; exists: number; labels: number } {
  const steps = plan.prompts.flatMap((p) => p.steps);
  return {
    create: steps.filter((s) => s.action === 'create').length,
    exists: steps.filter((s) => s.action === 'exists').length,
    labels: plan.prompts.reduce((n, p) => n + p.labels.length, 0),
  };
}
