import { useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api';
import { formatTime } from '../../lib/format';
import type { ExperimentCheck, ExperimentDetail } from '../../lib/types';
import { TableScroll } from '../parts';

interface GuardrailFigure {
  name: string;
  control: { value: number | null };
  candidate: { value: number | null };
  interval: [number, number] | null;
  worse: boolean;
}

const num = (x: number | null) => (x === null ? '–' : String(Number(x.toPrecision(3))));
const signed = (x: number) => `${x >= 0 ? '+' : ''}${num(x)}`;
const guardrailsOf = (figures: unknown): GuardrailFigure[] => (figures as { guardrails?: GuardrailFigure[] } | null)?.guardrails ?? [];
const usersOf = (figures: unknown): number | null => (figures as { users?: number } | null)?.users ?? null;

/** How a rollout stands, in one sentence at the top: rolled back (and why), shipped, or waiting for a person. */
function Banner({ experiment: e }: { experiment: ExperimentDetail }) {
  const production = e.variants.find((v) => v.key === e.control)?.version;
  if (e.status === 'rolled_back')
    return (
      <p className="banner banner-rolled-back" role="alert">
        <strong>Rolled back.</strong> {e.reason} Production still serves v{production}.
      </p>
    );
  if (e.status === 'shipped')
    return (
      <p className="banner banner-shipped" role="status">
        <strong>Shipped.</strong> {e.reason}
      </p>
    );
  if (e.rollout?.awaiting_approval)
    return (
      <p className="banner banner-waiting" role="status">
        <strong>Waiting for approval.</strong> The last step met its minimums with no guardrail worse: stop and ship the candidate to move production.
      </p>
    );
  return null;
}

/**
 * A rollout's timeline on its experiment page: the banner, the ramp (each step, when it began, the
 * current one marked) and every check with the guardrail figures it read.
 */
export function RolloutTimeline({ experiment: e }: { experiment: ExperimentDetail }) {
  const path = `/experiments/${encodeURIComponent(e.experiment_id)}/checks`;
  const checks = useQuery({ queryKey: ['checks', e.experiment_id, e.updated_at], queryFn: () => api<{ data: ExperimentCheck[] }>('GET', path) });
  const r = e.rollout;
  if (r === null) return null;
  const list = checks.data?.data ?? [];
  const began = (i: number) => (i === 0 ? e.started_at : (list.find((c) => c.action === 'advance' && c.step === i)?.checked_at ?? null));
  const running = e.status === 'running' || e.status === 'paused';
  return (
    <section aria-labelledby="rollout-title" className="rollout">
      <Banner experiment={e} />
      <h2 id="rollout-title">Rollout</h2>
      <p>
        Each step puts that share of users in the rollout, half of them on the candidate and half on production for comparison; the others are served production
        and not counted. {r.auto_ship ? 'The last step’s success ships the candidate.' : 'The last step’s success waits for a person to ship.'}
      </p>
      <ol className="rollout-steps">
        {r.steps.map((s, i) => {
          const state = i < r.step ? 'done' : i === r.step ? (running ? 'current' : 'last') : 'to come';
          return (
            <li key={s.percent} className={`rollout-step rollout-step-${state.replace(' ', '-')}`} aria-current={state === 'current' ? 'step' : undefined}>
              <strong>{s.percent}%</strong> — at least {s.min_users} users and {s.min_minutes} minutes
              {began(i) !== null && i <= r.step ? <> · began {formatTime(began(i))}</> : null}
              {state === 'current' ? <span className="chip">current</span> : null}
            </li>
          );
        })}
      </ol>
      <h3>Checks</h3>
      {list.length === 0 ? (
        <p>{checks.isPending ? 'Loading…' : 'No check yet: the scheduler checks a running rollout every hour.'}</p>
      ) : (
        <TableScroll>
          <table className="compact rollout-checks">
            <thead>
              <tr>
                <th scope="col">Checked</th>
                <th scope="col">Action</th>
                <th scope="col">Step</th>
                <th scope="col">Users</th>
                <th scope="col">Guardrails (production vs candidate, interval of the difference)</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {[...list].reverse().map((c) => (
                <tr key={c.id} className={`check-${c.action}`}>
                  <td>
                    {formatTime(c.checked_at)}
                    {c.trigger === 'manual' ? ' (asked for)' : ''}
                  </td>
                  <td>{c.action}</td>
                  <td>{c.step === null ? '–' : `${c.step + 1} (${c.percent}%)`}</td>
                  <td>{usersOf(c.figures) ?? '–'}</td>
                  <td>
                    <ul className="guardrail-figures">
                      {guardrailsOf(c.figures).map((g) => (
                        <li key={g.name} className={g.worse ? 'error' : undefined}>
                          {g.name}: {num(g.control.value)} vs {num(g.candidate.value)}{' '}
                          {g.interval === null ? '(not enough data)' : `[${signed(g.interval[0])}, ${signed(g.interval[1])}]`}
                          {g.worse ? ' — worse' : ''}
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td>{c.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}
