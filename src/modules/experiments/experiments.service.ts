import type { Store } from '../../db/store.js';
import type { Db } from '../../db/open.js';
import { isoNow } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { conflict, notFound, ValidationFailed } from '../../http/httpError.js';
import type { ErrorItem } from '../../http/pydanticValidator.js';
import { findPrompt, findVersion } from '../prompts/prompts.repo.js';
import { promptNotFound } from '../prompts/serving.js';
import * as repo from './experiments.repo.js';
import { normaliseWeights, toView, TRANSITIONS, type ExperimentView, type VariantDef } from './experimentModel.js';
import type { CreateExperimentInput, ExperimentStatus, PatchExperimentInput } from './experiments.schemas.js';
import { page } from '../runs/listParams.js';

const item = (loc: (string | number)[], input: unknown, why: string): ErrorItem =>
  ({ type: 'value_error', loc, msg: `Value error, ${why}`, input, ctx: { error: why } });

/** Called after every committed change so the serving cache drops what it knew of the prompt. */
export type ExperimentChanged = (projectId: string, promptId: string) => void;

export function createExperimentService(store: Store, onChange: ExperimentChanged) {
  function require(db: Db, projectId: string, id: string): repo.ExperimentRow {
    const row = repo.findExperiment(db, projectId, id);
    if (row === undefined) throw notFound(`Experiment '${id}' not found`);
    return row;
  }

  /** Variants must name versions of the experiment's prompt, with unique keys; control must be one of them. */
  function checkVariants(db: Db, projectId: string, promptId: string, variants: ReadonlyArray<{ key: string; version: number }>, control: string | undefined): ErrorItem[] {
    const errors: ErrorItem[] = [];
    const seen = new Set<string>();
    variants.forEach((v, i) => {
      if (seen.has(v.key)) errors.push(item(['body', 'variants', i, 'key'], v.key, `variant key '${v.key}' is used twice`));
      seen.add(v.key);
      if (findVersion(db, projectId, promptId, v.version) === undefined) {
        errors.push(item(['body', 'variants', i, 'version'], v.version, `prompt '${promptId}' has no version ${v.version}`));
      }
    });
    if (control !== undefined && !seen.has(control)) errors.push(item(['body', 'control'], control, `control '${control}' is not one of the variant keys`));
    return errors;
  }

  async function commit<T extends { prompt_id: string }>(projectId: string, work: (db: Db) => T): Promise<T> {
    const result = await store.writer.write(work);
    onChange(projectId, result.prompt_id);
    return result;
  }

  return {
    async create(projectId: string, input: CreateExperimentInput): Promise<ExperimentView> {
      return commit(projectId, (db) => {
        const prompt = findPrompt(db, projectId, input.prompt_id);
        if (prompt === undefined || prompt.archived_at !== null) throw promptNotFound(input.prompt_id);
        const errors = checkVariants(db, projectId, input.prompt_id, input.variants, input.control);
        if (errors.length > 0) throw new ValidationFailed(errors);
        const id = input.experiment_id ?? newId('exp');
        if (repo.findExperiment(db, projectId, id)) throw conflict(`Experiment '${id}' already exists`);
        const now = isoNow(store.clock);
        const row: repo.ExperimentRow = {
          id,
          prompt_id: input.prompt_id,
          name: input.name ?? null,
          hypothesis: input.hypothesis ?? null,
          status: 'draft',
          variants: JSON.stringify(normaliseWeights(input.variants)),
          control: input.control ?? input.variants[0]!.key,
          coverage: input.coverage ?? 1,
          seed: input.seed ?? id,
          primary_metric: input.primary_metric ? JSON.stringify(input.primary_metric) : null,
          winner: null,
          created_at: now,
          updated_at: now,
          started_at: null,
          stopped_at: null,
        };
        repo.insertExperiment(db, projectId, row);
        return toView(row);
      });
    },

    get(projectId: string, id: string): ExperimentView {
      return toView(require(store.db, projectId, id));
    },

    list(projectId: string, query: { prompt_id?: string; status?: ExperimentStatus; limit?: number; cursor?: string }) {
      return page(query.cursor, () => repo.listExperiments(store.db, projectId, { ...query, cursor: query.cursor, limit: query.limit ?? 50 }), toView);
    },

    async patch(projectId: string, id: string, input: PatchExperimentInput): Promise<ExperimentView> {
      return commit(projectId, (db) => {
        const row = require(db, projectId, id);
        if (row.status !== 'draft' && row.status !== 'paused') throw conflict(`Experiment '${id}' is ${row.status}: only draft or paused experiments can change`);
        const current = JSON.parse(row.variants) as VariantDef[];
        const variants = input.variants ?? current;
        const control = input.control ?? (variants.some((v) => v.key === row.control) ? row.control : variants[0]!.key);
        const errors = checkVariants(db, projectId, row.prompt_id, variants, control);
        if (input.variants) {
          // Sticky assignments must keep their variant: a key with assigned users cannot disappear.
          const kept = new Set(input.variants.map((v) => v.key));
          for (const [key, users] of repo.assignedCountsByVariant(db, projectId, id)) {
            if (!kept.has(key)) errors.push(item(['body', 'variants'], input.variants, `variant '${key}' has ${users} assigned users and cannot be removed`));
          }
        }
        if (errors.length > 0) throw new ValidationFailed(errors);
        const updated: repo.ExperimentRow = {
          ...row,
          name: input.name !== undefined ? input.name : row.name,
          hypothesis: input.hypothesis !== undefined ? input.hypothesis : row.hypothesis,
          variants: input.variants ? JSON.stringify(normaliseWeights(input.variants)) : row.variants,
          control,
          coverage: input.coverage ?? row.coverage,
          seed: input.seed ?? row.seed,
          primary_metric: input.primary_metric !== undefined ? (input.primary_metric ? JSON.stringify(input.primary_metric) : null) : row.primary_metric,
          updated_at: isoNow(store.clock),
        };
        repo.updateExperiment(db, projectId, updated);
        return toView(updated);
      });
    },

    async transition(projectId: string, id: string, action: 'start' | 'pause' | 'stop', winner?: string | null): Promise<ExperimentView> {
      return commit(projectId, (db) => {
        const row = require(db, projectId, id);
        const rule = TRANSITIONS[action];
        if (!rule.from.includes(row.status)) throw conflict(`Experiment '${id}' is ${row.status}: cannot ${action}`);
        if (row.status === rule.to) return toView(row);
        if (action === 'start') {
          const running = repo.findRunningExperiment(db, projectId, row.prompt_id);
          if (running) throw conflict(`Experiment '${running.id}' is already running on prompt '${row.prompt_id}'`);
        }
        if (winner != null && !(JSON.parse(row.variants) as VariantDef[]).some((v) => v.key === winner)) {
          throw new ValidationFailed([item(['body', 'winner'], winner, `winner '${winner}' is not one of the variant keys`)]);
        }
        const now = isoNow(store.clock);
        const updated: repo.ExperimentRow = {
          ...row,
          status: rule.to,
          updated_at: now,
          started_at: action === 'start' ? (row.started_at ?? now) : row.started_at,
          stopped_at: action === 'stop' ? now : row.stopped_at,
          winner: action === 'stop' ? (winner ?? null) : row.winner,
        };
        repo.updateExperiment(db, projectId, updated);
        return toView(updated);
      });
    },
  };
}

export type ExperimentService = ReturnType<typeof createExperimentService>;
