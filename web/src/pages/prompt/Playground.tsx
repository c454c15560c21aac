import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { Role } from '../../lib/api';
import { api } from '../../lib/api';
import { columnRequest, formInputs, parseJsonInputs, unionOfVariables, type PlaygroundColumn, type RenderAnswer, type RunAnswer } from '../../lib/playground';
import type { Version } from '../../lib/types';
import { ColumnPicker } from './ColumnPicker';
import { PlaygroundResults, type ColumnOutcome, type PlaygroundResult } from './PlaygroundResults';
import { ServedPlayground } from './ServedPlayground';
import './playground.css';

type InputMode = 'form' | 'json';

/**
 * Try any version before callers are served it, alone or side by side: the same inputs on two
 * versions, or one version on two models. Render needs a read key; Run calls the model (it costs
 * money and is stored as a playground run, never part of an experiment), so it needs an admin key.
 */
export function Playground({ promptId, versions, served, role }: { promptId: string; versions: Version[]; served: number; role: Role }) {
  const [columns, setColumns] = useState<PlaygroundColumn[]>([{ name: 'A', version: served, model: '' }]);
  const [mode, setMode] = useState<InputMode>('form');
  const [values, setValues] = useState<Record<string, string>>({});
  const [jsonText, setJsonText] = useState('');
  const [jsonError, setJsonError] = useState<string | null>(null);
  const [servedMode, setServedMode] = useState(false);
  const jsonRef = useRef<HTMLTextAreaElement>(null);
  const resultsRef = useRef<HTMLHeadingElement>(null);

  const versionOf = (n: number) => versions.find((v) => v.version === n);
  const variables = unionOfVariables(columns.map((c) => versionOf(c.version)?.variables ?? []));

  const action = useMutation({
    mutationFn: async ({ kind, inputs }: { kind: 'render' | 'run'; inputs: Record<string, unknown> }): Promise<PlaygroundResult> => {
      // Each column is asked on its own: one failing (a bad model) does not hide the other's answer.
      const settled = await Promise.allSettled(
        columns.map((column) => {
          const { path, body } = columnRequest(promptId, column, kind, inputs);
          return api<RenderAnswer | RunAnswer>('POST', path, body);
        }),
      );
      const outcomes: ColumnOutcome[] = settled.map((s, i) =>
        s.status === 'fulfilled' ? { column: columns[i]!, answer: s.value } : { column: columns[i]!, error: s.reason as Error },
      );
      return { kind, outcomes };
    },
  });

  // Focus moves to what the action produced, so a keyboard or screen-reader user lands on it.
  useEffect(() => {
    if (action.data !== undefined) resultsRef.current?.focus();
  }, [action.data]);

  const inputsOrError = (): Record<string, unknown> | null => {
    if (mode === 'form') return formInputs(variables, values);
    const parsed = parseJsonInputs(jsonText);
    if (parsed.ok) {
      setJsonError(null);
      return parsed.inputs;
    }
    setJsonError(parsed.error);
    jsonRef.current?.focus();
    return null;
  };
  const start = (kind: 'render' | 'run') => {
    const inputs = inputsOrError();
    if (inputs === null) {
      action.reset();
      return;
    }
    action.mutate({ kind, inputs });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    start('render');
  };
  const switchMode = (next: InputMode) => {
    // The form's values carry over as the JSON's starting point, so switching loses nothing typed.
    if (next === 'json' && jsonText.trim() === '') setJsonText(JSON.stringify(formInputs(variables, values), null, 2));
    setJsonError(null);
    setMode(next);
  };
  const setColumn = (index: number, column: PlaygroundColumn) => setColumns(columns.map((c, i) => (i === index ? column : c)));
  const addColumn = () => {
    const other = versions.find((v) => v.version !== columns[0]!.version)?.version ?? columns[0]!.version;
    setColumns([columns[0]!, { name: 'B', version: other, model: '' }]);
  };

  return (
    <section aria-labelledby="playground-title" className="playground">
      <h2 id="playground-title">Playground</h2>
      <form onSubmit={submit}>
        <div className="playground-columns">
          {columns.map((column, i) => (
            <ColumnPicker key={column.name} column={column} versions={versions} canRun={role === 'admin'} onChange={(c) => setColumn(i, c)} />
          ))}
        </div>
        {columns.length === 1 ? (
          <button type="button" onClick={addColumn}>
            Compare side by side
          </button>
        ) : (
          <button type="button" onClick={() => setColumns([columns[0]!])}>
            Remove column B
          </button>
        )}
        <fieldset className="input-mode">
          <legend>Inputs</legend>
          <label>
            <input type="radio" name="input-mode" checked={mode === 'form'} onChange={() => switchMode('form')} /> One field per variable
          </label>
          <label>
            <input type="radio" name="input-mode" checked={mode === 'json'} onChange={() => switchMode('json')} /> JSON inputs (numbers, lists, objects)
          </label>
        </fieldset>
        {mode === 'form' ? (
          variables.length === 0 ? (
            <p className="muted">The version asks for no variables.</p>
          ) : (
            variables.map((v) => (
              <div key={v}>
                <label htmlFor={`input-${v}`}>{v}</label>
                <textarea id={`input-${v}`} rows={2} value={values[v] ?? ''} onChange={(e) => setValues({ ...values, [v]: e.target.value })} />
              </div>
            ))
          )
        ) : (
          <div>
            <label htmlFor="playground-json">Inputs as JSON</label>
            <textarea
              id="playground-json"
              ref={jsonRef}
              rows={6}
              className="code"
              value={jsonText}
              aria-invalid={jsonError !== null}
              aria-describedby={jsonError === null ? undefined : 'playground-json-error'}
              onChange={(e) => setJsonText(e.target.value)}
            />
            {jsonError !== null && (
              <p role="alert" id="playground-json-error" className="error field-error">
                {jsonError}
              </p>
            )}
          </div>
        )}
        <div className="pair">
          <button type="submit" disabled={action.isPending}>
            Render
          </button>
          {role === 'admin' && (
            <button type="button" onClick={() => start('run')} disabled={action.isPending}>
              Run
            </button>
          )}
        </div>
        <p className="help">
          {role === 'admin'
            ? 'Run calls the model (it costs what a run costs) and stores a playground run: never part of an experiment, not counted in the numbers above.'
            : 'Running needs an admin key: it calls the model, which costs money. A read key can render.'}
        </p>
      </form>
      {action.data !== undefined && <PlaygroundResults result={action.data} headingRef={resultsRef} versionOf={versionOf} />}
      {servedMode ? (
        <section aria-labelledby="served-title" className="served-mode">
          <h3 id="served-title">As callers are served</h3>
          <p className="help">The runtime endpoints, as an application calls them: production, or the variant a running experiment gives the user id.</p>
          <ServedPlayground promptId={promptId} variables={versionOf(served)?.variables ?? []} />
          <button type="button" onClick={() => setServedMode(false)}>
            Close
          </button>
        </section>
      ) : (
        <button type="button" onClick={() => setServedMode(true)}>
          Try as callers are served…
        </button>
      )}
    </section>
  );
}
