import type { ModelConfig } from '../lib/types';

/**
 * A version's (or a run's) tools, tool choice and response format, as the API holds them
 * (docs/tools-and-structured-output.md). Renders nothing when none is set.
 */
export function ModelConfigView({ config }: { config: ModelConfig }) {
  const { tools, tool_choice: choice, response_format: format } = config;
  if (tools === undefined && choice === undefined && format === undefined) return null;
  return (
    <section aria-labelledby="model-config-title" className="model-config">
      <h2 id="model-config-title">Tools and output format</h2>
      <dl className="facts">
        {tools !== undefined && (
          <>
            <dt>Tools</dt>
            <dd data-fact="tools">
              <ul className="tools">
                {tools.map((t) => (
                  <li key={t.function.name}>
                    <code>{t.function.name}</code>
                    {t.function.description !== undefined && <span className="muted"> {t.function.description}</span>}
                    {t.function.parameters !== undefined && <pre className="tool-parameters">{JSON.stringify(t.function.parameters, null, 2)}</pre>}
                  </li>
                ))}
              </ul>
            </dd>
          </>
        )}
        {choice !== undefined && (
          <>
            <dt>Tool choice</dt>
            <dd data-fact="tool-choice">{typeof choice === 'string' ? choice : `the function ${choice.function.name}`}</dd>
          </>
        )}
        {format !== undefined && (
          <>
            <dt>Response format</dt>
            <dd data-fact="response-format">
              {format.type}
              {format.json_schema !== undefined && (
                <>
                  {' '}
                  <code>{format.json_schema.name}</code>
                  <pre className="response-schema">{JSON.stringify(format.json_schema.schema, null, 2)}</pre>
                </>
              )}
            </dd>
          </>
        )}
      </dl>
    </section>
  );
}
