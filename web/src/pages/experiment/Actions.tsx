import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../lib/api';
import type { ExperimentDetail } from '../../lib/types';
import { ErrorNote } from '../parts';
import { StartImpact } from './StartImpact';

type Action = 'start' | 'pause' | 'stop' | 'ship';

const CONSEQUENCES: Record<Action, string> = {
  start: 'Users calling the prompt with a user id are assigned to a variant from now on.',
  pause: 'Everyone gets the production version again; assignments are kept for when it resumes.',
  stop: 'The experiment stops for good; the production label does not move.',
  ship: "The experiment stops for good and the production label moves to the winner's version, in the same step.",
};

/** What the status allows, each asked twice (admin keys only; the API refuses a read key anyway). */
export function Actions({ experiment, suggested }: { experiment: ExperimentDetail; suggested: string | undefined }) {
  const [pending, setPending] = useState<Action | null>(null);
  // Start waits for the impact of its variants (and a tick when recent calls would fail).
  const [startReady, setStartReady] = useState(false);
  const treatments = experiment.variants.filter((v) => v.key !== experiment.control);
  const [winner, setWinner] = useState(suggested ?? treatments[0]?.key ?? experiment.control);
  const queryClient = useQueryClient();
  const id = experiment.experiment_id;
  const act = useMutation({
    mutationFn: (action: Action) => {
      const path = `/experiments/${encodeURIComponent(id)}/${action === 'ship' ? 'stop' : action}`;
      return api<ExperimentDetail>('POST', path, action === 'ship' ? { winner, ship: true } : undefined);
    },
    onSuccess: async () => {
      setPending(null);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: ['experiment', id] }),
        queryClient.invalidateQueries({ queryKey: ['experiments'] }),
        queryClient.invalidateQueries({ queryKey: ['results', id] }),
        queryClient.invalidateQueries({ queryKey: ['prompt', experiment.prompt_id] }),
        queryClient.invalidateQueries({ queryKey: ['prompts'] }),
      ]);
    },
  });
  if (experiment.status === 'stopped') return null;
  const allowed: Action[] = experiment.status === 'running' ? ['pause', 'stop', 'ship'] : ['start', 'stop', 'ship'];
  const label = (a: Action) =>
    a === 'start' && experiment.status === 'paused' ? 'Resume' : a === 'ship' ? 'Stop and ship…' : a[0]!.toUpperCase() + a.slice(1);

  return (
    <section aria-labelledby="actions-title" className="actions">
      <h2 id="actions-title">Actions</h2>
      {pending === null ? (
        <div className="toolbar">
          {allowed.map((a) => (
            <button
              key={a}
              type="button"
              onClick={() => {
                act.reset();
                if (a === 'ship') setWinner(suggested ?? treatments[0]?.key ?? experiment.control);
                setPending(a);
              }}
            >
              {label(a)}
            </button>
          ))}
        </div>
      ) : (
        <fieldset className="confirm">
          <legend>{CONSEQUENCES[pending]}</legend>
          {pending === 'ship' && (
            <>
              <label htmlFor="ship-winner">Winner</label>
              <select id="ship-winner" value={winner} onChange={(e) => setWinner(e.target.value)}>
                {experiment.variants.map((v) => (
                  <option key={v.key} value={v.key}>
                    {v.key} (v{v.version})
                  </option>
                ))}
              </select>
            </>
          )}
          {pending === 'start' && <StartImpact experiment={experiment} onReady={setStartReady} />}
          <button type="button" onClick={() => act.mutate(pending)} disabled={act.isPending || (pending === 'start' && !startReady)}>
            {pending === 'ship' ? `Confirm: stop and ship ${winner}` : `Confirm: ${label(pending).toLowerCase()}`}
          </button>
          <button type="button" onClick={() => setPending(null)}>
            Cancel
          </button>
        </fieldset>
      )}
      <ErrorNote error={act.error} />
    </section>
  );
}
