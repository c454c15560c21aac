import type { Verdict } from '../../stats/index.js';
import type { DecisionView } from './results.schemas.js';

/** Past this share of users seen in more than one variant, the split itself is broken. */
const MULTIPLE_VARIANT_LIMIT = 0.01;
/**
 * Past this many more of its users (as a share) than control's with a call that failed to render,
 * a variant is broken for its callers: no statistics needed, and none could say it otherwise (a
 * variant failing for every user has no variation, so no test would call it worse).
 */
const RENDER_FAILURE_LIMIT = 0.01;

/** What decides one treatment variant, gathered from the report (pure data). */
export interface DecisionInput {
  variant: string;
  health: { srmFlagged: boolean; srmPValue: number; multipleVariantShare: number };
  /** The primary metric's comparison of this variant with control, or null without a primary metric. */
  primary: { name: string; verdict: Verdict; text: string } | null;
  /** Shares of users whose calls failed to render their variant's version (422): this variant's and control's. */
  renderFailed: { share: number; controlShare: number };
  /** Guardrails this variant made worse. */
  worseGuardrails: ReadonlyArray<{ name: string; text: string }>;
  /** Guardrails that could not be checked for this variant (not enough data): no ship rests on them. */
  uncheckedGuardrails?: ReadonlyArray<{ name: string; text: string }>;
  /** Total exposed users the primary needs to detect the target effect (null: cannot be estimated yet), and the users so far. */
  sample: { needed: number | null; users: number; perDay: number | null; targetMde: number; why?: string };
}

const percent = (x: number) => `${Number((x * 100).toFixed(1))}%`;
/** "Variant b is …" reads "variant b is …" inside a sentence. */
const lower = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);
const pValue = (p: number) => (p < 0.001 ? 'p<0.001' : `p=${Number(p.toFixed(3))}`);

function keepRunning(input: DecisionInput): DecisionView {
  const { variant, primary, sample } = input;
  const base = { variant, decision: 'keep_running' as const };
  if (primary === null)
    return { ...base, reason: 'Keep running: no primary metric is declared, so nothing decides this experiment yet.', users_needed: null, days_needed: null };
  const effect = `a ${percent(sample.targetMde)} change in ${primary.name}`;
  if (sample.needed === null) {
    const why = sample.why ?? 'the control has no variation or a zero mean yet';
    return { ...base, reason: `Keep running: the users needed to detect ${effect} cannot be estimated yet (${why}).`, users_needed: null, days_needed: null };
  }
  const remaining = Math.max(0, sample.needed - sample.users);
  if (remaining === 0) {
    return {
      ...base,
      reason: `Keep running, or stop without shipping: with ${sample.users} users the experiment can detect ${effect} and has found none, so a real effect, if any, is smaller.`,
      users_needed: 0,
      days_needed: 0,
    };
  }
  const days = sample.perDay === null || sample.perDay <= 0 ? null : Math.ceil((remaining / sample.perDay) * 10) / 10;
  const pace = days === null ? 'no exposure rate yet to say how long that takes' : `about ${days} days at ${Math.round(sample.perDay!)} users a day`;
  return {
    ...base,
    reason: `Keep running: about ${remaining} more users (${pace}) to detect ${effect} with 80% power.`,
    users_needed: remaining,
    days_needed: days,
  };
}

/**
 * One variant's decision, in this order (never ship on an unhealthy experiment):
 * unhealthy (sample-ratio mismatch, or more than 1% of users in several variants) → rollback (calls
 * failed to render the variant for over 1% more of its users than control's, or the primary or any
 * guardrail got worse) → ship (the primary got better, and every guardrail could be checked) → keep running.
 */
export function decide(input: DecisionInput): DecisionView {
  const { variant, health, primary, worseGuardrails } = input;
  const settled = { variant, users_needed: null, days_needed: null };
  if (health.srmFlagged) {
    return {
      ...settled,
      decision: 'unhealthy',
      reason: `Unhealthy: exposures do not follow the weights (sample-ratio mismatch, ${pValue(health.srmPValue)}); find out why before trusting any result.`,
    };
  }
  if (health.multipleVariantShare > MULTIPLE_VARIANT_LIMIT) {
    return {
      ...settled,
      decision: 'unhealthy',
      reason: `Unhealthy: ${percent(health.multipleVariantShare)} of users were seen in more than one variant (over ${percent(MULTIPLE_VARIANT_LIMIT)}); find out why before trusting any result.`,
    };
  }
  const { share, controlShare } = input.renderFailed;
  if (share - controlShare > RENDER_FAILURE_LIMIT) {
    return {
      ...settled,
      decision: 'rollback',
      reason: `Roll back: calls failed to render variant ${variant}'s version for ${percent(share)} of its users (control: ${percent(controlShare)}); it needs inputs its callers do not send.`,
    };
  }
  if (primary?.verdict === 'worse')
    return { ...settled, decision: 'rollback', reason: `Roll back: on the primary metric ${primary.name}, ${lower(primary.text)}.` };
  const [first, ...more] = worseGuardrails;
  if (first !== undefined) {
    const others = more.length === 0 ? '' : ` (and ${more.length} more guardrail${more.length === 1 ? '' : 's'})`;
    return { ...settled, decision: 'rollback', reason: `Roll back: on the guardrail ${first.name}, ${lower(first.text)}${others}.` };
  }
  const unchecked = input.uncheckedGuardrails?.[0];
  if (primary?.verdict === 'better' && unchecked !== undefined) {
    return {
      variant,
      decision: 'keep_running',
      reason: `Keep running: on the primary metric ${primary.name}, ${lower(primary.text)}, but the guardrail ${unchecked.name} cannot be checked yet (${lower(unchecked.text)}), and a guardrail without a figure is no sign of safety.`,
      users_needed: null,
      days_needed: null,
    };
  }
  if (primary?.verdict === 'better') {
    return { ...settled, decision: 'ship', reason: `Ship: on the primary metric ${primary.name}, ${lower(primary.text)}, and no guardrail got worse.` };
  }
  return keepRunning(input);
}
