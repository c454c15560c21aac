import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { api } from '../lib/api';
import { matches, sortedLabels } from '../lib/format';
import type { Role } from '../lib/api';
import type { Experiment, Page, Prompt } from '../lib/types';
import { ErrorNote, TableScroll } from './parts';
import { VersionEditor } from './prompt/VersionEditor';
import { useSearchParam } from '../lib/urlState';

export function PromptsPage({ role }: { role: Role }) {
  const [search, setSearch] = useSearchParam('q');
  const [creating, setCreating] = useState(false);
  const prompts = useQuery({ queryKey: ['prompts'], queryFn: () => api<Page<Prompt>>('GET', '/prompts?limit=500') });
  const running = useQuery({ queryKey: ['experiments', 'running'], queryFn: () => api<Page<Experiment>>('GET', '/experiments?status=running&limit=500') });
  const runningByPrompt = new Map((running.data?.data ?? []).map((e) => [e.prompt_id, e]));
  const shown = (prompts.data?.data ?? []).filter((p) => matches(search, p.prompt_id, p.description));

  return (
    <section aria-labelledby="prompts-title">
      <h1 id="prompts-title">Prompts</h1>
      <div className="toolbar">
        <label htmlFor="prompt-search">Search</label>
        <input id="prompt-search" type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="id or description" />
        {role === 'admin' && (
          <button type="button" aria-expanded={creating} onClick={() => setCreating(!creating)}>
            {creating ? 'Cancel the new prompt' : 'New prompt'}
          </button>
        )}
      </div>
      {creating && <VersionEditor />}
      <ErrorNote error={prompts.error} />
      {prompts.isPending ? (
        <p className="loading">Loading…</p>
      ) : shown.length === 0 ? (
        <p>{search === '' ? 'No prompts yet. Create one here (admin key), with the API or with the CLI.' : 'No prompt matches.'}</p>
      ) : (
        <TableScroll>
          <table>
            <thead>
              <tr>
                <th scope="col">Prompt</th>
                <th scope="col">Description</th>
                <th scope="col">Labels</th>
                <th scope="col">Latest version</th>
                <th scope="col">Running experiment</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((p) => {
                const experiment = runningByPrompt.get(p.prompt_id);
                return (
                  <tr key={p.prompt_id}>
                    <td>
                      <Link href={`/prompts/${encodeURIComponent(p.prompt_id)}`}>{p.prompt_id}</Link>
                      {p.managed_in_git && <span className="muted"> (managed in Git)</span>}
                    </td>
                    <td>{p.description ?? ''}</td>
                    <td>
                      {sortedLabels(p.labels).map(([label, version]) => (
                        <span key={label} className="chip">
                          {label} → v{version}
                        </span>
                      ))}
                    </td>
                    <td>{p.latest_version === null ? '–' : `v${p.latest_version}`}</td>
                    <td>
                      {experiment === undefined ? (
                        '–'
                      ) : (
                        <Link href={`/experiments/${encodeURIComponent(experiment.experiment_id)}`}>{experiment.name ?? experiment.experiment_id}</Link>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      )}
      {prompts.data?.next_cursor != null && <p className="help">Showing the newest 500 prompts.</p>}
    </section>
  );
}
