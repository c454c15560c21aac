import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../../lib/api';
import { parseCsv } from '../../lib/csvItems';
import { type ImportItem, parseJsonl } from '../../lib/datasets';
import { ErrorNote } from '../parts';

type Format = 'jsonl' | 'csv';

const HELP: Record<Format, string> = {
  jsonl: 'One item a line: {"inputs": {"question": "…"}, "expected": "…", "metadata": {…}}.',
  csv: 'A header row naming inputs.<name>, expected (text) or expected_json (a JSON value), and metadata.<name> columns; then one item a row. Every cell is text; an empty expected cell means none.',
};
const EMPTY: Record<Format, string> = { jsonl: 'no items: paste one JSON object a line', csv: 'no items: paste a header row and one row an item' };

/**
 * Pasted or uploaded JSONL or CSV, checked whole in the page (every problem named by its line)
 * before one POST adds its items as a new version: any problem, and nothing is sent.
 */
export function ImportItems({ datasetId, onImported }: { datasetId: string; onImported: () => void }) {
  const queryClient = useQueryClient();
  const [format, setFormat] = useState<Format>('jsonl');
  const [text, setText] = useState('');
  const [problems, setProblems] = useState<string[]>([]);
  const [checking, setChecking] = useState(false);
  const add = useMutation({
    mutationFn: (items: ImportItem[]) => api<{ version: number; added: number }>('POST', `/datasets/${encodeURIComponent(datasetId)}/items`, { items }),
    onSuccess: async () => {
      setText('');
      onImported();
      await queryClient.invalidateQueries({ queryKey: ['dataset', datasetId] });
      await queryClient.invalidateQueries({ queryKey: ['datasets'] });
    },
  });

  async function submit(event: FormEvent) {
    event.preventDefault();
    add.reset();
    setChecking(true);
    try {
      const { items, errors } = format === 'csv' ? await parseCsv(text) : parseJsonl(text);
      setProblems(items.length === 0 && errors.length === 0 ? [EMPTY[format]] : errors);
      if (errors.length === 0 && items.length > 0) add.mutate(items);
    } catch (error) {
      setProblems([`could not read the ${format === 'csv' ? 'CSV' : 'JSONL'}: ${(error as Error).message}`]);
    } finally {
      setChecking(false);
    }
  }

  const label = format === 'csv' ? 'CSV' : 'JSONL';
  return (
    <form aria-labelledby="import-title" onSubmit={(e) => void submit(e)}>
      <h2 id="import-title">Add items</h2>
      <fieldset className="inline">
        <legend>Format</legend>
        {(['jsonl', 'csv'] as const).map((f) => (
          <label key={f} className="inline">
            <input
              type="radio"
              name="import-format"
              value={f}
              checked={format === f}
              onChange={() => {
                setFormat(f);
                setProblems([]);
              }}
            />{' '}
            {f === 'csv' ? 'CSV' : 'JSONL'}
          </label>
        ))}
      </fieldset>
      <label htmlFor="import-text">Items as {label}</label>
      <p className="help" id="import-help">
        {HELP[format]} They are added as a new version.
      </p>
      <textarea id="import-text" aria-describedby="import-help" rows={6} value={text} onChange={(e) => setText(e.target.value)} />
      <label htmlFor="import-file">Or a .jsonl or .csv file</label>
      <input
        id="import-file"
        type="file"
        accept=".jsonl,.ndjson,application/x-ndjson,.csv,text/csv"
        onChange={(e) => {
          const file = e.target.files?.[0];
          if (file === undefined) return;
          // The file's name says its format, as it does for the CLI.
          if (/\.csv$/iu.test(file.name)) setFormat('csv');
          else if (/\.(jsonl|ndjson)$/iu.test(file.name)) setFormat('jsonl');
          setProblems([]);
          void file.text().then(setText);
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
      <button type="submit" disabled={add.isPending || checking}>
        Add items
      </button>
    </form>
  );
}
