import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'wouter';
import { api, type Role } from '../../lib/api';
import { sortedLabels } from '../../lib/format';
import type { Experiment, Page } from '../../lib/types';
import { LABEL_PATTERN } from './impact';
import { LabelChange, type LabelChangeKind } from './LabelChange';
import './labels.css';

interface Pending {
  kind: LabelChangeKind;
  label: string;
  version: number | null;
}

/**
 * Every label of the prompt and the version it points at, and the experiment running on it (which
 * serves its users instead of production). An admin creates, moves and deletes labels, each after
 * a confirmation that shows the impact; focus goes to the confirmation, then to the result.
 */
export function Labels({
  promptId,
  labels,
  versions,
  role,
  managedInGit = false,
}: {
  promptId: string;
  labels: Record<string, number>;
  versions: number[];
  role: Role;
  managedInGit?: boolean;
}) {
  const running = useQuery({
    queryKey: ['experiments', 'running', promptId],
    queryFn: () => api<Page<Experiment>>('GET', `/experiments?prompt_id=${encodeURIComponent(promptId)}&status=running&limit=1`),
  });
  const [pending, setPending] = useState<Pending | null>(null);
  const [result, setResult] = useState<string | null>(null);
  const resultRef = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (result !== null) resultRef.current?.focus();
  }, [result]);
  const open = (next: Pending) => {
    setResult(null);
    setPending(next);
  };
  const experiment = running.data?.data[0];
  const admin = role === 'admin';
  const confirmation = (where: (p: Pending) => boolean) =>
    pending !== null &&
    where(pending) && (
      <LabelChange
        key={`${pending.kind}-${pending.label}-${pending.version}`}
        promptId={promptId}
        kind={pending.kind}
        label={pending.label}
        version={pending.version}
        managedInGit={managedInGit}
        onCancel={() => setPending(null)}
        onDone={(message) => {
          setPending(null);
          setResult(message);
        }}
      />
    );

  return (
    <section aria-labelledby="labels-title">
      <h2 id="labels-title">Labels</h2>
      {experiment !== undefined && (
        <p data-testid="running-experiment">
          Experiment <Link href={`/experiments/${encodeURIComponent(experiment.experiment_id)}`}>{experiment.experiment_id}</Link> is running on this prompt: it
          serves its users their variant's version instead of production.
        </p>
      )}
      {Object.keys(labels).length === 0 ? (
        <p>No labels: calls get the latest version.</p>
      ) : (
        <table className="label-table labels">
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">Version</th>
              {admin && <th scope="col">Change</th>}
            </tr>
          </thead>
          <tbody>
            {sortedLabels(labels).map(([label, version]) => (
              <tr key={label} data-label={label}>
                <td>
                  <span className="chip">{label}</span>
                </td>
                <td>
                  <Link href={`/prompts/${encodeURIComponent(promptId)}/versions/${version}`}>v{version}</Link>
                </td>
                {admin && (
                  <td>
                    <MoveLabel label={label} current={version} versions={versions} onMove={(to) => open({ kind: 'move', label, version: to })} />
                    <button type="button" onClick={() => open({ kind: 'delete', label, version: null })}>
                      Delete {label}…
                    </button>
                    {confirmation((p) => p.label === label && p.kind !== 'create')}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {admin && versions.length > 0 && (
        <NewLabel key={Object.keys(labels).length} versions={versions} taken={labels} onCreate={(label, version) => open({ kind: 'create', label, version })} />
      )}
      {confirmation((p) => p.kind === 'create')}
      {result !== null && (
        <p role="status" className="label-result" tabIndex={-1} ref={resultRef}>
          {result}
        </p>
      )}
    </section>
  );
}

function MoveLabel({ label, current, versions, onMove }: { label: string; current: number; versions: number[]; onMove: (to: number) => void }) {
  const [to, setTo] = useState(current);
  const id = `move-${label}`;
  return (
    <span className="pair">
      <label htmlFor={id}>Version for {label}</label>
      <select id={id} value={to} onChange={(e) => setTo(Number(e.target.value))}>
        {versions.map((v) => (
          <option key={v} value={v}>
            v{v}
          </option>
        ))}
      </select>
      <button type="button" disabled={to === current} onClick={() => onMove(to)}>
        Move {label}…
      </button>
    </span>
  );
}

function NewLabel({ versions, taken, onCreate }: { versions: number[]; taken: Record<string, number>; onCreate: (label: string, version: number) => void }) {
  const [name, setName] = useState('');
  const [version, setVersion] = useState(versions[0]!);
  const problem =
    name === ''
      ? null
      : !LABEL_PATTERN.test(name)
        ? 'Use 1 to 64 lowercase letters, digits, _ or -.'
        : Object.hasOwn(taken, name)
          ? `${name} exists: move it instead.`
          : null;
  return (
    <form
      className="pair"
      aria-label="Create a label"
      onSubmit={(e) => {
        e.preventDefault();
        if (name !== '' && problem === null) onCreate(name, version);
      }}
    >
      <span>
        <label htmlFor="new-label-name">New label</label>
        <input id="new-label-name" value={name} onChange={(e) => setName(e.target.value.trim())} aria-describedby="new-label-help" />
        <span id="new-label-help" className={problem === null ? 'help' : 'error'}>
          {problem ?? 'e.g. staging, canary'}
        </span>
      </span>
      <span>
        <label htmlFor="new-label-version">On version</label>
        <select id="new-label-version" value={version} onChange={(e) => setVersion(Number(e.target.value))}>
          {versions.map((v) => (
            <option key={v} value={v}>
              v{v}
            </option>
          ))}
        </select>
      </span>
      <button type="submit" disabled={name === '' || problem !== null}>
        Create label…
      </button>
    </form>
  );
}
