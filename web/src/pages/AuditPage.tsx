import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useLocation, useSearch } from 'wouter';
import type { Role } from '../lib/api';
import { api } from '../lib/api';
import { AUDIT_FILTERS, AUDIT_TARGET_TYPES, type AuditEntry, type AuditFilterKey } from '../lib/audit.js';
import { ApiError } from '../lib/errors';
import type { ApiKey } from '../lib/keys.js';
import type { Page } from '../lib/types';
import type { Filters } from '../lib/urlFilters.js';
import { AdminOnly } from './AdminOnly';
import { AuditTable } from './audit/AuditTable';
import { UrlFilterForm, type FilterField } from './filters/UrlFilterForm';
import { useFocusAfterApply, useFocusNewRows } from './focus';
import { GeneralErrors } from './parts';
import './runs.css';
import './admin.css';

/** The audit log (admin keys only): who changed what and when, newest first; the filters live in the URL. */
export function AuditPage({ role }: { role: Role }) {
  if (role !== 'admin') return <AdminOnly title="Audit log" what="only they may read the audit log" />;
  return <AuditLog />;
}

function AuditLog() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const filters = AUDIT_FILTERS.fromSearch(search);
  const canonical = AUDIT_FILTERS.toSearch(filters);
  const entries = useInfiniteQuery({
    queryKey: ['audit', canonical],
    queryFn: ({ pageParam }) => api<Page<AuditEntry>>('GET', AUDIT_FILTERS.pagePath('/audit', filters, pageParam)),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
  });
  // For the prefix and name of each key, and the key filter's suggestions.
  const keys = useQuery({ queryKey: ['keys'], queryFn: () => api<{ data: ApiKey[] }>('GET', '/keys') });
  const keyList = keys.data?.data ?? [];
  const keysById = new Map(keyList.map((k) => [k.key_id, k]));
  const list = entries.data?.pages.flatMap((p) => p.data) ?? [];
  const { body, expectMore } = useFocusNewRows(list.length);

  // After filters are applied, the focus goes to what they found (the count, or "no entry matches").
  const { target: summary, applying } = useFocusAfterApply<HTMLParagraphElement>(canonical, !entries.isPending);
  const apply = (next: Filters<AuditFilterKey>) => {
    applying(AUDIT_FILTERS.toSearch(next));
    navigate(AUDIT_FILTERS.href('/audit', next));
  };

  const actions = [...new Set(list.map((e) => e.action))].sort();
  const fields: Array<FilterField<AuditFilterKey>> = [
    { key: 'action', label: 'Action', kind: 'text', suggestions: actions.map((value) => ({ value })) },
    { key: 'target_type', label: 'Target type', kind: 'select', options: AUDIT_TARGET_TYPES.map((value) => ({ value })) },
    { key: 'target_id', label: 'Target id', kind: 'text' },
    { key: 'key_id', label: 'Key (id)', kind: 'text', suggestions: keyList.map((k) => ({ value: k.key_id, label: `${k.name} (${k.key_prefix})` })) },
    { key: 'since', label: 'Since (UTC)', kind: 'time' },
    { key: 'until', label: 'Until (UTC, not included)', kind: 'time' },
  ];
  const error = entries.error instanceof ApiError ? entries.error : null;
  const filtered = canonical !== '';

  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <p className="help">
        Every change to prompts, versions, labels, experiments, keys, webhooks and users, recorded with the change itself; the CLI's changes name no key.
      </p>
      <UrlFilterForm
        key={canonical}
        name="Filter the audit log"
        fields={fields}
        filters={filters}
        error={error}
        timeHelp="Times are UTC, like every time in the console."
        onApply={apply}
      />
      <GeneralErrors error={entries.error} fields={AUDIT_FILTERS.keys} />
      {entries.isPending ? (
        <p className="loading">Loading…</p>
      ) : list.length === 0 ? (
        entries.isSuccess && (
          <p className="empty" ref={summary} tabIndex={-1}>
            {filtered ? 'No entry matches these filters.' : 'No changes recorded yet.'}
          </p>
        )
      ) : (
        <>
          <p className="help" ref={summary} tabIndex={-1}>
            {list.length === 1 ? '1 entry shown' : `${list.length} entries shown`}, newest first{entries.hasNextPage ? '; there are more.' : '.'}
          </p>
          <AuditTable entries={list} keys={keysById} body={body} />
        </>
      )}
      {entries.hasNextPage && (
        <button
          type="button"
          className="more"
          onClick={() => {
            expectMore();
            void entries.fetchNextPage();
          }}
          disabled={entries.isFetchingNextPage}
        >
          {entries.isFetchingNextPage ? 'Loading…' : 'Load more'}
        </button>
      )}
    </section>
  );
}
