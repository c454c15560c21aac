import type { ExperimentView } from '../modules/experiments/experiments.schemas.js';
import { formatTable } from './table.js';

/** One check as `GET /experiments/{id}/checks` lists it. */
export interface CheckRow {
  checked_at: string;
  trigger: string;
  action: string;
  reason: string;
  step: number | null;
  percent: number | null;
  figures: unknown;
}

interface Figure {
  name: string;
  control: { value: number | null };
  candidate: { value: number | null };
  interval: [number, number] | null;
  worse: boolean;
}

const num = (x: number | null) => (x === null ? '-' : String(Number(x.toPrecision(3))));
const signed = (x: number) => `${x >= 0 ? '+' : ''}${num(x)}`;

/** A check's guardrails in one cell: production's value, the candidate's, the interval of the difference, WORSE when it is. */
function guardrailCell(figures: unknown): string {
  const guardrails = (figures as { guardrails?: Figure[] } | null)?.guardrails ?? [];
  return guardrails
    .map((g) => {
      const interval = g.interval === null ? 'not enough data' : `[${signed(g.interval[0])}, ${signed(g.interval[1])}]`;
      return `${g.name} ${num(g.control.value)} vs ${num(g.candidate.value)} ${interval}${g.worse ? ' WORSE' : ''}`;
    })
    .join('; ');
}

/**
 * A rollout's timeline as `experiments show` prints it: where it is (or how it ended, and why),
 * its steps with when each began, and every check with the guardrail figures it read.
 */
export function rolloutTimeline(e: ExperimentView, checks: readonly CheckRow[]): string {
  const r = e.rollout;
  if (r === null) return '';
  const lines: string[] = [];
  const ending = r.auto_ship ? 'ships by itself when the last step succeeds' : "waits for a person's approval when the last step succeeds";
  lines.push(`rollout: step ${r.step + 1} of ${r.steps.length} (${r.current_percent}% of users, half of them on the candidate); ${ending}`);
  if (e.status === 'rolled_back') lines.push(`ROLLED BACK: ${e.reason}`);
  else if (e.status === 'shipped') lines.push(`SHIPPED: ${e.reason}`);
  else if (r.awaiting_approval) lines.push('WAITING FOR APPROVAL: stop with --winner candidate --ship to ship it');
  const began = (i: number) => (i === 0 ? e.started_at : (checks.find((c) => c.action === 'advance' && c.step === i)?.checked_at ?? null));
  lines.push(
    '',
    formatTable(
      r.steps.map((s, i) => ({ step: i + 1, percent: `${s.percent}%`, min_users: s.min_users, min_minutes: s.min_minutes, began: began(i) })),
      ['step', 'percent', 'min_users', 'min_minutes', 'began'],
    ),
  );
  lines.push(
    '',
    formatTable(
      checks.map((c) => ({
        ...c,
        step: c.step === null ? null : `${c.step + 1} (${c.percent}%)`,
        users: (c.figures as { users?: number } | null)?.users ?? null,
        guardrails: guardrailCell(c.figures),
      })),
      ['checked_at', 'trigger', 'action', 'step', 'users', 'guardrails', 'reason'],
    ),
  );
  return lines.join('\n');
}
