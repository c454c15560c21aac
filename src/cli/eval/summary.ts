/**
 * What `promptline eval run` prints of a finished evaluation, and the CI gate's verdict. Pure: an
 * evaluation (as GET /evaluations/{id} answers it) in, text out.
 */
import type { EvaluationView } from '../../modules/evaluations/evaluations.schemas.js';

type EvaluatorResult = EvaluationView['evaluators'][number];

const pct = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(1)}%`);
const num = (x: number | null, digits = 3) => (x === null ? '–' : x.toFixed(digits));
const signed = (x: number | null, asPct: boolean) => (x === null ? '–' : `${x > 0 ? '+' : ''}${asPct ? `${(x * 100).toFixed(1)} pts` : x.toFixed(3)}`);
const pValue = (p: number | null) => (p === null ? '–' : p < 0.001 ? '< 0.001' : p.toFixed(3));

function row(e: EvaluatorResult) {
  const c = e.comparison;
  const passFail = e.scale === 'pass_fail';
  const of = (s: typeof c.candidate) => (passFail ? pct(s.pass_rate) : num(s.mean));
  const interval = c.ci_low === null || c.ci_high === null ? '–' : `[${signed(c.ci_low, passFail)}, ${signed(c.ci_high, passFail)}]`;
  const errors = c.candidate.errors + c.baseline.errors;
  return {
    evaluator: e.evaluator_id,
    candidate: of(c.candidate),
    baseline: of(c.baseline),
    difference: signed(c.difference, passFail),
    interval,
    p: pValue(c.p_value),
    wtl: `${c.wins} / ${c.ties} / ${c.losses}`,
    errors: errors === 0 ? '0' : `${errors} (judge: ${c.candidate.judge_errors + c.baseline.judge_errors})`,
    verdict: c.verdict === 'worse' ? 'worse' : c.verdict === 'better' ? 'better' : 'no significant difference',
    n: c.n,
  };
}

/** The evaluators that are significantly worse for the candidate among those that gate (all when none is named). */
export function worseOn(e: EvaluationView, gating: readonly string[]): string[] {
  return e.evaluators.filter((x) => (gating.length === 0 || gating.includes(x.evaluator_id)) && x.comparison.verdict === 'worse').map((x) => x.evaluator_id);
}

const header = (e: EvaluationView) =>
  `${e.prompt_id}: version ${e.versions.candidate.version} (${e.versions.candidate.ref}) against version ${e.versions.baseline.version} (${e.versions.baseline.ref}) on ${e.dataset_id} v${e.dataset_version}`;

/** A Markdown summary fit for a pull-request comment. */
export function markdownSummary(e: EvaluationView, gating: readonly string[]): string {
  const worse = worseOn(e, gating);
  const lines = [
    `### Promptline evaluation: ${worse.length > 0 ? `❌ worse on ${worse.map((w) => `\`${w}\``).join(', ')}` : '✅ not significantly worse'}`,
    '',
    `**${header(e)}** — ${e.status}, ${e.progress.done}/${e.progress.total} items × versions, cost $${e.progress.cost_usd.toFixed(4)} (\`${e.evaluation_id}\`)`,
    '',
    '| evaluator | candidate | baseline | difference (95% CI) | p | wins / ties / losses | unscored | verdict |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const e2 of e.evaluators) {
    const r = row(e2);
    lines.push(
      `| \`${r.evaluator}\` | ${r.candidate} | ${r.baseline} | ${r.difference} ${r.interval} | ${r.p} | ${r.wtl} | ${r.errors} | ${r.verdict === 'worse' ? '**worse**' : r.verdict} |`,
    );
  }
  if (e.status !== 'completed') lines.push('', `> The evaluation ended **${e.status}**: the comparison covers the items finished before it stopped.`);
  lines.push(
    '',
    "Pass rates compare with McNemar's exact test, 1–5 scores with a paired t-test; items a version could not score (judge errors) are left out and counted apart.",
  );
  return `${lines.join('\n')}\n`;
}

/** Plain text for a terminal. */
export function textSummary(e: EvaluationView, gating: readonly string[]): string {
  const lines = [
    header(e),
    `status ${e.status}, ${e.progress.done}/${e.progress.total} done, cost $${e.progress.cost_usd.toFixed(4)}, id ${e.evaluation_id}`,
    '',
  ];
  for (const x of e.evaluators) {
    const r = row(x);
    lines.push(
      `${r.evaluator}: candidate ${r.candidate}, baseline ${r.baseline}, difference ${r.difference} ${r.interval}, p ${r.p}, wins/ties/losses ${r.wtl}, unscored ${r.errors}: ${r.verdict}`,
    );
  }
  const worse = worseOn(e, gating);
  lines.push('', worse.length > 0 ? `worse on: ${worse.join(', ')}` : 'not significantly worse on any gating evaluator');
  return `${lines.join('\n')}\n`;
}

/** One line of progress: a bar, the count, the cost and the time left. */
export function progressLine(e: Pick<EvaluationView, 'status' | 'progress'>, width = 30): string {
  const { done, total, cost_usd: cost, eta_seconds: eta } = e.progress;
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} $${cost.toFixed(4)}${eta === null ? '' : ` ETA ${Math.ceil(eta)}s`} ${e.status}`;
}
