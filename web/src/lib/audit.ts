import { urlFilters } from './urlFilters.js';

/** One entry of `GET /audit` (src/modules/audit/audit.schemas.ts is the reference). */
export interface AuditEntry {
  id: string;
  created_at: string;
  key_id: string | null;
  key_name: string;
  action: string;
  target_type: string;
  target_id: string;
  before: unknown;
  after: unknown;
}

/** The kinds of target `GET /audit?target_type=` takes, as its schema lists them. */
export const AUDIT_TARGET_TYPES = ['prompt', 'experiment', 'key', 'user', 'webhook', 'dataset', 'evaluator'] as const;

/** The audit list's filters, under `GET /audit`'s own names. */
export const AUDIT_FILTERS = urlFilters(['action', 'target_type', 'target_id', 'key_id', 'since', 'until'] as const);
export type AuditFilterKey = (typeof AUDIT_FILTERS.keys)[number];

/**
 * The console page of an entry's target, where there is one: a prompt, an experiment, a webhook;
 * a key is a row of the Keys page. Users (erased ones), datasets and evaluators have no page. null: no link.
 */
export function targetHref(entry: Pick<AuditEntry, 'target_type' | 'target_id' | 'action'>): string | null {
  const id = encodeURIComponent(entry.target_id);
  switch (entry.target_type) {
    case 'prompt':
      return `/prompts/${id}`;
    case 'experiment':
      return `/experiments/${id}`;
    case 'webhook':
      // A deleted endpoint has no page any more.
      return entry.action === 'webhook.deleted' ? null : `/webhooks/${id}`;
    case 'key':
      return '/keys';
    default:
      return null;
  }
}
