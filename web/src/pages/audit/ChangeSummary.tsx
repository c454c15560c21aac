import { clipped, jsonDiff } from '../../lib/jsonDiff.js';

/** How many changed fields a row lists before "and N more" (the full JSON is one click away). */
const SHOWN = 8;

/**
 * An audit entry's before/after as the fields that changed (before → after), then both documents
 * whole on request. A new object lists its fields as added, a removed one as removed.
 */
export function ChangeSummary({ before, after }: { before: unknown; after: unknown }) {
  const changes = jsonDiff(before, after);
  const rest = changes.length - SHOWN;
  return (
    <div className="change">
      {changes.length === 0 ? (
        <p className="muted">No field changed.</p>
      ) : (
        <ul className="diff">
          {changes.slice(0, SHOWN).map((c) => (
            <li key={c.path}>
              <code className="path">{c.path === '' ? '(value)' : c.path}</code>: {c.before !== undefined && <del>{clipped(c.before)}</del>}
              {c.before !== undefined && c.after !== undefined && ' → '}
              {c.after !== undefined && <ins>{clipped(c.after)}</ins>}
            </li>
          ))}
          {rest > 0 && <li className="muted">and {rest === 1 ? '1 more field' : `${rest} more fields`}</li>}
        </ul>
      )}
      <details>
        <summary>Full before and after (JSON)</summary>
        <div className="before-after">
          <div>
            <p className="muted">Before</p>
            <pre>{before === null || before === undefined ? '(none: new)' : JSON.stringify(before, null, 2)}</pre>
          </div>
          <div>
            <p className="muted">After</p>
            <pre>{after === null || after === undefined ? '(none: gone)' : JSON.stringify(after, null, 2)}</pre>
          </div>
        </div>
      </details>
    </div>
  );
}
