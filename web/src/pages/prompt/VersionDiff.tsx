import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../lib/api';
import type { Version } from '../../lib/types';
import { contentText, settingChanges, wordDiff } from '../../lib/versionDiff';
import { ErrorNote, TableScroll } from '../parts';

/** Any two versions side by side: the content word by word, then the settings that differ. */
export function VersionDiff({ promptId, versions }: { promptId: string; versions: Version[] }) {
  const newest = versions[0]?.version ?? 1;
  const [left, setLeft] = useState(Math.max(1, newest - 1));
  const [right, setRight] = useState(newest);
  const path = `/prompts/${encodeURIComponent(promptId)}/versions`;
  const a = useQuery({ queryKey: ['version', promptId, left], queryFn: () => api<Version>('GET', `${path}/${left}`) });
  const b = useQuery({ queryKey: ['version', promptId, right], queryFn: () => api<Version>('GET', `${path}/${right}`) });
  const select = (id: string, label: string, value: number, set: (n: number) => void) => (
    <span>
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => set(Number(e.target.value))}>
        {versions.map((v) => (
          <option key={v.version} value={v.version}>
            v{v.version}
          </option>
        ))}
      </select>
    </span>
  );
  return (
    <section aria-labelledby="diff-title">
      <h2 id="diff-title">Compare versions</h2>
      <div className="pair">
        {select('diff-left', 'From', left, setLeft)}
        {select('diff-right', 'To', right, setRight)}
      </div>
      <ErrorNote error={a.error ?? b.error} />
      {a.data !== undefined && b.data !== undefined && (
        <>
          <figure>
            <figcaption>
              Changes from v{left} to v{right}
            </figcaption>
            <pre className="diff">
              {wordDiff(contentText(a.data), contentText(b.data)).map((s, i) =>
                s.kind === 'same' ? (
                  // biome-ignore lint/suspicious/noArrayIndexKey: segments have no identity but their place
                  <span key={i}>{s.text}</span>
                ) : s.kind === 'removed' ? (
                  // biome-ignore lint/suspicious/noArrayIndexKey: as above
                  <del key={i}>{s.text}</del>
                ) : (
                  // biome-ignore lint/suspicious/noArrayIndexKey: as above
                  <ins key={i}>{s.text}</ins>
                ),
              )}
            </pre>
          </figure>
          <SettingChanges left={a.data} right={b.data} />
        </>
      )}
    </section>
  );
}

function SettingChanges({ left, right }: { left: Version; right: Version }) {
  const changes = settingChanges(left, right);
  if (changes.length === 0) return <p className="muted">Same model, parameters, fallbacks and variables.</p>;
  return (
    <TableScroll>
      <table className="compact">
        <thead>
          <tr>
            <th scope="col">Setting</th>
            <th scope="col">v{left.version}</th>
            <th scope="col">v{right.version}</th>
          </tr>
        </thead>
        <tbody>
          {changes.map((c) => (
            <tr key={c.field}>
              <th scope="row">{c.field}</th>
              <td>
                <del>{c.left}</del>
              </td>
              <td>
                <ins>{c.right}</ins>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
