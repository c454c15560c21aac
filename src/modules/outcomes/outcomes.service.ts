import type { Store } from '../../db/store.js';
import type { Sql } from '../../db/sql.js';
import { timeBound, toPage } from '../../db/pagination.js';
import { isoNow } from '../../lib/clock.js';
import { invalid, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { jsonDepth, RUNTIME_MAX } from '../runtimeLimits.js';
import { insertOutcome, listOutcomes, type OutcomeRecord } from './outcomes.repo.js';
import type { ListOutcomesInput, OutcomeView, TrackOutcomeAnswer, TrackOutcomeInput } from './outcomes.schemas.js';
import { withIdempotency, type IdempotencyClaim } from '../idempotency/idempotency.js';

/** What recording an outcome needs from the other modules, each through its own service. */
export interface OutcomeDeps {
  store: Store;
  /** Throws the prompt's 404 when it does not exist (or is archived) in the project. */
  requirePrompt(projectId: string, promptId: string): Promise<void>;
  /** The run an outcome names: its prompt and experiment, and whether it was a playground run. */
  runAttribution(
    db: Sql,
    projectId: string,
    runId: string,
  ): Promise<
    | { prompt_id: string; experiment_id: string | null; variant: string | null; external_user_id: string | null; source: 'api' | 'playground' | 'evaluation' }
    | undefined
  >;
  /** The stored assignment an outcome without a run belongs to: the user's assignment in the running experiment, else the latest one. */
  assignmentAttribution(db: Sql, projectId: string, promptId: string, externalUserId: string): Promise<{ experimentId: string; variant: string } | null>;
}

function outcomeView(outcome: OutcomeRecord): OutcomeView {
  const { id, attributed_user: _unit, ...rest } = outcome;
  return { outcome_id: id, ...rest };
}

export function createOutcomeService(deps: OutcomeDeps) {
  const { store } = deps;

  /** Inside the write transaction, so attribution sees exactly the state the outcome is stored against. */
  async function attribute(
    db: Sql,
    projectId: string,
    input: TrackOutcomeInput,
  ): Promise<Pick<OutcomeRecord, 'experiment_id' | 'variant' | 'attributed_by' | 'attributed_user'>> {
    if (input.prompt_run_id != null) {
      const run = await deps.runAttribution(db, projectId, input.prompt_run_id);
      if (run === undefined) throw notFound(`Run '${input.prompt_run_id}' not found`);
      if (run.prompt_id !== input.prompt_id) {
        throw invalid('body', ['prompt_run_id'], `run ${input.prompt_run_id} belongs to prompt '${run.prompt_id}', not '${input.prompt_id}'`);
      }
      if (run.experiment_id !== null) {
        return { experiment_id: run.experiment_id, variant: run.variant, attributed_by: 'run', attributed_user: run.external_user_id };
      }
      // A playground or evaluation run is a trial, never an experiment's: an outcome of it must not reach one through its user.
      if (run.source !== 'api') return { experiment_id: null, variant: null, attributed_by: 'none', attributed_user: null };
    }
    if (input.external_user_id != null) {
      const found = await deps.assignmentAttribution(db, projectId, input.prompt_id, input.external_user_id);
      if (found !== null) {
        return { experiment_id: found.experimentId, variant: found.variant, attributed_by: 'assignment', attributed_user: input.external_user_id };
      }
    }
    return { experiment_id: null, variant: null, attributed_by: 'none', attributed_user: null };
  }

  function checkMetadata(metadata: Record<string, unknown> | null | undefined): void {
    if (metadata == null) return;
    if (Buffer.byteLength(JSON.stringify(metadata), 'utf8') > RUNTIME_MAX.metadataBytes) {
      throw invalid('body', ['metadata'], `metadata must serialise to at most ${RUNTIME_MAX.metadataBytes} bytes of JSON`);
    }
    if (jsonDepth(metadata, RUNTIME_MAX.metadataDepth) > RUNTIME_MAX.metadataDepth) {
      throw invalid('body', ['metadata'], `metadata may nest at most ${RUNTIME_MAX.metadataDepth} levels deep`);
    }
  }

  return {
    async track(projectId: string, input: TrackOutcomeInput, claim: IdempotencyClaim | null = null): Promise<TrackOutcomeAnswer> {
      return await withIdempotency<TrackOutcomeAnswer>(store.sql, projectId, claim, async (remember) => {
        await deps.requirePrompt(projectId, input.prompt_id);
        checkMetadata(input.metadata);
        // A concurrent twin with the same key that committed first makes this write fail: its answer is the answer.
        return await store.writer.write(async (db) => {
          const stored: OutcomeRecord = {
            id: newId('out'),
            prompt_id: input.prompt_id,
            prompt_run_id: input.prompt_run_id ?? null,
            external_user_id: input.external_user_id ?? null,
            event_type: input.event_type ?? 'outcome',
            label: input.label ?? null,
            value: input.value ?? null,
            numeric_value: input.numeric_value ?? null,
            is_success: input.is_success ?? null,
            source: input.source ?? null,
            metadata: input.metadata ?? null,
            ...(await attribute(db, projectId, input)),
            created_at: isoNow(store.clock),
          };
          await insertOutcome(db, projectId, stored);
          const answer: TrackOutcomeAnswer = {
            outcome_id: stored.id,
            status: 'recorded',
            experiment_id: stored.experiment_id,
            variant_assigned: stored.variant,
          };
          await remember(db, answer, stored.created_at);
          return answer;
        });
      });
    },

    async list(projectId: string, query: ListOutcomesInput) {
      const q = { ...query, since: timeBound('since', query.since), until: timeBound('until', query.until), cursor: query.cursor, limit: query.limit ?? 50 };
      return toPage(await listOutcomes(store.sql, projectId, q), outcomeView);
    },
  };
}

export type OutcomeService = ReturnType<typeof createOutcomeService>;
