import type { Ref } from 'react';
import { Link } from 'wouter';
import { targetHref, type AuditEntry } from '../../lib/audit.js';
import { formatTime } from '../../lib/format.js';
import type { ApiKey } from '../../lib/keys.js';
import { ChangeSummary } from './ChangeSummary';
import { TableScroll } from '../parts';

/** Who made a change: the key's name at the time, its prefix (when the key still exists) and id; the CLI has no key. */
function Who({ entry, apiKey }: { entry: AuditEntry; apiKey: ApiKey | undefined }) {
  if (entry.key_id === null) return <span>{entry.key_name} (no key)</span>;
  return (
    <>
      {entry.key_name}
      {apiKey !== undefined && (
        <>
          {' '}
          <code>{apiKey.key_prefix}</code>
        </>
      )}
      <br />
      <code className="muted">{entry.key_id}</code>
    </>
  );
}

function Target({ entry }: { entry: AuditEntry }) {
  const href = targetHref(entry);
  return (
    <>
      {entry.target_type}{' '}
      {href === null ? (
        <code>{entry.target_id}</code>
      ) : (
        <Link href={href} aria-label={`${entry.target_type} ${entry.target_id}`}>
          <code>{entry.target_id}</code>
        </Link>
      )}
    </>
  );
}

/** The audit entries, newest first; `body` is the row group "Load more" focuses into. */
export function AuditTable({ entries, keys, body }: { entries: AuditEntry[]; keys: ReadonlyMap<string, ApiKey>; body: Ref<HTMLTableSectionElement> }) {
  return (
    <TableScroll>
      <table className="audit">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Change (before → after)</th>
          </tr>
        </thead>
        <tbody ref={body}>
          {entries.map((entry) => (
            <tr key={entry.id} data-audit-id={entry.id} tabIndex={-1}>
              <td className="when">{formatTime(entry.created_at)}</td>
              <td>
                <Who entry={entry} apiKey={entry.key_id === null ? undefined : keys.get(entry.key_id)} />
              </td>
              <td>
                <code>{entry.action}</code>
              </td>
              <td>
                <Target entry={entry} />
              </td>
              <td>
                <ChangeSummary before={entry.before} after={entry.after} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
