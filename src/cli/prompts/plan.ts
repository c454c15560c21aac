import type { SyncView } from '../../modules/prompts/sync.schemas.js';

type PromptPlan = SyncView['prompts'][number];

const ACTION_MARK: Record<PromptPlan['action'], string> = { create_prompt: '+', new_version: '~', unchanged: ' ' };
const v = (n: number | null) => (n === null ? '(none)' : `v${n}`);

function describe(plan: PromptPlan): string {
  if (plan.action === 'create_prompt') return `create prompt, version ${plan.version}`;
  if (plan.action === 'new_version') return `new version ${plan.version}`;
  return `content unchanged (version ${plan.version})`;
}

/** The plan as a person reads it, one block per prompt, then the totals: what `diff` and `push` print. */
export function formatPlan(view: SyncView, target: string): string {
  const lines = [`Plan against ${target}:`, ''];
  for (const plan of view.prompts) {
    const moves = plan.label_moves.length > 0;
    const mark = plan.conflicts.length > 0 ? 'x' : plan.action === 'unchanged' && moves ? '~' : ACTION_MARK[plan.action];
    lines.push(`${mark} ${plan.prompt_id} (${plan.path}): ${describe(plan)}`);
    for (const move of plan.label_moves) lines.push(`    label ${move.label}: ${v(move.from)} -> ${v(move.to)}`);
    for (const b of plan.breaking) lines.push(`    ! breaking: ${b}`);
    for (const c of plan.conflicts) lines.push(`    x conflict: ${c}`);
  }
  const count = (f: (p: PromptPlan) => boolean) => view.prompts.filter(f).length;
  const created = count((p) => p.action === 'create_prompt');
  const versions = count((p) => p.action === 'new_version');
  const moves = view.prompts.reduce((n, p) => n + p.label_moves.length, 0);
  const breaking = view.prompts.reduce((n, p) => n + p.breaking.length, 0);
  const conflicts = view.prompts.reduce((n, p) => n + p.conflicts.length, 0);
  if (view.prompts.length > 0) lines.push('');
  lines.push(
    view.changes === 0 && conflicts === 0
      ? 'No changes: the server matches the files.'
      : `${view.applied ? 'Applied' : 'Plan'}: ${created} prompt(s) to create, ${versions} new version(s), ${moves} label move(s); ${breaking} breaking change(s), ${conflicts} conflict(s).`,
  );
  return lines.join('\n');
}

/** `diff`'s exit status: 0 nothing to change, 2 changes to make, 1 conflicts (errors exit 1 before). */
export function diffStatus(view: SyncView): number {
  if (view.prompts.some((p) => p.conflicts.length > 0)) return 1;
  return view.changes > 0 ? 2 : 0;
}
