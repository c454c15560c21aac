import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { useLocation } from 'wouter';
import { api } from '../../lib/api';
import { ApiError } from '../../lib/errors';
import { type ExperimentForm, formFields, initialForm, normalisedWeights, requestBody, withoutVariant } from '../../lib/experimentForm';
import { pct } from '../../lib/numbers';
import type { ExperimentDetail, Page, Prompt, Version } from '../../lib/types';
import { ErrorNote, FieldError, GeneralErrors } from '../parts';
import { focusFirstError, useFocusWhen } from './focus';
import { MetricRows } from './MetricRows';

/** The "New experiment" form (admin): first the prompt, then its variants and metrics. */
export function NewExperiment({ onCancel }: { onCancel: () => void }) {
  const prompts = useQuery({ queryKey: ['prompts'], queryFn: () => api<Page<Prompt>>('GET', '/prompts?limit=500') });
  const [promptId, setPromptId] = useState('');
  const versions = useQuery({
    queryKey: ['versions', promptId],
    enabled: promptId !== '',
    queryFn: () => api<{ data: Version[] }>('GET', `/prompts/${encodeURIComponent(promptId)}/versions`),
  });
  const prompt = prompts.data?.data.find((p) => p.prompt_id === promptId);
  // Opening the form moves the focus to it.
  const heading = useFocusWhen<HTMLHeadingElement>(true);
  return (
    <section aria-labelledby="new-experiment-title" className="new-experiment">
      <h2 id="new-experiment-title" ref={heading} tabIndex={-1}>
        New experiment
      </h2>
      <ErrorNote error={prompts.error ?? versions.error} />
      <label htmlFor="new-prompt">Prompt</label>
      <select id="new-prompt" value={promptId} onChange={(e) => setPromptId(e.target.value)}>
        <option value="">choose a prompt…</option>
        {(prompts.data?.data ?? []).map((p) => (
          <option key={p.prompt_id} value={p.prompt_id}>
            {p.prompt_id}
          </option>
        ))}
      </select>
      {promptId !== '' && versions.isSuccess && prompt !== undefined && (
        <FormBody key={promptId} promptId={promptId} versions={versions.data.data.map((v) => v.version)} production={prompt.labels.production} />
      )}
      <p>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </p>
    </section>
  );
}

