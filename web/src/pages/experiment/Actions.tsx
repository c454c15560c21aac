import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api } from '../../lib/api';
import { DEFAULT_TOGGLES, resultsPath } from '../../lib/results';
import type { ExperimentDetail, ExperimentResults } from '../../lib/types';
import { ErrorNote } from '../parts';
import { ShipDialog, type StopBody } from './ShipDialog';
import { StartImpact } from './StartImpact';

type Action = 'start' | 'pause' | 'stop' | 'ship';

const CONSEQUENCES: Record<Exclude<Action, 'ship'>, string> = {
  start: 'Users calling the prompt with a user id are assigned to a variant from now on.',
  pause: 'Everyone gets the production version again; assignments are kept for when it resumes.',
  stop: 'The experiment stops for good; the production label does not move.',
};

const DONE: Record<Action, string> = {
  start: 'The experiment is running.',
  pause: 'The experiment is paused.',
  stop: 'The experiment is stopped.',
  ship: 'The experiment is stopped and its winner shipped.',
};

/**
 * What the status allows, each asked twice (admin keys only; the API refuses a read key anyway).
 * A draft can only start: it served nobody, so there is nothing to stop or ship.
 */
export function Actions({ experiment }: { experiment: ExperimentDetail }) {
  const [pending, setPending] = useState<Action | null>(null);
  const [done, setDone] = useState<string | null>(null);
  // Start waits for the impact of its variants (and a tick when recent calls would fail).
  const [startReady, setStartReady] = useState(false);
  const queryClient = useQueryClient();
  const id = experiment.experiment_id;
  // A ship is checked against the results with default options, whatever toggles the page shows
  // (the same query as the page's when it shows the defaults, so it is read once).
  const defaultsPath = resultsPath(id, DEFAULT_TOGGLES);
  const results = useQuery({
    queryKey: ['results', id, defaultsPath],
    queryFn: () => api<ExperimentResults>('GET', defaultsPath),
    enabled: pending === 'ship',
  });
  const act = useMutation({
    mutationFn: ({ action, body }: { action: Action; body?: StopBody }) =>
      api<ExperimentDetail>('POST', `/experiments/${encodeURIComponent(id)}/${action === 'ship' ? 'stop' : action}`, body),
    onSuccess: async (updated, { action }) => {
      setPending(null);
      setDone(action === 'ship' && updated.shipped_version !== null ? `${DONE.ship} Production now serves v${updated.shipped_version}.` : DONE[action]);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: ['experiment', id] }),
        queryClient.invalidateQueries({ queryKey: ['experiments'] }),
        queryClient.invalidateQueries({ queryKey: ['results', id] }),
        queryClient.invalidateQueries({ queryKey: ['prompt', experiment.prompt_id] }),
        queryClient.invalidateQueries({ queryKey: ['prompts'] }),
      ]);
    },
  });
  const confirmLegend = useRef<HTMLLegendElement>(null);
  const doneNote = useRef<HTMLParagraphElement>(null);
  // Focus follows the action: into the dialog when it opens, onto the outcome once it is done.
  useEffect(() => {
    if (pending !== null && pending !== 'ship') confirmLegend.current?.focus();
  }, [pending]);
  useEffect(() => {
    if (done !== null) doneNote.current?.focus();
  }, [done]);

  const outcome =
    done === null ? null : (
      <p ref={doneNote} tabIndex={-1} role="status" className="message">
        {done}
      </p>
    );
  // Once stopped, only the outcome stays: in the same place of the same section, so it keeps the focus.
  const stopped = experiment.status === 'stopped' || experiment.status === 'rolled_back' || experiment.status === 'shipped';
  if (stopped && outcome === null) return null;
  const allowed: Action[] =
    experiment.status === 'running' ? ['pause', 'stop', 'ship'] : experiment.status === 'paused' ? ['start', 'stop', 'ship'] : ['start'];
  const label = (a: Action) =>
    a === 'start' && experiment.status === 'paused' ? 'Resume' : a === 'ship' ? 'Stop and ship…' : a[0]!.toUpperCase() + a.slice(1);

  return (
    <section aria-labelledby="actions-title" className="actions">
      <h2 id="actions-title">Actions</h2>
      {outcome}
      {stopped ? null : pending === null ? (
        <div className="toolbar">
          {allowed.map((a) => (
            <button
              key={a}
              type="button"
              onClick={() => {
                act.reset();
                setDone(null);
                setPending(a);
              }}
            >
              {label(a)}
            </button>
          ))}
        </div>
      ) : pending === 'ship' ? (
        <ShipDialog
          experiment={experiment}
          results={results.data}
          pending={act.isPending}
          onConfirm={(body) => act.mutate({ action: 'ship', body })}
          onCancel={() => setPending(null)}
        />
      ) : (
        <fieldset className="confirm">
          <legend ref={confirmLegend} tabIndex={-1}>
            {CONSEQUENCES[pending]}
          </legend>
          {pending === 'start' && <StartImpact experiment={experiment} onReady={setStartReady} />}
          <button type="button" onClick={() => act.mutate({ action: pending })} disabled={act.isPending || (pending === 'start' && !startReady)}>
            {`Confirm: ${label(pending).toLowerCase()}`}
          </button>
          <button type="button" onClick={() => setPending(null)}>
            Cancel
          </button>
        </fieldset>
      )}
      <ErrorNote error={act.error} />
      {pending === 'ship' && <ErrorNote error={results.error} />}
    </section>
  );
}
