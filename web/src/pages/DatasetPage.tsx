import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { api, type Role } from '../lib/api';
import { type Dataset, type DatasetItem, parseJsonl } from '../lib/datasets';
import { ErrorNote, TableScroll } from './parts';
import './runs.css';

const show = (v: unknown) => (v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));

/** One dataset: its items in a chosen version (the latest by default), and an import of JSONL (admin keys). */
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

/** Pasted or uploaded JSONL, checked whole in the page before one POST adds its items as a new version. */
function ImportItems({ datasetId, onImported }: { datasetId: string; onImported: () => void }) {
  const queryClient = useQueryClient();
  const [text, setText] = useState('');
  const [problems, setProblems] = useState<string[]>([]);
  const add = useMutation({
    mutationFn: (items: unknown[]) => api<{ version: number; added: number }>('POST', `/datasets/${encodeURIComponent(datasetId)}/items`, { items }),
    onSuccess: async () => {
      setText('');
      onImported();
      await queryClient.invalidateQueries({ queryKey: ['dataset', datasetId] });
      await queryClient.invalidateQueries({ queryKey: ['datasets'] });
    },
  });
  return (
    <form
      aria-labelledby="import-title"
      onSubmit={(e) => {
        e.preventDefault();
        const { items, errors } = parseJsonl(text);
        setProblems(items.length === 0 && errors.length === 0 ? ['no items: paste one JSON object a line'] : errors);
        if (errors.length === 0 && items.length > 0) add.mutate(items);
      }}
    >
      <h2 id="import-title">Add items</h2>
      <label htmlFor="import-jsonl">Items as JSONL</label>
      <p className="help" id="import-help">
        One item a line: {'{"inputs": {"question": "…"}, "expected": "…", "metadata": {…}}'}. They are added as a new version.
      </p>
      <textarea id="import-jsonl" aria-describedby="import-help" rows={6} value={text} onChange={(e) => setText(e.target.value)} />
      <label htmlFor="import-file">Or a .jsonl file</label>
      <input
        id="import-file"
        type="file"
        accept=".jsonl,.ndjson,application/x-ndjson"
        onChange={(e) => {
          const file = e.target.files?.[0];
          if (file !== undefined) void file.text().then(setText);
        }}
      />
      {problems.length > 0 && (
        <ul role="alert" className="errors">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      <ErrorNote error={add.error} />
      {add.data !== undefined && (
        <p role="status">
          Version {add.data.version}: {add.data.added} item(s) added.
        </p>
      )}
      <button type="submit" disabled={add.isPending}>
        Add items
      </button>
    </form>
  );
}
