import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api } from '../../lib/api';
import { formatTime } from '../../lib/format.js';
import type { Page } from '../../lib/types';
import { firstAttemptPending, lastAnswer, type Delivery } from '../../lib/webhooks.js';
import { useFocusOnMount } from '../focus';
import { ErrorNote } from '../parts';

/** What became of a delivery, in a sentence. */
function outcomeText(d: Delivery, enabled: boolean): string {
  if (d.status === 'delivered') return `Delivered: the receiver answered ${lastAnswer(d)} at ${formatTime(d.last_attempt_at)}.`;
  if (d.status === 'failed') return `Failed after ${d.attempts} attempts: ${lastAnswer(d)}. No more attempts.`;
  if (d.attempts === 0) {
    return enabled ? 'Queued; sending it now…' : 'Queued, but this endpoint is disabled: the test waits until the endpoint is enabled again.';
  }
  if (firstAttemptPending(d)) return 'Sending it now: waiting for the receiver to answer…';
  return `Attempt ${d.attempts} failed: ${lastAnswer(d)}. Next attempt at ${formatTime(d.next_attempt_at)}.`;
}

/**
 * The result of "Send test": the queued delivery, followed (every second) until its first attempt
 * is over (not merely taken by the sender: that attempt may still be waiting for the receiver). It takes the focus when it appears, and its sentence is announced as it changes.
 */
export function TestOutcome({ webhookId, queued, enabled }: { webhookId: string; queued: Delivery; enabled: boolean }) {
  const box = useFocusOnMount<HTMLElement>();
  // There is no route for one delivery: the page of those made since the test holds it.
  const since = new URLSearchParams({ since: queued.created_at, limit: '100' }).toString();
  const latest = useQuery({
    queryKey: ['test-delivery', webhookId, queued.delivery_id],
    queryFn: async () => {
      const page = await api<Page<Delivery>>('GET', `/webhooks/${encodeURIComponent(webhookId)}/deliveries?${since}`);
      return page.data.find((d) => d.delivery_id === queued.delivery_id) ?? null;
    },
    refetchInterval: (query) => {
      const d = query.state.data;
      return enabled && (d === undefined || (d !== null && firstAttemptPending(d))) ? 1000 : false;
    },
  });
  const d = latest.data ?? queued;
  // The history below may be filtered, and then does not follow pending deliveries: it is told.
  const queryClient = useQueryClient();
  useEffect(() => {
    if (d.attempts > 0) void queryClient.invalidateQueries({ queryKey: ['deliveries', webhookId] });
  }, [queryClient, webhookId, d.attempts]);
  return (
    <section className="outcome" ref={box} tabIndex={-1} aria-labelledby="test-outcome-title">
      <h3 id="test-outcome-title">Test event {d.event_id}</h3>
      <p aria-live="polite" data-testid="test-outcome">
        {latest.data === null ? 'This delivery is no longer in the history.' : outcomeText(d, enabled)}
      </p>
      <ErrorNote error={latest.error} />
    </section>
  );
}