function FormBody({ promptId, versions, production }: { promptId: string; versions: number[]; production: number | undefined }) {
  const [form, setForm] = useState<ExperimentForm>(() => initialForm(promptId, versions, production));
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const formRef = useRef<HTMLFormElement>(null);
  const create = useMutation({
    mutationFn: (body: unknown) => api<ExperimentDetail>('POST', '/experiments', body),
    // The experiment's page focuses its heading; a refusal focuses the first message, once it is drawn.
    onSuccess: async (created) => {
      await queryClient.invalidateQueries({ queryKey: ['experiments'] });
      navigate(`/experiments/${encodeURIComponent(created.experiment_id)}`);
    },
    onError: () => requestAnimationFrame(() => focusFirstError(formRef.current)),
  });
  const error = create.error instanceof ApiError ? create.error : null;
  const err = (field: string) => error?.forField(field);
  const set = (patch: Partial<ExperimentForm>) => setForm((f) => ({ ...f, ...patch }));
  const setVariant = (i: number, patch: Partial<ExperimentForm['variants'][number]>) =>
    setForm((f) => ({ ...f, variants: f.variants.map((v, j) => (j === i ? { ...v, ...patch } : v)) }));
  const split = normalisedWeights(form.variants);
  const sortedVersions = [...versions].sort((a, b) => b - a);

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate(requestBody(form));
  }

  return (
    <form ref={formRef} onSubmit={submit} aria-label="New experiment" noValidate>
      <GeneralErrors error={create.error} fields={formFields(form)} />
      <div className="pair">
        <label htmlFor="new-id">Experiment id (optional)</label>
        <input id="new-id" value={form.experiment_id} onChange={(e) => set({ experiment_id: e.target.value })} placeholder="generated when empty" />
        <FieldError message={err('experiment_id')} />
      </div>
      <div className="pair">
        <label htmlFor="new-name">Name</label>
        <input id="new-name" value={form.name} onChange={(e) => set({ name: e.target.value })} />
        <FieldError message={err('name')} />
      </div>
      <div className="pair">
        <label htmlFor="new-hypothesis">Hypothesis</label>
        <textarea id="new-hypothesis" rows={2} value={form.hypothesis} onChange={(e) => set({ hypothesis: e.target.value })} />
        <FieldError message={err('hypothesis')} />
      </div>
      <FieldError message={err('prompt_id')} />

      <fieldset>
        <legend>Variants</legend>
        {form.variants.map((v, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows are edited in place; their index is their identity in the API's errors too
          <div key={i} className="variant-row">
            <label htmlFor={`variant-${i}-key`}>Variant {i + 1} key</label>
            <input id={`variant-${i}-key`} value={v.key} onChange={(e) => setVariant(i, { key: e.target.value })} />
            <label htmlFor={`variant-${i}-version`}>Variant {i + 1} version</label>
            <select id={`variant-${i}-version`} value={v.version} onChange={(e) => setVariant(i, { version: e.target.value })}>
              {sortedVersions.map((n) => (
                <option key={n} value={String(n)}>
                  v{n}
                  {n === production ? ' (production)' : ''}
                </option>
              ))}
            </select>
            <label htmlFor={`variant-${i}-weight`}>Variant {i + 1} weight</label>
            <input id={`variant-${i}-weight`} inputMode="decimal" value={v.weight} onChange={(e) => setVariant(i, { weight: e.target.value })} />
            <span className="muted">{split[i] === null || split[i] === undefined ? '' : `= ${pct(split[i]!)}`}</span>
            {form.variants.length > 2 && (
              <button type="button" onClick={() => setForm((f) => withoutVariant(f, i))} aria-label={`Remove variant ${i + 1}`}>
                Remove
              </button>
            )}
            <FieldError message={err(`variants.${i}.key`)} />
            <FieldError message={err(`variants.${i}.version`)} />
            <FieldError message={err(`variants.${i}.weight`)} />
          </div>
        ))}
        <button
          type="button"
          onClick={() =>
            set({ variants: [...form.variants, { key: `variant_${form.variants.length + 1}`, version: String(sortedVersions[0] ?? ''), weight: '1' }] })
          }
        >
          Add variant
        </button>
        <div className="pair">
          <label htmlFor="new-control">Control</label>
          <select id="new-control" value={String(form.control)} onChange={(e) => set({ control: Number(e.target.value) })}>
            {form.variants.map((v, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: keys may repeat while typed; the row is what is chosen
              <option key={i} value={String(i)}>
                {v.key}
              </option>
            ))}
          </select>
          <FieldError message={err('control')} />
        </div>
        <div className="pair">
          <label htmlFor="new-coverage">Coverage (share of users who enter, 0–1)</label>
          <input id="new-coverage" inputMode="decimal" value={form.coverage} onChange={(e) => set({ coverage: e.target.value })} />
          <FieldError message={err('coverage')} />
        </div>
      </fieldset>

      <MetricRows metrics={form.metrics} onChange={(metrics) => set({ metrics })} error={error} />

      <fieldset>
        <legend>Statistics</legend>
        <div className="pair">
          <label htmlFor="new-mde">Target effect (relative, e.g. 0.1 for 10%)</label>
          <input id="new-mde" inputMode="decimal" value={form.target_mde} onChange={(e) => set({ target_mde: e.target.value })} />
          <FieldError message={err('target_mde')} />
        </div>
        <label className="inline">
          <input type="checkbox" checked={form.cuped} onChange={(e) => set({ cuped: e.target.checked })} /> CUPED (use pre-exposure data to reduce variance)
        </label>
        {form.cuped && (
          <div className="pair">
            <label htmlFor="new-cuped-days">CUPED look-back (days)</label>
            <input id="new-cuped-days" inputMode="numeric" value={form.cuped_days} onChange={(e) => set({ cuped_days: e.target.value })} />
            <FieldError message={err('cuped_days')} />
          </div>
        )}
      </fieldset>
      <button type="submit" disabled={create.isPending}>
        Create experiment
      </button>
    </form>
  );
}
