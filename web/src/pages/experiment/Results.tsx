import type { UseQueryResult } from '@tanstack/react-query';
import { useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import { ApiError } from '../../lib/errors';
import { formatTime } from '../../lib/format';
import { fixed, pct, pValue } from '../../lib/numbers';
import { csvFilename, DECISION_LABELS, parseToggles, resultsPath, type Toggles, togglesQuery } from '../../lib/results';
import type { ExperimentDetail, ExperimentResults } from '../../lib/types';
import { ErrorNote, TableScroll } from '../parts';
import { Charts } from './Charts';
import { Scorecard } from './Scorecard';

/** The results of an experiment, as GET /experiments/{id}/results answers them with the page's toggles (asked for by the page). */
export function Results({ experiment, results }: { experiment: ExperimentDetail; results: UseQueryResult<ExperimentResults> }) {
  const search = useSearch();
  const [, navigate] = useLocation();
  const toggles = parseToggles(search);
  const id = experiment.experiment_id;
  // The API's default: undeclared event types are explored only when no goal metric is declared.
  const exploresByDefault = !experiment.metrics.some((m) => m.role !== 'guardrail');
  const setToggles = (next: Toggles) => {
    const query = togglesQuery(next);
    navigate(`/experiments/${encodeURIComponent(id)}${query === '' ? '' : `?${query}`}`, { replace: true });
  };

  return (
    <section aria-labelledby="results-title" className="results" aria-busy={results.isFetching}>
      <h2 id="results-title">Results</h2>
      <fieldset className="toggles">
        <legend>Statistics</legend>
        <label className="inline">
          <input type="checkbox" checked={toggles.sequential} onChange={(e) => setToggles({ ...toggles, sequential: e.target.checked })} /> Sequential (safe to
          look every day)
        </label>
        <label className="inline">
          <input type="checkbox" checked={toggles.cuped ?? experiment.cuped} onChange={(e) => setToggles({ ...toggles, cuped: e.target.checked })} /> CUPED
          (pre-exposure adjustment)
        </label>
        <label className="inline">
          <input type="checkbox" checked={toggles.explore ?? exploresByDefault} onChange={(e) => setToggles({ ...toggles, explore: e.target.checked })} />{' '}
          Exploratory metrics (undeclared event types, unadjusted)
        </label>
        <label className="inline">
          <input
            type="checkbox"
            checked={toggles.prior === 'proper'}
            onChange={(e) => setToggles({ ...toggles, prior: e.target.checked ? 'proper' : 'flat' })}
          />{' '}
          Proper prior (shrinks early, noisy lifts)
        </label>
        <CsvDownload experimentId={id} toggles={toggles} />
      </fieldset>
      <ErrorNote error={results.error} />
      {results.isPending ? <p className="loading">Loading results…</p> : results.data !== undefined && <Report r={results.data} />}
    </section>
  );
}

function Report({ r }: { r: ExperimentResults }) {
  const sequential = r.options.sequential;
  return (
    <>
      {/* Read out when a toggle brings new numbers: the focus stays on the toggle. */}
      <p className="muted generated" aria-live="polite">
        Computed {formatTime(r.generated_at)} · prior {r.options.prior} · {sequential ? 'sequential' : 'fixed-horizon'} · CUPED {r.options.cuped ? 'on' : 'off'}{' '}
        · exploratory {r.options.explore ? 'on' : 'off'} · α {r.options.alpha}
      </p>
      <Health r={r} />
      <ul className="decisions" aria-label="Decisions">
        {r.decisions.map((d) => (
          <li key={d.variant} data-variant={d.variant}>
            <span className={`decision decision-${d.decision}`}>{DECISION_LABELS[d.decision]}</span> <strong>{d.variant}</strong>: {d.reason}
            {d.decision === 'keep_running' && d.users_needed !== null && (
              <span className="needed">
                {' '}
                {d.users_needed === 0 ? 'Enough users already.' : `About ${d.users_needed} more users`}
                {d.days_needed !== null && d.users_needed > 0 ? `, ${d.days_needed} days at the current rate.` : '.'}
              </span>
            )}
          </li>
        ))}
      </ul>
      <TableScroll>
        <table className="variants-summary" aria-label="Users per variant">
          <thead>
            <tr>
              <th scope="col">Variant</th>
              <th scope="col">Version</th>
              <th scope="col">Split</th>
              <th scope="col">Users</th>
              <th scope="col">Runs</th>
              <th scope="col" title="failed runs, and calls that failed to render the variant's version (422)">
                Errors
              </th>
            </tr>
          </thead>
          <tbody>
            {r.variants.map((v) => (
              <tr key={v.key} data-variant={v.key}>
                <td>
                  {v.key}
                  {v.key === r.control && <span className="chip">control</span>}
                </td>
                <td>v{v.version}</td>
                <td className="num">{pct(v.weight)}</td>
                <td className="num users">{v.users}</td>
                <td className="num">{v.runs}</td>
                <td className="num errors">
                  {v.errored_runs + v.render_failures}
                  {v.render_failures > 0 && <span className="muted"> ({v.render_failures} failed to render)</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {r.metrics.length > 0 ? (
        <Scorecard title="Goal metrics" metrics={r.metrics} section="goal" sequential={sequential} prior={r.options.prior} />
      ) : (
        <p>No goal metric is declared, so no decision can be made.</p>
      )}
      {r.guardrails.length > 0 && <Scorecard title="Guardrails" metrics={r.guardrails} section="guardrail" sequential={sequential} prior={r.options.prior} />}
      {r.options.explore &&
        (r.exploratory.length > 0 ? (
          <Scorecard
            title="Exploratory (undeclared event types; never part of a decision)"
            metrics={r.exploratory}
            section="exploratory"
            sequential={sequential}
            prior={r.options.prior}
          />
        ) : (
          <p className="muted">No outcomes of undeclared event types.</p>
        ))}
      {r.primary !== null && (
        <p className="mde">
          Smallest effect on {r.primary.name} this sample would detect (80% power):{' '}
          {r.primary.mde_relative === null ? 'not computable yet' : `±${(r.primary.mde_relative * 100).toFixed(1)}% relative`}; target{' '}
          {pct(r.options.target_mde)}.
        </p>
      )}
      <Charts r={r} />
    </>
  );
}

function Health({ r }: { r: ExperimentResults }) {
  const { srm, users_in_multiple_variants: multiple, unattributed_outcomes: unattributed } = r.health;
  const problems: string[] = [];
  if (srm.flagged)
    problems.push(
      `Sample ratio mismatch: exposures do not follow the split (χ² ${fixed(srm.chi_square)}, p ${pValue(srm.p_value)}). Do not trust these results.`,
    );
  if (multiple > 0) problems.push(`${multiple} users have outcomes attributed to more than one variant.`);
  if (unattributed > 0) problems.push(`${unattributed} outcomes of the prompt during the experiment could not be tied to a variant.`);
  const srmText = !srm.checked ? 'not checked yet (needs 8 users per variant)' : srm.flagged ? 'mismatch' : `ok (p ${pValue(srm.p_value)})`;
  return (
    <section aria-labelledby="health-title" className={problems.length > 0 ? 'health health-bad' : 'health'}>
      <h3 id="health-title">Health</h3>
      {problems.length > 0 && (
        <div role="alert">
          {problems.map((p) => (
            <p key={p}>{p}</p>
          ))}
        </div>
      )}
      <p className="muted">
        Sample ratio: {srmText} · users in several variants: {multiple} · unattributed outcomes: {unattributed}
      </p>
    </section>
  );
}

/** The API's CSV, saved through a Blob URL under the API's filename. */
function CsvDownload({ experimentId, toggles }: { experimentId: string; toggles: Toggles }) {
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  async function download() {
    setBusy(true);
    setError(null);
    try {
      // The session cookie goes with it, as with every request of the console.
      const res = await fetch(resultsPath(experimentId, toggles, 'csv'), { credentials: 'same-origin' });
      if (!res.ok) throw new ApiError(res.status, ((await res.json().catch(() => null)) as { detail?: unknown } | null)?.detail);
      const url = URL.createObjectURL(await res.blob());
      const a = document.createElement('a');
      a.href = url;
      a.download = csvFilename(res.headers.get('content-disposition'), experimentId);
      document.body.append(a);
      a.click();
      a.remove();
      // The download has read the URL once the click is handled; a minute is ample for a slow disk.
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  }
  return (
    <>
      <button type="button" onClick={() => void download()} disabled={busy}>
        Download CSV
      </button>
      <ErrorNote error={error} />
    </>
  );
}
