import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { api, type Role } from '../lib/api';
import type { Dataset, DatasetItem } from '../lib/datasets';
import { ImportItems } from './datasets/ImportItems';
import { ErrorNote, TableScroll } from './parts';
import './runs.css';

const show = (v: unknown) => (v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));

/** One dataset: its items in a chosen version (the latest by default), and an import of JSONL or CSV (admin keys). */
export function DatasetPage({ datasetId, role }: { datasetId: string; role: Role }) {
  const path = `/datasets/${encodeURIComponent(datasetId)}`;
  const dataset = useQuery({ queryKey: ['dataset', datasetId], queryFn: () => api<Dataset>('GET', path) });
  const [version, setVersion] = useState<number | null>(null);
  const shown = version ?? dataset.data?.latest_version ?? 0;
  const items = useQuery({
    queryKey: ['dataset-items', datasetId, shown],
    queryFn: () => api<{ data: DatasetItem[]; next_cursor: string | null }>('GET', `${path}/items?version=${shown}&limit=1000`),
    enabled: shown > 0,
  });
  const d = dataset.data;
  return (
    <section aria-labelledby="dataset-title">
      <p>
        <Link href="/datasets">Datasets</Link>
      </p>
      <h1 id="dataset-title">{datasetId}</h1>
      <ErrorNote error={dataset.error} />
      {d !== undefined && (
        <>
          {d.description !== null && d.description !== '' && <p className="help">{d.description}</p>}
          {role === 'admin' && d.archived_at === null && <ImportItems datasetId={datasetId} onImported={() => setVersion(null)} />}
          <h2 id="items-title">Items</h2>
          {d.latest_version === 0 ? (
            <p className="empty">No items yet.</p>
          ) : (
            <>
              <label htmlFor="dataset-version">Version</label>
              <select id="dataset-version" value={shown} onChange={(e) => setVersion(Number(e.target.value))}>
                {Array.from({ length: d.latest_version }, (_, i) => d.latest_version - i).map((v) => (
                  <option key={v} value={v}>
                    {v === d.latest_version ? `${v} (latest)` : v}
                  </option>
                ))}
              </select>
              <ErrorNote error={items.error} />
              {items.data !== undefined && (
                <TableScroll>
                  <table className="dataset-items" aria-labelledby="items-title">
                    <thead>
                      <tr>
                        <th scope="col">Item</th>
                        <th scope="col">Inputs</th>
                        <th scope="col">Expected</th>
                        <th scope="col">Added in</th>
                      </tr>
                    </thead>
                    <tbody>
                      {items.data.data.map((item) => (
                        <tr key={item.item_id}>
                          <td>
                            <code>{item.item_id}</code>
                          </td>
                          <td>
                            <code>{JSON.stringify(item.inputs)}</code>
                          </td>
                          <td>{show(item.expected)}</td>
                          <td>{item.added_in}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableScroll>
              )}
              {items.data?.next_cursor != null && <p className="muted">The first 1000 items are shown; the CLI exports them all.</p>}
            </>
          )}
        </>
      )}
    </section>
  );
}
