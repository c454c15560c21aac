import type { PlaygroundColumn } from '../../lib/playground';
import type { Version } from '../../lib/types';

/** One column's version and, where the key may run, the model it runs on. */
export function ColumnPicker({
  column,
  versions,
  canRun,
  onChange,
}: {
  column: PlaygroundColumn;
  versions: Version[];
  canRun: boolean;
  onChange: (column: PlaygroundColumn) => void;
}) {
  const id = `playground-${column.name}`;
  const version = versions.find((v) => v.version === column.version);
  return (
    <fieldset className="playground-column">
      <legend>Column {column.name}</legend>
      <label htmlFor={`${id}-version`}>Version (column {column.name})</label>
      <select id={`${id}-version`} value={column.version} onChange={(e) => onChange({ ...column, version: Number(e.target.value) })}>
        {versions.map((v) => (
          <option key={v.version} value={v.version}>
            v{v.version}
            {v.labels.length > 0 ? ` (${v.labels.join(', ')})` : ''}
          </option>
        ))}
      </select>
      {canRun && (
        <>
          <label htmlFor={`${id}-model`}>Model override (column {column.name})</label>
          <input
            id={`${id}-model`}
            value={column.model}
            placeholder={version?.model ?? 'the server default model'}
            aria-describedby={`${id}-model-help`}
            onChange={(e) => onChange({ ...column, model: e.target.value })}
          />
          <p className="help" id={`${id}-model-help`}>
            provider/model for Run; blank runs on the version's own model (and its fallbacks).
          </p>
        </>
      )}
    </fieldset>
  );
}
