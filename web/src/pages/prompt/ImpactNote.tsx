import type { Impact } from './impact';
import { callsThatWouldFail } from './impact';

/**
 * The impact of putting a version on a label, as the API answered it: its one-sentence warning,
 * the calls it counted, and (when recent calls would fail) the tick that must be given to go on.
 */
export function ImpactNote({ impact, ticked, onTick, idPrefix }: { impact: Impact; ticked: boolean; onTick: (on: boolean) => void; idPrefix: string }) {
  const failing = callsThatWouldFail(impact);
  const served =
    impact.served_version === null
      ? `'${impact.label}' points at no version yet`
      : impact.label === 'production'
        ? `production serves v${impact.served_version} now`
        : `'${impact.label}' points at v${impact.served_version} now`;
  return (
    <div className="impact" data-testid="impact">
      <p>
        {served}. In the last {impact.window.hours} h: {impact.calls} {impact.calls === 1 ? 'call' : 'calls'}
        {impact.calls_without_user_id > 0 && `, ${impact.calls_without_user_id} without a user id`}.
        {impact.new_required_variables.length === 0
          ? ` v${impact.version} needs no input that the served version does not.`
          : ` v${impact.version} also needs: ${impact.new_required_variables.join(', ')}.`}
      </p>
      {impact.warning !== null && (
        <p className={failing > 0 ? 'impact-warning' : 'muted'} role={failing > 0 ? 'alert' : undefined}>
          {impact.warning}
        </p>
      )}
      {failing > 0 && (
        <label className="impact-tick" htmlFor={`${idPrefix}-understand`}>
          <input id={`${idPrefix}-understand`} type="checkbox" checked={ticked} onChange={(e) => onTick(e.target.checked)} /> I understand {failing}{' '}
          {failing === 1 ? 'call' : 'calls'} would fail
        </label>
      )}
    </div>
  );
}
