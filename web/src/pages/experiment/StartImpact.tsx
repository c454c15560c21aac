import { useQueries } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { ExperimentDetail } from '../../lib/types';
import { fetchImpact } from '../prompt/fetchImpact';
import '../prompt/labels.css';

/**
 * Before Start: what each variant's version (those with a share of users) would break among recent
 * callers, against production, and the calls that sent no user id (refused while an experiment
 * runs). When any would fail, Start waits for an explicit tick (`onReady`). It sits in Start's
 * confirmation, whose legend takes the focus when it opens (Actions).
 */
export function StartImpact({ experiment, onReady }: { experiment: ExperimentDetail; onReady: (ready: boolean) => void }) {
  const [ticked, setTicked] = useState(false);
  const served = experiment.coverage > 0 ? experiment.variants.filter((v) => v.weight > 0) : [];
  const impacts = useQueries({
    queries: served.map((v) => ({
      queryKey: ['impact', experiment.prompt_id, v.version, 'production'],
      queryFn: () => fetchImpact(experiment.prompt_id, v.version, 'production'),
    })),
  });
  const loaded = impacts.every((q) => !q.isPending);
  const missing = Math.max(0, ...impacts.map((q) => q.data?.calls_missing_any ?? 0));
  const first = impacts.find((q) => q.data !== undefined)?.data;
  const withoutUser = first?.calls_without_user_id ?? 0;
  const failing = Math.max(missing, withoutUser);
  const ready = loaded && (failing === 0 || ticked);
  useEffect(() => onReady(ready), [ready, onReady]);
  return (
    <div className="impact" data-testid="start-impact">
      {!loaded && <p className="loading">Checking recent calls…</p>}
      <ul>
        {served.map((v, i) => {
          const impact = impacts[i]?.data;
          if (impact === undefined) return null;
          return (
            <li key={v.key}>
              {v.key} (v{v.version}):{' '}
              {impact.warning ??
                `needs no input that production (v${impact.served_version ?? '–'}) does not; ${impact.calls} calls in the last ${impact.window.hours} h.`}
            </li>
          );
        })}
      </ul>
      {first !== undefined && withoutUser > 0 && (
        <p>
          {withoutUser} of {first.calls} calls in the last {first.window.hours} h sent no external_user_id: while the experiment runs, such calls answer 422.
        </p>
      )}
      {failing > 0 && (
        <label className="impact-tick" htmlFor="start-understand">
          <input id="start-understand" type="checkbox" checked={ticked} onChange={(e) => setTicked(e.target.checked)} /> I understand at least {failing}{' '}
          {failing === 1 ? 'call' : 'calls'} would fail
        </label>
      )}
    </div>
  );
}
