import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { api, type Role } from '../lib/api';
import type { Dataset } from '../lib/datasets';
import { formatTime } from '../lib/format.js';
import { ErrorNote, TableScroll } from './parts';
import './runs.css';

/** The project's datasets, newest first; an admin key can make one. */
export function DatasetsPage({ role }: { role: Role }) {
  const datasets = useQuery({ queryKey: ['datasets'], queryFn: () => api<{ data: Dataset[] }>('GET', '/datasets?limit=500') });
  const list = datasets.data?.data ?? [];
  return (
    <section aria-labelledby="datasets-title">
      <h1 id="datasets-title">Datasets</h1>
      <p className="help">
        The questions a new version is evaluated on, with the answers expected. Every change makes a new version; an existing version never changes.
      </p>
      {role === 'admin' && <CreateDataset />}
      <ErrorNote error={datasets.error} />
      {datasets.isPending ? (
        <p className="loading">Loading…</p>
      ) : list.length === 0 ? (
        datasets.isSuccess && <p className="empty">No datasets yet.</p>
      ) : (
        <TableScroll>
          <table className="datasets">
            <thead>
              <tr>
                <th scope="col">Dataset</th>
                <th scope="col">Version</th>
                <th scope="col">Items</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.map((d) => (
                <tr key={d.dataset_id}>
                  <td>
                    <Link href={`/datasets/${encodeURIComponent(d.dataset_id)}`}>{d.dataset_id}</Link>
                    {d.description !== null && d.description !== '' && <p className="muted">{d.description}</p>}
                  </td>
                  <td>{d.latest_version}</td>
                  <td>{d.item_count}</td>
                  <td>{formatTime(d.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}

function CreateDataset() {
  const queryClient = useQueryClient();
  const [id, setId] = useState('');
  const [description, setDescription] = useState('');
  const create = useMutation({
    mutationFn: () => api<Dataset>('POST', '/datasets', { dataset_id: id, ...(description.trim() === '' ? {} : { description }) }),
    onSuccess: async () => {
      setId('');
      setDescription('');
      await queryClient.invalidateQueries({ queryKey: ['datasets'] });
    },
  });
  return (
    <form
      aria-labelledby="new-dataset-title"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <h2 id="new-dataset-title">New dataset</h2>
      <label htmlFor="new-dataset-id">Dataset id</label>
      <input id="new-dataset-id" value={id} required onChange={(e) => setId(e.target.value)} />
      <label htmlFor="new-dataset-description">Description</label>
      <input id="new-dataset-description" value={description} onChange={(e) => setDescription(e.target.value)} />
      <ErrorNote error={create.error} />
      <button type="submit" disabled={create.isPending}>
        Create dataset
      </button>
    </form>
  );
}
