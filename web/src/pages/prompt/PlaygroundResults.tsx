import type { Ref } from 'react';
import { Link } from 'wouter';
import { formatCost } from '../../lib/format';
import type { PlaygroundColumn, RenderAnswer, RunAnswer } from '../../lib/playground';
import type { Version } from '../../lib/types';
import { ErrorNote } from '../parts';

export type ColumnOutcome = { column: PlaygroundColumn; answer: RenderAnswer | RunAnswer } | { column: PlaygroundColumn; error: Error };
export interface PlaygroundResult {
  kind: 'render' | 'run';
  outcomes: ColumnOutcome[];
}

/** What each column answered, next to each other: the rendered prompt, or the output and its numbers. */
export function PlaygroundResults({
  result,
  headingRef,
  versionOf,
}: {
  result: PlaygroundResult;
  headingRef: Ref<HTMLHeadingElement>;
  versionOf: (n: number) => Version | undefined;
}) {
  return (
    <section aria-labelledby="playground-results-title" className="playground-results">
      <h3 id="playground-results-title" ref={headingRef} tabIndex={-1}>
        {result.kind === 'render' ? 'Rendered prompts' : 'Run results'}
      </h3>
      <div className="playground-columns">
        {result.outcomes.map((outcome) => {
          const { column } = outcome;
          const model = column.model.trim() !== '' ? column.model.trim() : (versionOf(column.version)?.model ?? 'default model');
          const title = result.kind === 'render' ? `${column.name}: v${column.version}` : `${column.name}: v${column.version} on ${model}`;
          return (
            <article key={column.name} className="playground-result" data-column={column.name} aria-label={`Column ${title}`}>
              <h4>{title}</h4>
              {'error' in outcome ? (
                <ErrorNote error={outcome.error} />
              ) : 'prompt_text' in outcome.answer ? (
                <Rendered answer={outcome.answer} />
              ) : (
                <Ran answer={outcome.answer} />
              )}
            </article>
          );
        })}
      </div>
    </section>
  );
}

function Rendered({ answer }: { answer: RenderAnswer }) {
  return (
    <figure>
      <figcaption>Rendered prompt</figcaption>
      <pre className="rendered">{answer.prompt_text}</pre>
    </figure>
  );
}

function Ran({ answer }: { answer: RunAnswer }) {
  return (
    <>
      <figure>
        <figcaption>Output</figcaption>
        <pre className="output">{answer.output}</pre>
      </figure>
      <dl className="facts">
        <dt>Model</dt>
        <dd data-fact="model">{answer.model_used}</dd>
        <dt>Tokens</dt>
        <dd data-fact="tokens">
          {answer.prompt_tokens} in, {answer.completion_tokens} out, {answer.total_tokens} in all
        </dd>
        <dt>Cost</dt>
        <dd data-fact="cost">{formatCost(answer.token_cost_usd)}</dd>
        <dt>Latency</dt>
        <dd data-fact="latency">{answer.latency_ms} ms</dd>
        {answer.tool_calls !== undefined && (
          <>
            <dt>Tool calls</dt>
            <dd data-fact="tool-calls">{answer.tool_calls.map((c) => `${c.function.name}(${c.function.arguments})`).join(', ')}</dd>
          </>
        )}
        {answer.output_valid !== undefined && (
          <>
            <dt>Output format</dt>
            <dd data-fact="output-valid">{answer.output_valid ? 'valid' : `invalid: ${answer.output_error ?? ''}`}</dd>
          </>
        )}
        <dt>Stored run</dt>
        <dd>
          <Link href={`/runs/${answer.run_id}`}>{answer.run_id}</Link>
        </dd>
      </dl>
    </>
  );
}
