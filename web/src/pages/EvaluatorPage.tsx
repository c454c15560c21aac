import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Fragment, useEffect, useRef, useState } from 'react';
import { Link } from 'wouter';
import { api, type Role } from '../lib/api';
import type { Evaluator } from '../lib/datasets';
import { type EvaluatorVersion, settingsText } from '../lib/evaluators';
import { formatTime } from '../lib/format';
import { NewEvaluatorVersion } from './evaluators/NewEvaluatorVersion';
import { ErrorNote, TableScroll } from './parts';
import './runs.css';

const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));

/**
 * One evaluator: its latest settings, every version, and for an admin key a new version (the same
 * kind, other settings) and archiving (its versions stay readable; it takes no new version).
 */
export function EvaluatorPage({ evaluatorId, role }: { evaluatorId: string; role: Role }) {
  const path = `/evaluators/${encodeURIComponent(evaluatorId)}`;
  const evaluator = useQuery({ queryKey: ['evaluator', evaluatorId], queryFn: () => api<Evaluator>('GET', path) });
  const versions = useQuery({ queryKey: ['evaluator-versions', evaluatorId], queryFn: () => api<{ data: EvaluatorVersion[] }>('GET', `${path}/versions`) });
  const crumbs = (
    <p className="crumbs">
      <Link href="/evaluators">Evaluators</Link> /
    </p>
  );
  if (evaluator.isError) {
    return (
      <section aria-labelledby="evaluator-title">
        {crumbs}
        <h1 id="evaluator-title">{evaluatorId}</h1>
        <ErrorNote error={evaluator.error} />
      </section>
    );
  }
  if (evaluator.isPending) return <p className="loading">Loading…</p>;
  const e = evaluator.data;
  const latest = e.latest_version;
  const editable = role === 'admin' && e.archived_at === null;
  return (
    <section aria-labelledby="evaluator-title">
      {crumbs}
      <h1 id="evaluator-title">{e.evaluator_id}</h1>
      {e.description !== null && e.description !== '' && <p className="help">{e.description}</p>}
      {e.archived_at !== null && (
        <p className="notice" data-state="archived">
          Archived {formatTime(e.archived_at)}: its versions stay readable; it takes no new version.
        </p>
      )}
      <dl className="facts">
        <dt>Kind</dt>
        <dd>{e.kind}</dd>
        <dt>Scale</dt>
        <dd>{latest.scale === 'pass_fail' ? 'pass / fail (1 or 0)' : '1 to 5'}</dd>
        <dt>Latest version</dt>
        <dd>
          v{latest.version}, {formatTime(latest.created_at)}
        </dd>
        <dt>Created</dt>
        <dd>{formatTime(e.created_at)}</dd>
      </dl>
      <h2 id="settings-title">Settings of v{latest.version}</h2>
      {Object.keys(latest.settings).length === 0 ? (
        <p className="muted">No settings.</p>
      ) : (
        <dl className="facts evaluator-settings" aria-labelledby="settings-title">
          {Object.entries(latest.settings).map(([name, value]) => (
            <Fragment key={name}>
              <dt>{name}</dt>
              <dd>{value === null ? <span className="muted">–</span> : <pre className="input-value">{show(value)}</pre>}</dd>
            </Fragment>
          ))}
        </dl>
      )}
      <h2 id="versions-title">Versions</h2>
      <ErrorNote error={versions.error} />
      {versions.data !== undefined && (
        <TableScroll>
          <table className="compact evaluator-versions" aria-labelledby="versions-title">
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Scale</th>
                <th scope="col">Settings</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {versions.data.data.map((v) => (
                <tr key={v.version}>
                  <td>v{v.version}</td>
                  <td>{v.scale}</td>
                  <td>
                    <code>{settingsText(v.settings)}</code>
                  </td>
                  <td>{formatTime(v.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {editable && <NewEvaluatorVersion evaluator={e} />}
      {editable && <Archive evaluatorId={evaluatorId} />}
    </section>
  );
}

/** "Archive", asked twice: an archived evaluator takes no new version and scores no more live runs. */
function Archive({ evaluatorId }: { evaluatorId: string }) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) confirmRef.current?.focus();
  }, [confirming]);
  const archive = useMutation({
    mutationFn: () => api<null>('DELETE', `/evaluators/${encodeURIComponent(evaluatorId)}`),
    onSuccess: async () => {
      setConfirming(false);
      await queryClient.invalidateQueries({ queryKey: ['evaluator', evaluatorId] });
      await queryClient.invalidateQueries({ queryKey: ['evaluators'] });
    },
  });
  return (
    <section aria-labelledby="archive-title">
      <h2 id="archive-title">Archive</h2>
      {!confirming ? (
        <button type="button" onClick={() => setConfirming(true)}>
          Archive {evaluatorId}
        </button>
      ) : (
        <div className="confirm">
          <p id="archive-confirm-text">
            Archive {evaluatorId}? Its versions and the scores it gave stay readable, but it takes no new version, a new evaluation cannot use it, and it scores
            no more live runs.
          </p>
          <button type="button" ref={confirmRef} onClick={() => archive.mutate()} disabled={archive.isPending}>
            Archive it
          </button>{' '}
          <button type="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      )}
      <ErrorNote error={archive.error} />
    </section>
  );
}
