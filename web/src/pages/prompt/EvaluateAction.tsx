import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useLocation } from 'wouter';
import { api } from '../../lib/api';
import type { Dataset, Evaluator } from '../../lib/datasets';
import { ErrorNote } from '../parts';

/** "Evaluate": this version against a baseline, on a dataset, with evaluators; POST /evaluations, then its page. */
export function EvaluateAction({ promptId, version, latest }: { promptId: string; version: number; latest: number }) {
  const [, navigate] = useLocation();
  const datasets = useQuery({ queryKey: ['datasets'], queryFn: () => api<{ data: Dataset[] }>('GET', '/datasets?limit=500') });
  const evaluators = useQuery({ queryKey: ['evaluators'], queryFn: () => api<{ data: Evaluator[] }>('GET', '/evaluators?limit=500') });
  const [baseline, setBaseline] = useState(String(version > 1 ? version - 1 : Math.min(2, latest)));
  const [dataset, setDataset] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const start = useMutation({
    mutationFn: () =>
      api<{ evaluation_id: string }>('POST', '/evaluations', {
        prompt_id: promptId,
        versions: [version, Number(baseline)],
        dataset_id: dataset || datasets.data?.data[0]?.dataset_id,
        evaluators: chosen,
      }),
    onSuccess: (created) => navigate(`/evaluations/${encodeURIComponent(created.evaluation_id)}`),
  });
  const others = Array.from({ length: latest }, (_, i) => latest - i).filter((v) => v !== version);
  return (
    <form
      aria-labelledby="evaluate-title"
      onSubmit={(e) => {
        e.preventDefault();
        start.mutate();
      }}
    >
      <h2 id="evaluate-title">Evaluate</h2>
      <p className="help">Run this version and a baseline on a dataset's items, and compare their scores item by item.</p>
      <label htmlFor="evaluate-baseline">Baseline version</label>
      <select id="evaluate-baseline" value={baseline} onChange={(e) => setBaseline(e.target.value)}>
        {others.map((v) => (
          <option key={v} value={v}>
            v{v}
          </option>
        ))}
      </select>
      <label htmlFor="evaluate-dataset">Dataset</label>
      <select id="evaluate-dataset" value={dataset} onChange={(e) => setDataset(e.target.value)}>
        {(datasets.data?.data ?? []).map((d) => (
          <option key={d.dataset_id} value={d.dataset_id}>
            {d.dataset_id} (v{d.latest_version}, {d.item_count} items)
          </option>
        ))}
      </select>
      <fieldset>
        <legend>Evaluators</legend>
        {(evaluators.data?.data ?? []).map((ev) => (
          <label key={ev.evaluator_id}>
            <input
              type="checkbox"
              checked={chosen.includes(ev.evaluator_id)}
              onChange={(e) => setChosen((c) => (e.target.checked ? [...c, ev.evaluator_id] : c.filter((x) => x !== ev.evaluator_id)))}
            />{' '}
            {ev.evaluator_id} ({ev.kind})
          </label>
        ))}
      </fieldset>
      <ErrorNote error={start.error} />
      <button type="submit" disabled={start.isPending || others.length === 0}>
        Start evaluation
      </button>
    </form>
  );
}
