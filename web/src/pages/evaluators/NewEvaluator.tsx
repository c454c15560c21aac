import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useLocation } from 'wouter';
import { api } from '../../lib/api';
import { ApiError } from '../../lib/errors';
import type { Evaluator } from '../../lib/datasets';
import { EMPTY_SETTINGS, EVALUATOR_KINDS, type EvaluatorKind, KIND_HELP, SETTING_FIELDS, type SettingsForm, settingsBody } from '../../lib/evaluators';
import { FieldError, GeneralErrors } from '../parts';
import { SettingsFields } from './SettingsFields';

const FIELDS = ['evaluator_id', 'description', 'kind', ...SETTING_FIELDS];

/** "New evaluator" (admin keys): an id, a description, a kind and that kind's settings; then its page. */
export function NewEvaluator() {
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const [id, setId] = useState('');
  const [description, setDescription] = useState('');
  const [kind, setKind] = useState<EvaluatorKind>('contains');
  const [form, setForm] = useState<SettingsForm>(EMPTY_SETTINGS);
  const [schemaProblem, setSchemaProblem] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: (body: Record<string, unknown>) => api<Evaluator>('POST', '/evaluators', body),
    onSuccess: async (created) => {
      await queryClient.invalidateQueries({ queryKey: ['evaluators'] });
      navigate(`/evaluators/${encodeURIComponent(created.evaluator_id)}`);
    },
  });
  const error = create.error instanceof ApiError ? create.error : null;

  function submit(event: FormEvent) {
    event.preventDefault();
    // Errors follow the latest submit only, even one stopped here before any request.
    create.reset();
    const settings = settingsBody(kind, form);
    if ('problem' in settings) {
      setSchemaProblem(settings.problem);
      return;
    }
    setSchemaProblem(null);
    create.mutate({ evaluator_id: id.trim(), ...(description.trim() === '' ? {} : { description }), kind, ...settings.body });
  }

  return (
    <form aria-labelledby="new-evaluator-title" onSubmit={submit} noValidate>
      <h2 id="new-evaluator-title">New evaluator</h2>
      <label htmlFor="new-evaluator-id">Evaluator id</label>
      <input id="new-evaluator-id" value={id} onChange={(e) => setId(e.target.value)} placeholder="letters, digits, _ . -" />
      <FieldError message={error?.forField('evaluator_id')} />
      <label htmlFor="new-evaluator-description">Description</label>
      <input id="new-evaluator-description" value={description} onChange={(e) => setDescription(e.target.value)} />
      <FieldError message={error?.forField('description')} />
      <label htmlFor="new-evaluator-kind">Kind</label>
      <select id="new-evaluator-kind" aria-describedby="new-evaluator-kind-help" value={kind} onChange={(e) => setKind(e.target.value as EvaluatorKind)}>
        {EVALUATOR_KINDS.map((k) => (
          <option key={k} value={k}>
            {k}
          </option>
        ))}
      </select>
      <p className="help" id="new-evaluator-kind-help">
        {KIND_HELP[kind]}
      </p>
      <FieldError message={error?.forField('kind')} />
      <SettingsFields
        idPrefix="new-evaluator"
        kind={kind}
        form={form}
        onChange={(change) => setForm((f) => ({ ...f, ...change }))}
        error={error}
        schemaProblem={schemaProblem}
      />
      <GeneralErrors error={create.error} fields={FIELDS} />
      <button type="submit" disabled={create.isPending}>
        Create evaluator
      </button>
    </form>
  );
}
