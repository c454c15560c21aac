import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link } from 'wouter';
import { api, type Role } from '../../lib/api';
import type { Evaluator } from '../../lib/datasets';
import { ApiError } from '../../lib/errors';
import type { OnlineEvaluator } from '../../lib/evaluators';
import { formatTime } from '../../lib/format';
import { ErrorNote, FieldError, GeneralErrors, TableScroll } from '../parts';

const FIELDS = ['evaluator_id', 'sample_rate'];
const percent = (rate: number) => `${Number((rate * 100).toPrecision(6))}%`;

/**
 * Online scoring of the prompt: the evaluators that score a sample of its live runs, each with its
 * rate; an admin key attaches one (evaluator and rate) or detaches it (the scores stay).
 */
export function OnlineEvaluators({ promptId, role }: { promptId: string; role: Role }) {
  const path = `/prompts/${encodeURIComponent(promptId)}/online_evaluators`;
  const queryClient = useQueryClient();
  const attached = useQuery({ queryKey: ['online-evaluators', promptId], queryFn: () => api<{ data: OnlineEvaluator[] }>('GET', path) });
  const detach = useMutation({
    mutationFn: (evaluatorId: string) => api<null>('DELETE', `${path}/${encodeURIComponent(evaluatorId)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['online-evaluators', promptId] }),
  });
  const list = attached.data?.data ?? [];
  return (
    <section aria-labelledby="online-title">
      <h2 id="online-title">Online scoring</h2>
      <p className="help">
        Evaluators that score a share of this prompt's live runs (<code>/run_prompt</code>) in the background, a few minutes after each run; the scores show on
        each run's page.
      </p>
      <ErrorNote error={attached.error} />
      {attached.isSuccess &&
        (list.length === 0 ? (
          <p className="muted">No evaluator scores this prompt's live runs.</p>
        ) : (
          <TableScroll>
            <table className="compact online-evaluators" aria-labelledby="online-title">
              <thead>
                <tr>
                  <th scope="col">Evaluator</th>
                  <th scope="col">Sample rate</th>
                  <th scope="col">Since</th>
                  {role === 'admin' && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {list.map((a) => (
                  <tr key={a.evaluator_id}>
                    <td>
                      <Link href={`/evaluators/${encodeURIComponent(a.evaluator_id)}`}>{a.evaluator_id}</Link>
                    </td>
                    <td>
                      {a.sample_rate} ({percent(a.sample_rate)} of runs)
                    </td>
                    <td>{formatTime(a.created_at)}</td>
                    {role === 'admin' && (
                      <td>
                        <button type="button" onClick={() => detach.mutate(a.evaluator_id)} disabled={detach.isPending}>
                          Detach {a.evaluator_id}
                        </button>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        ))}
      <ErrorNote error={detach.error} />
      {role === 'admin' && <Attach promptId={promptId} path={path} attached={list.map((a) => a.evaluator_id)} />}
    </section>
  );
}

/** Attach: an evaluator of the project not attached yet, and the share of runs it scores (0 < rate ≤ 1, as the API takes it). */
function Attach({ promptId, path, attached }: { promptId: string; path: string; attached: string[] }) {
  const queryClient = useQueryClient();
  const evaluators = useQuery({ queryKey: ['evaluators'], queryFn: () => api<{ data: Evaluator[] }>('GET', '/evaluators?limit=500') });
  const choices = (evaluators.data?.data ?? []).filter((e) => !attached.includes(e.evaluator_id));
  const [evaluator, setEvaluator] = useState('');
  const [rate, setRate] = useState('0.1');
  const attach = useMutation({
    mutationFn: (body: { evaluator_id: string; sample_rate: unknown }) => api<OnlineEvaluator>('POST', path, body),
    onSuccess: async () => {
      setEvaluator('');
      await queryClient.invalidateQueries({ queryKey: ['online-evaluators', promptId] });
    },
  });
  const error = attach.error instanceof ApiError ? attach.error : null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    // What is not a number is sent as typed, for the API to name it under the field.
    const typed = rate.trim();
    const share = typed !== '' && Number.isFinite(Number(typed)) ? Number(typed) : typed;
    attach.mutate({ evaluator_id: evaluator || (choices[0]?.evaluator_id ?? ''), sample_rate: share });
  };
  return (
    <form aria-labelledby="attach-title" onSubmit={submit} noValidate>
      <h3 id="attach-title">Attach an evaluator</h3>
      <p className="help">Only evaluators that need no expected answer fit live runs: contains with a text, regex, json_schema and length.</p>
      <label htmlFor="attach-evaluator">Evaluator</label>
      <select id="attach-evaluator" value={evaluator} onChange={(e) => setEvaluator(e.target.value)}>
        {choices.map((e) => (
          <option key={e.evaluator_id} value={e.evaluator_id}>
            {e.evaluator_id} ({e.kind})
          </option>
        ))}
      </select>
      <FieldError message={error?.forField('evaluator_id')} />
      <label htmlFor="attach-rate">Sample rate</label>
      <input id="attach-rate" aria-describedby="attach-rate-help" inputMode="decimal" value={rate} onChange={(e) => setRate(e.target.value)} />
      <FieldError message={error?.forField('sample_rate')} />
      <p className="help" id="attach-rate-help">
        The share of live runs scored, above 0 and at most 1: 0.1 scores one run in ten.
      </p>
      <GeneralErrors error={attach.error} fields={FIELDS} />
      <button type="submit" disabled={attach.isPending || choices.length === 0}>
        Attach
      </button>
    </form>
  );
}
