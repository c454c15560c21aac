import type { Sql } from '../../db/sql.js';
import type { Store } from '../../db/store.js';
import { notFound } from '../../lib/errors.js';
import { impactWarning, measureCalls } from './impact.js';
import type { ImpactQueryInput, ImpactView } from './impact.schemas.js';
import { hourOf } from './inputShapes.js';
import { readShapes } from './inputShapes.repo.js';

const HOUR_MS = 3_600_000;

/** What the impact needs of prompts and experiments (wired in services.ts). */
export interface ImpactSources {
  /** The prompt's labels and latest version; null when the project has no such prompt. */
  labelsOf(db: Sql, projectId: string, promptId: string): Promise<{ labels: Record<string, number>; latest: number | null } | null>;
  /** The names every render of the version needs; null when the prompt has no such version. */
  requiredVariablesOf(db: Sql, projectId: string, promptId: string, version: number): Promise<string[] | null>;
  runningExperimentOn(db: Sql, projectId: string, promptId: string): Promise<ImpactView['running_experiment']>;
}

/**
 * GET /prompts/{id}/versions/{v}/impact: which recent callers a version would break if `label`
 * served it. Advisory only: nothing refuses a label move or a start because of it.
 */
export function createImpactService(store: Store, sources: ImpactSources) {
  return {
    async impact(projectId: string, promptId: string, version: number, query: ImpactQueryInput = {}): Promise<ImpactView> {
      const label = query.label ?? 'production';
      const hours = query.window_hours ?? 24;
      const db = store.sql;
      const prompt = await sources.labelsOf(db, projectId, promptId);
      if (prompt === null) throw notFound(`Prompt '${promptId}' not found`);
      const required = await sources.requiredVariablesOf(db, projectId, promptId, version);
      if (required === null) throw notFound(`Version ${version} of prompt '${promptId}' not found`);
      // What the label serves now; an unset production is what /get_prompt serves instead: the latest.
      const servedVersion = prompt.labels[label] ?? (label === 'production' ? prompt.latest : null);
      const servedRequired = servedVersion === null ? [] : ((await sources.requiredVariablesOf(db, projectId, promptId, servedVersion)) ?? []);
      const newRequired = required.filter((name) => !servedRequired.includes(name));
      const now = store.clock.now().getTime();
      // Whole hours, as stored: the window starts at the start of the hour `hours` ago.
      const since = hourOf(now - hours * HOUR_MS);
      const measured = measureCalls(await readShapes(db, projectId, promptId, since), newRequired);
      return {
        prompt_id: promptId,
        version,
        label,
        served_version: servedVersion,
        required_variables: required,
        new_required_variables: newRequired,
        window: { since, until: new Date(now).toISOString(), hours },
        calls: measured.calls,
        calls_missing_any: measured.callsMissingAny,
        missing: measured.missing,
        calls_without_user_id: measured.callsWithoutUserId,
        calls_with_unrecorded_inputs: measured.callsWithUnrecordedInputs,
        running_experiment: await sources.runningExperimentOn(db, projectId, promptId),
        warning: impactWarning(measured, { version, servedVersion, newRequired, hours }),
      };
    },

    /**
     * The impact's sentence for content not stored yet (a push's plan, inside its transaction): what
     * the last 24 hours of calls say about the names it would newly require. Null when it requires nothing new.
     */
    async warningFor(
      db: Sql,
      projectId: string,
      promptId: string,
      facts: { version: number; servedVersion: number | null; newRequired: readonly string[] },
    ): Promise<string | null> {
      if (facts.newRequired.length === 0) return null;
      const hours = 24;
      const since = hourOf(store.clock.now().getTime() - hours * HOUR_MS);
      const measured = measureCalls(await readShapes(db, projectId, promptId, since), facts.newRequired);
      return impactWarning(measured, { ...facts, hours });
    },
  };
}

export type ImpactService = ReturnType<typeof createImpactService>;
