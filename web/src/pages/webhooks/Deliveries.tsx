import { useInfiniteQuery } from '@tanstack/react-query';
import { useLocation, useSearch } from 'wouter';
import { api } from '../../lib/api';
import { ApiError } from '../../lib/errors';
import { formatTime } from '../../lib/format.js';
import type { Page } from '../../lib/types';
import { DELIVERY_FILTERS, DELIVERY_STATUSES, lastAnswer, type Delivery } from '../../lib/webhooks.js';
import { UrlFilterForm } from '../filters/UrlFilterForm';
import { useFocusAfterApply, useFocusNewRows } from '../focus';
import { GeneralErrors, TableScroll } from '../parts';

/** Whether a delivery is about to be tried (so the history is worth asking again soon). */
const dueSoon = (d: Delivery, now: number) => d.status === 'pending' && (d.next_attempt_at === null || Date.parse(d.next_attempt_at) - now < 30_000);

/**
 * The delivery history of one endpoint, newest first, filtered by status (kept in the URL). While a
 * delivery of an enabled endpoint is due within seconds, the list is asked again every 2 seconds.
 */
export function Deliveries({ webhookId, enabled }: { webhookId: string; enabled: boolean }) {
  const search = useSearch();
  const [, navigate] = useLocation();
  const filters = DELIVERY_FILTERS.fromSearch(search);
  const canonical = DELIVERY_FILTERS.toSearch(filters);
  const base = `/webhooks/${encodeURIComponent(webhookId)}`;
  const deliveries = useInfiniteQuery({
    queryKey: ['deliveries', webhookId, canonical],
    queryFn: ({ pageParam }) => api<Page<Delivery>>('GET', DELIVERY_FILTERS.pagePath(`${base}/deliveries`, filters, pageParam)),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
    refetchInterval: (query) => {
      const now = Date.now();
      return enabled && (query.state.data?.pages ?? []).some((p) => p.data.some((d) => dueSoon(d, now))) ? 2000 : false;
    },
  });
  const list = deliveries.data?.pages.flatMap((p) => p.data) ?? [];
  const { body, expectMore } = useFocusNewRows(list.length);
  const error = deliveries.error instanceof ApiError ? deliveries.error : null;
  const { target: summary, applying } = useFocusAfterApply<HTMLParagraphElement>(canonical, !deliveries.isPending);

  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries</h2>
      <UrlFilterForm
        key={canonical}
        name="Filter deliveries"
        fields={[{ key: 'status', label: 'Delivery status', kind: 'select', options: DELIVERY_STATUSES.map((value) => ({ value })) }]}
        filters={filters}
        error={error}
        onApply={(next) => {
          applying(DELIVERY_FILTERS.toSearch(next));
          navigate(DELIVERY_FILTERS.href(base, next));
        }}
      />
      <GeneralErrors error={deliveries.error} fields={DELIVERY_FILTERS.keys} />
      {deliveries.isPending ? (
        <p className="loading">Loading…</p>
      ) : list.length === 0 ? (
        deliveries.isSuccess && (
          <p className="empty" ref={summary} tabIndex={-1}>
            {canonical === '' ? 'Nothing sent to this endpoint yet.' : 'No delivery matches this filter.'}
          </p>
        )
      ) : (
        <TableScroll>
          <table className="deliveries">
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Attempts
                </th>
                <th scope="col">Last answer</th>
                <th scope="col">Last attempt</th>
                <th scope="col">Next attempt or finished</th>
                <th scope="col">Payload</th>
              </tr>
            </thead>
            <tbody ref={body}>
              {list.map((d) => (
                <tr key={d.delivery_id} data-delivery-id={d.delivery_id} tabIndex={-1}>
                  <td className="when">{formatTime(d.created_at)}</td>
                  <td>
                    <code>{d.event_type}</code>
                  </td>
                  <td>
                    <span className={`status status-${d.status}`}>{d.status}</span>
                  </td>
                  <td className="num">{d.attempts}</td>
                  <td>{lastAnswer(d)}</td>
                  <td className="when">{formatTime(d.last_attempt_at)}</td>
                  <td className="when">{d.status === 'pending' ? `next ${formatTime(d.next_attempt_at)}` : formatTime(d.finished_at)}</td>
                  <td>
                    <details>
                      <summary>
                        Payload<span className="visually-hidden"> of {d.delivery_id}</span>
                      </summary>
                      <pre>{JSON.stringify(d.payload, null, 2)}</pre>
                    </details>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {list.length > 0 && (
        <p className="help" ref={summary} tabIndex={-1}>
          {list.length === 1 ? '1 delivery shown' : `${list.length} deliveries shown`}, newest first{deliveries.hasNextPage ? '; there are more.' : '.'}
        </p>
      )}
      {deliveries.hasNextPage && (
        <button
          type="button"
          className="more"
          onClick={() => {
            expectMore();
            void deliveries.fetchNextPage();
          }}
          disabled={deliveries.isFetchingNextPage}
        >
          {deliveries.isFetchingNextPage ? 'Loading…' : 'Load more'}
        </button>
      )}
    </section>
  );
}
