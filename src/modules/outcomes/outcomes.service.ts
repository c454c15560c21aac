import type { Store } from '../../db/store.js';
import type { Db } from '../../db/open.js';
import { isoNow } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { notFound, valueError } from '../../http/httpError.js';
import { page, pageBounds, type PageQuery } from '../runs/listParams.js';
import { promptNotFound } from '../prompts/serving.js';
import type { PromptCache } from '../prompts/promptCache.js';
import { jsonDepth, RUNTIME_MAX } from '../runtimeLimits.js';
import { findRunAttribution, insertOutcome, listOutcomes, type OutcomeListQuery, type OutcomeRow } from './outcomes.repo.js';
import { isDuplicateClaim, remember, replay, type IdempotencyClaim } from '../idempotency/idempotency.js';

export interface TrackOutcomeInput {
  prompt_run_id?: string | null;
  prompt_id: string;
  external_user_id?: string | null;
  event_type?: string;
  label?: string | null;
  value?: string | null;
  numeric_value?: number | null;
  is_success?: boolean | null;
  source?: string | null;
  metadata?: Record<string, unknown> | null;
}

/** Finds the stored assignment an outcome without a run belongs to (design.md §6); provided by experiments. */
export type AssignmentAttribution = (db: Db, projectId: string, promptId: string, externalUserId: string) => { experimentId: string; variant: string } | null;



export function outcomeView(row: OutcomeRow) {
  return {
    outcome_id: row.id,
    prompt_id: row.prompt_id,
    prompt_run_id: row.prompt_run_id,
    external_user_id: row.external_user_id,
    event_type: row.event_type,
    label: row.label,
    value: row.value,
    numeric_value: row.numeric_value,
    is_success: row.is_success === null ? null : row.is_success === 1,
    source: row.source,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, unknown>),
    experiment_id: row.experiment_id,
    variant: row.variant,
    attributed_by: row.attributed_by,
    created_at: row.created_at,
  };
}

export function createOutcomeService(store: Store, cache: PromptCache, attributeByAssignment: AssignmentAttribution) {
  /** Inside the write transaction, so attribution sees exactly the state the outcome is stored against. */
  function attribute(db: Db, projectId: string, input: TrackOutcomeInput): Pick<OutcomeRow, 'experiment_id' | 'variant' | 'attributed_by' | 'attributed_user'> {
    if (input.prompt_run_id != null) {
      const run = findRunAttribution(db, projectId, input.prompt_run_id);
      if (run === undefined) throw notFound(`Run '${input.prompt_run_id}' not found`);
      if (run.prompt_id !== input.prompt_id) {
        throw valueError(['body', 'prompt_run_id'], input.prompt_run_id, `run ${input.prompt_run_id} belongs to prompt '${run.prompt_id}', not '${input.prompt_id}'`);
      }
      if (run.experiment_id !== null) {
        return { experiment_id: run.experiment_id, variant: run.variant, attributed_by: 'run', attributed_user: run.external_user_id };
      }
    }
    if (input.external_user_id != null) {
      const found = attributeByAssignment(db, projectId, input.prompt_id, input.external_user_id);
      if (found !== null) {
        return { experiment_id: found.experimentId, variant: found.variant, attributed_by: 'assignment', attributed_user: input.external_user_id };
      }
    }
    return { experiment_id: null, variant: null, attributed_by: 'none', attributed_user: null };
  }

  return {
    async track(projectId: string, input: TrackOutcomeInput, claim: IdempotencyClaim | null = null): Promise<unknown> {
      const prior = claim && replay(store.db, projectId, claim);
      if (prior) return prior;
      if (!cache.exists(projectId, input.prompt_id)) throw promptNotFound(input.prompt_id);
      const metadata = input.metadata == null ? null : JSON.stringify(input.metadata);
      if (metadata !== null && Buffer.byteLength(metadata, 'utf8') > RUNTIME_MAX.metadataBytes) {
        throw valueError(['body', 'metadata'], input.metadata, `metadata must serialise to at most ${RUNTIME_MAX.metadataBytes} bytes of JSON`);
      }
      if (input.metadata != null && jsonDepth(input.metadata, RUNTIME_MAX.metadataDepth) > RUNTIME_MAX.metadataDepth) {
        throw valueError(['body', 'metadata'], input.metadata, `metadata may nest at most ${RUNTIME_MAX.metadataDepth} levels deep`);
      }
      try {
        return await store.writer.write((db) => {
          const stored: OutcomeRow = {
            id: newId('out'),
            prompt_id: input.prompt_id,
            prompt_run_id: input.prompt_run_id ?? null,
            external_user_id: input.external_user_id ?? null,
            event_type: input.event_type ?? 'outcome',
            label: input.label ?? null,
            value: input.value ?? null,
            numeric_value: input.numeric_value ?? null,
            is_success: input.is_success == null ? null : input.is_success ? 1 : 0,
            source: input.source ?? null,
            metadata,
            ...attribute(db, projectId, input),
            created_at: isoNow(store.clock),
          };
          insertOutcome(db, projectId, stored);
          const answer = { outcome_id: stored.id, status: 'recorded' as const, experiment_id: stored.experiment_id, variant_assigned: stored.variant };
          if (claim) remember(db, projectId, claim, answer, stored.created_at);
          return answer;
        });
      } catch (error) {
        // A concurrent twin with the same key committed first: answer what it answered.
        if (claim && isDuplicateClaim(error)) return replay(store.db, projectId, claim);
        throw error;
      }
    },

    list(projectId: string, query: PageQuery & Omit<OutcomeListQuery, keyof ReturnType<typeof pageBounds>>) {
      return page(query.cursor, () => listOutcomes(store.db, projectId, { ...query, ...pageBounds(query) }), outcomeView);
    },
  };
}

export type OutcomeService = ReturnType<typeof createOutcomeService>;
