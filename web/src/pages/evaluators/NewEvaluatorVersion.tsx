import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { api } from '../../lib/api';
import type { Evaluator } from '../../lib/datasets';
import { ApiError } from '../../lib/errors';
import { type EvaluatorKind, type EvaluatorVersion, formOf, SETTING_FIELDS, type SettingsForm, settingsBody } from '../../lib/evaluators';
import { GeneralErrors } from '../parts';
import { SettingsFields } from './SettingsFields';

/**
 * "New version" (admin keys): the evaluator's settings changed, starting from its latest version's;
 * the kind stays. Evaluations made before keep the version they used.
 */
export function NewEvaluatorVersion({ evaluator }: { evaluator: Evaluator }) {
  const queryClient = useQueryClient();
  const kind = evaluator.kind as EvaluatorKind;
  const [form, setForm] = useState<SettingsForm>(() => formOf(evaluator.latest_version.settings));
  const [schemaProblem, setSchemaProblem] = useState<string | null>(null);
  const done = useRef<HTMLParagraphElement>(null);
  const create = useMutation({
    mutationFn: (body: Record<string, unknown>) => api<EvaluatorVersion>('POST', `/evaluators/${encodeURIComponent(evaluator.evaluator_id)}/versions`, body),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['evaluator', evaluator.evaluator_id] });
      await queryClient.invalidateQueries({ queryKey: ['evaluator-versions', evaluator.evaluator_id] });
      await queryClient.invalidateQueries({ queryKey: ['evaluators'] });
    },
  });
  useEffect(() => {
    if (create.isSuccess) done.current?.focus();
  }, [create.isSuccess]);
  const error = create.error instanceof ApiError ? create.error : null;

  function submit(event: FormEvent) {
    event.preventDefault();
    create.reset();
    const settings = settingsBody(kind, form);
    if ('problem' in settings) {
      setSchemaProblem(settings.problem);
      return;
    }
    setSchemaProblem(null);
    create.mutate(settings.body);
  }

  return (
    <form aria-labelledby="new-evaluator-version-title" onSubmit={submit} noValidate>
      <h2 id="new-evaluator-version-title">New version</h2>
      <p className="help">
        Change the settings of this {kind} evaluator: they become version {evaluator.latest_version.version + 1}. Evaluations already made keep the version they
        used; online scoring uses the latest.
      </p>
      <SettingsFields
        idPrefix="evaluator-version"
        kind={kind}
        form={form}
        onChange={(change) => setForm((f) => ({ ...f, ...change }))}
        error={error}
        schemaProblem={schemaProblem}
      />
      <GeneralErrors error={create.error} fields={SETTING_FIELDS} />
      {create.data !== undefined && (
        <p role="status" tabIndex={-1} ref={done}>
          Version {create.data.version} created.
        </p>
      )}
      <button type="submit" disabled={create.isPending}>
        Create version
      </button>
    </form>
  );
}
