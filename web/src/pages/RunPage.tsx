import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../lib/api';
import { formatTime } from '../lib/format.js';
import { argumentsText, costText, inputText, messageText, modelShown, promptShown, tokensText, validityText, type Run } from '../lib/runView.js';
import { OnlineScoresSection } from './lazyOnline';
import { ModelConfigView } from './ModelConfigView';
import { ErrorNote, TableScroll } from './parts';
import { Attempts } from './runs/Attempts';
import { RunOutcomes } from './runs/RunOutcomes';
import './runs.css';

const enc = encodeURIComponent;

/** One stored run, all the API keeps of it: what went in, what was sent, what came back, and each try. */
export function RunPage({ runId }: { runId: string }) {
  const run = useQuery({ queryKey: ['run', runId], queryFn: () => api<Run>('GET', `/runs/${enc(runId)}`) });
  const crumbs = (
    <p className="crumbs">
      <Link href="/runs">Runs</Link> /
    </p>
  );
  if (run.isError) {
    return (
      <section aria-labelledby="run-title">
        {crumbs}
        <h1 id="run-title">Run {runId}</h1>
        <ErrorNote error={run.error} />
      </section>
    );
  }
  if (run.isPending) return <p className="loading">Loading…</p>;
  const r = run.data;
  const prompt = promptShown(r);
  const inputs = Object.entries(r.inputs);
  const validity = validityText(r);
  return (
    <section aria-labelledby="run-title">
      {crumbs}
      <h1 id="run-title">Run {r.run_id}</h1>
      <dl className="facts run-facts">
        <dt>Time</dt>
        <dd>{formatTime(r.created_at)}</dd>
        <dt>Status</dt>
        <dd>
          <span className={`status status-${r.status}`}>{r.status}</span>
        </dd>
        <dt>Source</dt>
        <dd data-fact="source">
          {r.source === 'playground'
            ? 'Playground: a trial run, never part of an experiment'
            : r.source === 'evaluation'
              ? 'Evaluation: a call made by an evaluation, never part of an experiment'
              : 'API (/run_prompt)'}
        </dd>
        <dt>Prompt</dt>
        <dd>
          <Link href={`/prompts/${enc(r.prompt_id)}/versions/${r.prompt_version}`}>
            {r.prompt_id} v{r.prompt_version}
          </Link>
        </dd>
        <dt>Experiment</dt>
        <dd>
          {r.experiment_id === null ? (
            'none'
          ) : (
            <>
              <Link href={`/experiments/${enc(r.experiment_id)}`}>{r.experiment_id}</Link>
              {r.variant !== null && `, variant ${r.variant}`}
            </>
          )}
        </dd>
        <dt>User</dt>
        <dd>{r.external_user_id ?? '–'}</dd>
        <dt>Model</dt>
        <dd>
          {modelShown(r)}
          {r.model_used !== null && r.model_used !== r.model_requested && <span className="muted"> (asked for {r.model_requested})</span>}
        </dd>
        <dt>Tokens</dt>
        <dd data-fact="tokens">{tokensText(r)}</dd>
        <dt>Cost</dt>
        <dd data-fact="cost">{costText(r)}</dd>
        <dt>Latency</dt>
        <dd data-fact="latency">
          {r.latency_ms} ms{r.ttft_ms !== null && `, first token after ${r.ttft_ms} ms (streamed)`}
        </dd>
        {validity !== null && (
          <>
            <dt>Output format</dt>
            <dd data-fact="output-valid" className={r.output_valid ? undefined : 'error'}>
              {validity}
            </dd>
          </>
        )}
        {r.price !== null && (
          <>
            <dt>Price used</dt>
            <dd>
              {Object.entries(r.price)
                .map(([k, v]) => `${k}: ${inputText(v)}`)
                .join(', ')}
            </dd>
          </>
        )}
      </dl>
      {r.error !== null && (
        <div className="error run-error">
          <h2>Error</h2>
          <pre className="run-error-text">{r.error}</pre>
        </div>
      )}
      <h2>Inputs</h2>
      {inputs.length === 0 ? (
        <p className="muted">No inputs.</p>
      ) : (
        <TableScroll>
          <table className="compact inputs">
            <tbody>
              {inputs.map(([name, value]) => (
                <tr key={name}>
                  <th scope="row">{name}</th>
                  <td>
                    <pre className="input-value">{inputText(value)}</pre>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      <h2>Rendered prompt</h2>
      {prompt.kind === 'text' ? (
        <pre className="rendered">{prompt.text}</pre>
      ) : (
        <ol className="chat">
          {prompt.messages.map((m, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: messages have no id and never reorder
            <li key={i}>
              <span className="chip">{m.role}</span>
              <pre className="message-content">{messageText(m.content)}</pre>
            </li>
          ))}
        </ol>
      )}
      <h2>Output</h2>
      {r.output === null ? <p className="muted">No output{r.status === 'error' ? ': the run failed.' : ' kept.'}</p> : <pre className="output">{r.output}</pre>}
      {r.tool_calls !== undefined && (
        <>
          <h2>Tool calls</h2>
          <ol className="tool-calls">
            {r.tool_calls.map((c) => (
              <li key={c.id} data-tool-call={c.function.name}>
                <code>{c.function.name}</code> <span className="muted">({c.id})</span>
                <pre className="tool-arguments">{argumentsText(c.function.arguments)}</pre>
              </li>
            ))}
          </ol>
        </>
      )}
      <ModelConfigView config={r} />
      <Attempts attempts={r.attempts} />
      <RunOutcomes runId={r.run_id} />
      <OnlineScoresSection runId={r.run_id} />
    </section>
  );
}
