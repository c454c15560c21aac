import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { api } from '../../lib/api';
import { formatCost } from '../../lib/format';
import type { RunAnswer } from '../../lib/playground';
import { ErrorNote } from '../parts';

interface Rendered {
  prompt_text: string;
  prompt_version: number;
  variant_assigned: string | null;
  experiment_id: string | null;
}
/** /run_prompt answers the playground's fields and the variant it served. */
interface Ran extends RunAnswer {
  variant_assigned: string | null;
}

/**
 * Try the prompt as an application calls it: the runtime endpoints, so what is served (production,
 * or a running experiment's variant for the user given) is what a caller would get. The one way to
 * see which variant a given user gets; the side-by-side playground tries chosen versions instead.
 */
export function ServedPlayground({ promptId, variables }: { promptId: string; variables: string[] }) {
  const [inputs, setInputs] = useState<Record<string, string>>({});
  const [user, setUser] = useState('');
  const body = () => ({
    prompt_id: promptId,
    inputs: Object.fromEntries(variables.map((v) => [v, inputs[v] ?? ''])),
    ...(user === '' ? {} : { external_user_id: user }),
  });
  const render = useMutation({ mutationFn: () => api<Rendered>('POST', '/get_prompt', body()) });
  const run = useMutation({ mutationFn: () => api<Ran>('POST', '/run_prompt', body()) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    render.reset();
    run.reset();
    render.mutate();
  };
  return (
    <div>
      <form onSubmit={submit}>
        {variables.map((v) => (
          <div key={v}>
            <label htmlFor={`served-input-${v}`}>{v}</label>
            <input id={`served-input-${v}`} value={inputs[v] ?? ''} onChange={(e) => setInputs({ ...inputs, [v]: e.target.value })} />
          </div>
        ))}
        <label htmlFor="playground-user">User id (needed while an experiment runs)</label>
        <input id="playground-user" value={user} onChange={(e) => setUser(e.target.value)} />
        <div className="pair">
          <button type="submit">Render</button>
          <button
            type="button"
            onClick={() => {
              render.reset();
              run.mutate();
            }}
            disabled={run.isPending}
          >
            Run
          </button>
        </div>
        <p className="help">Run calls the model and is stored like any run.</p>
      </form>
      <ErrorNote error={render.error ?? run.error} />
      {render.data !== undefined && (
        <>
          <p className="muted">
            Version {render.data.prompt_version}
            {render.data.variant_assigned !== null && `, variant ${render.data.variant_assigned} of ${render.data.experiment_id}`}
          </p>
          <figure>
            <figcaption>Rendered prompt</figcaption>
            <pre className="rendered">{render.data.prompt_text}</pre>
          </figure>
        </>
      )}
      {run.data !== undefined && (
        <>
          <dl className="facts">
            <dt>Model</dt>
            <dd>{run.data.model_used}</dd>
            <dt>Version</dt>
            <dd>
              v{run.data.prompt_version}
              {run.data.variant_assigned !== null && ` (variant ${run.data.variant_assigned})`}
            </dd>
            <dt>Tokens</dt>
            <dd>
              {run.data.prompt_tokens} in, {run.data.completion_tokens} out, {run.data.total_tokens} in all
            </dd>
            <dt>Cost</dt>
            <dd>{formatCost(run.data.token_cost_usd)}</dd>
            <dt>Latency</dt>
            <dd>{run.data.latency_ms} ms</dd>
            <dt>Stored run</dt>
            <dd>
              <Link href={`/runs/${run.data.run_id}`}>{run.data.run_id}</Link>
            </dd>
          </dl>
          <figure>
            <figcaption>Output</figcaption>
            <pre className="output">{run.data.output}</pre>
          </figure>
        </>
      )}
    </div>
  );
}
