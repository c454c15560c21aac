import type { Sql } from '../../db/sql.js';
import type { Store } from '../../db/store.js';
import { toPage } from '../../db/pagination.js';
import { isoNow } from '../../lib/clock.js';
import { invalid, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { nanoToUsd } from '../../providers/prices.js';
import { compareEvaluator, etaSeconds } from './comparison.js';
import * as repo from './evaluations.repo.js';
import { createEvaluationWrites, endEvaluation, type ItemKeys } from './evaluationWrites.js';
import { judgeVersion } from './judge.js';
import { VERSION_LABEL, type CreateEvaluationInput, type EvaluationItemView, type EvaluationSummaryView, type EvaluationView } from './evaluations.schemas.js';

/** What an evaluation needs of prompts, datasets and evaluators: their modules' facts, handed over by services.ts. */
export interface EvaluationPorts {
  prompts: {
    promptIsLive(db: Sql, projectId: string, promptId: string): Promise<boolean>;
    versionExists(db: Sql, projectId: string, promptId: string, version: number): Promise<boolean>;
    labelVersion(db: Sql, projectId: string, promptId: string, label: string): Promise<number | null>;
    latestVersion(db: Sql, projectId: string, promptId: string): Promise<number>;
  };
  datasets: {
    versionOf(db: Sql, projectId: string, datasetId: string, version: number | undefined): Promise<{ version: number; item_count: number } | null>;
    items(
      db: Sql,
      projectId: string,
      datasetId: string,
      version: number,
      afterSeq: number,
      limit: number,
    ): Promise<Array<{ seq: number; item_id: string; inputs: Record<string, unknown>; expected: unknown }>>;
    /** The same items' places and ids only: what work rows are made of. */
    itemKeys: ItemKeys;
  };
  evaluators: {
    /** The evaluator's latest version, or null when it does not exist (or is archived). */
    latest(db: Sql, projectId: string, evaluatorId: string): Promise<repo.FrozenEvaluator | null>;
  };
}

/** The most items one evaluation scores (× 2 versions of work rows). */
const MAX_EVALUATION_ITEMS = 100_000;
const DEFAULT_CONCURRENCY = 4;

const usdToNano = (usd: number) => Math.round(usd * 1e9);

function sides(row: repo.EvaluationRow) {
  return {
    candidate: { ref: row.candidate_ref, version: row.candidate_version },
    baseline: { ref: row.baseline_ref, version: row.baseline_version },
  };
}

function summaryView(row: repo.EvaluationRow): EvaluationSummaryView {
  return {
    evaluation_id: row.id,
    prompt_id: row.prompt_id,
    status: row.status,
    versions: sides(row),
    dataset_id: row.dataset_id,
    dataset_version: row.dataset_version,
    evaluator_ids: row.evaluators.map((e) => e.evaluator_id),
    progress: { done: row.done, total: row.total, cost_usd: nanoToUsd(row.cost_nano_usd) },
    created_at: row.created_at,
    finished_at: row.finished_at,
  };
}

/** `holdMs`: PROMPTLINE_SLICED_WRITE_HOLD_MS, how long a creation written in slices may pause before it counts as abandoned. */
export function createEvaluationService(store: Store, ports: EvaluationPorts, onCreated: () => void = () => {}, holdMs = 15_000) {
  const writes = createEvaluationWrites(store, ports.datasets.itemKeys, holdMs);
  const require = async (db: Sql, projectId: string, id: string) => {
    const row = await repo.findEvaluation(db, projectId, id);
    if (row === undefined) throw notFound(`Evaluation '${id}' not found`);
    return row;
  };

  async function resolveVersion(db: Sql, projectId: string, promptId: string, ref: unknown, index: number): Promise<number> {
    if (typeof ref === 'number') {
      if (!Number.isSafeInteger(ref) || ref < 1) throw invalid('body', ['versions', index], 'a version number is a whole number from 1');
      if (!(await ports.prompts.versionExists(db, projectId, promptId, ref)))
        throw invalid('body', ['versions', index], `prompt '${promptId}' has no version ${ref}`);
      return ref;
    }
    if (typeof ref !== 'string' || !VERSION_LABEL.test(ref)) throw invalid('body', ['versions', index], 'a version number, or a label (1-64 of a-z 0-9 _ -)');
    const version = await ports.prompts.labelVersion(db, projectId, promptId, ref);
    if (version === null) throw invalid('body', ['versions', index], `prompt '${promptId}' has no label '${ref}'`);
    return version;
  }

  /**
   * Each evaluation's comparisons as of its `done` count and status: nothing they are computed from
   * changes in between, so a client polling an evaluation reads its work rows once per finished
   * item, not once per poll. Per process, bounded (oldest first out); keyed by project and id.
   */
  const computed = new Map<string, { done: number; status: string; scored: number; evaluators: EvaluationView['evaluators'] }>();
  const COMPUTED_MAX = 200;

  async function comparisonsOf(row: repo.EvaluationRow): Promise<{ scored: number; evaluators: EvaluationView['evaluators'] }> {
    const key = `${row.project_id}\u0000${row.id}`;
    const hit = computed.get(key);
    if (hit !== undefined && hit.done === row.done && hit.status === row.status) return hit;
    const work = await repo.doneScores(store.sql, row.project_id, row.id);
    const evaluators = row.evaluators.map((e) => ({
      evaluator_id: e.evaluator_id,
      version: e.version,
      kind: e.kind,
      scale: e.scale,
      comparison: compareEvaluator(e, work),
    }));
    computed.delete(key);
    computed.set(key, { done: row.done, status: row.status, scored: work.length, evaluators });
    if (computed.size > COMPUTED_MAX) computed.delete(computed.keys().next().value!);
    return { scored: work.length, evaluators };
  }

  async function view(row: repo.EvaluationRow): Promise<EvaluationView> {
    const { scored, evaluators } = await comparisonsOf(row);
    const now = store.clock.now().getTime();
    return {
      ...summaryView(row),
      concurrency: row.concurrency,
      budget_usd: row.budget_nano_usd === null ? null : nanoToUsd(row.budget_nano_usd),
      progress: {
        done: row.done,
        total: row.total,
        cost_usd: nanoToUsd(row.cost_nano_usd),
        eta_seconds: etaSeconds(row.status, row.started_at, now, scored, row.total - row.done),
      },
      evaluators,
      error: row.error,
      started_at: row.started_at,
    };
  }

  return {
    /** Deletes creations cut short, finishes endings cut short (evaluationWrites.ts); the server runs it at start and every few minutes. */
    housekeeping: writes.housekeeping,

    /** Resolves what it compares (versions, dataset version, evaluators' versions) once, and queues the work. */
    async create(projectId: string, input: CreateEvaluationInput): Promise<{ evaluation_id: string; status: 'queued'; total: number }> {
      const { row, sliced } = await store.writer.write(async (db) => {
        if (!(await ports.prompts.promptIsLive(db, projectId, input.prompt_id)))
          throw invalid('body', ['prompt_id'], `no prompt '${input.prompt_id}' in this project`);
        const candidate = await resolveVersion(db, projectId, input.prompt_id, input.versions[0], 0);
        const baseline = await resolveVersion(db, projectId, input.prompt_id, input.versions[1], 1);
        const dataset = await ports.datasets.versionOf(db, projectId, input.dataset_id, input.dataset_version);
        if (dataset === null) {
          throw input.dataset_version === undefined
            ? invalid('body', ['dataset_id'], `no dataset '${input.dataset_id}' with items in this project`)
            : invalid('body', ['dataset_version'], `dataset '${input.dataset_id}' has no version ${input.dataset_version}`);
        }
        if (dataset.item_count === 0) throw invalid('body', ['dataset_id'], `version ${dataset.version} of dataset '${input.dataset_id}' has no items`);
        if (dataset.item_count > MAX_EVALUATION_ITEMS) {
          throw invalid('body', ['dataset_id'], `an evaluation scores at most ${MAX_EVALUATION_ITEMS} items; this version has ${dataset.item_count}`);
        }
        const evaluators: repo.FrozenEvaluator[] = [];
        for (const [i, id] of input.evaluators.entries()) {
          const found = await ports.evaluators.latest(db, projectId, id);
          if (found === null) throw invalid('body', ['evaluators', i], `no evaluator '${id}' in this project`);
          evaluators.push(
            found.kind === 'llm_judge'
              ? { ...found, settings: { ...found.settings, judge_version: await judgeVersion(ports.prompts, db, projectId, found.settings) } }
              : found,
          );
        }
        const at = isoNow(store.clock);
        const row: repo.EvaluationRow = {
          project_id: projectId,
          id: newId('evl'),
          prompt_id: input.prompt_id,
          candidate_ref: String(input.versions[0]),
          baseline_ref: String(input.versions[1]),
          candidate_version: candidate,
          baseline_version: baseline,
          dataset_id: input.dataset_id,
          dataset_version: dataset.version,
          evaluators,
          concurrency: input.concurrency ?? DEFAULT_CONCURRENCY,
          budget_nano_usd: input.budget_usd == null ? null : usdToNano(input.budget_usd),
          status: 'queued',
          total: dataset.item_count * 2,
          done: 0,
          cost_nano_usd: 0,
          error: null,
          created_at: at,
          started_at: null,
          finished_at: null,
        };
        return { row, sliced: await writes.insert(db, row) };
      });
      // 200 000 work rows: written a slice at a time, the evaluation invisible until the last.
      if (sliced) await writes.writeStaged(row);
      onCreated();
      return { evaluation_id: row.id, status: 'queued', total: row.total };
    },

    async get(projectId: string, id: string): Promise<EvaluationView> {
      return view(await require(store.sql, projectId, id));
    },

    async list(projectId: string, query: { prompt_id?: string | undefined; cursor?: string | undefined; limit?: number | undefined }) {
      const page = await repo.listEvaluations(store.sql, projectId, { promptId: query.prompt_id, cursor: query.cursor, limit: query.limit ?? 50 });
      return toPage(page, summaryView);
    },

    /** Stops claiming work; calls in flight finish and are recorded. Cancelling an ended evaluation changes nothing. */
    async cancel(projectId: string, id: string): Promise<EvaluationView> {
      await endEvaluation(store, projectId, id, 'cancelled', null, (db) => require(db, projectId, id));
      return view(await require(store.sql, projectId, id));
    },

    /** Side by side: each item's inputs, both versions' outputs, scores, judge reasoning and run ids, in the dataset's order. */
    async items(projectId: string, id: string, query: { limit?: number | undefined; cursor?: string | undefined }) {
      const row = await require(store.sql, projectId, id);
      const limit = query.limit ?? 100;
      const after = query.cursor === undefined ? 0 : Number(query.cursor);
      if (!Number.isSafeInteger(after) || after < 0) throw invalid('query', ['cursor'], 'not a cursor of this list');
      const work = await repo.workPage(store.sql, projectId, id, after, limit);
      const seqs = [...new Set(work.map((w) => w.seq))];
      const first = seqs[0];
      const items = first === undefined ? [] : await ports.datasets.items(store.sql, projectId, row.dataset_id, row.dataset_version, first - 1, seqs.length);
      const bySeq = new Map(items.map((i) => [i.seq, i]));
      const ended = row.status !== 'queued' && row.status !== 'running';
      const data: EvaluationItemView[] = seqs.map((seq) => {
        const pair = work.filter((w) => w.seq === seq);
        const side = (s: repo.Side) => sideView(pair.find((w) => w.side === s)!, ended);
        const candidate = side('candidate');
        const baseline = side('baseline');
        const item = bySeq.get(seq);
        return {
          item_id: pair[0]!.item_id,
          inputs: item?.inputs ?? {},
          expected: item?.expected ?? null,
          differs: row.evaluators.some((e) => candidate.scores[e.evaluator_id]?.score !== baseline.scores[e.evaluator_id]?.score),
          candidate,
          baseline,
        };
      });
      return { data, next_cursor: seqs.length === limit ? String(seqs.at(-1)) : null };
    },
  };
}

/** `ended`: the evaluation's pending rows are skipped, even those its ending has not yet marked so (evaluationWrites.ts). */
function sideView(w: repo.WorkRow, ended: boolean): EvaluationItemView['candidate'] {
  const scores: EvaluationItemView['candidate']['scores'] = {};
  for (const [id, s] of Object.entries(w.scores)) {
    scores[id] =
      'error' in s
        ? { score: null, passed: null, error: s.error, judge_error: s.judge_error === true, reasoning: null }
        : { score: s.score, passed: s.passed, error: null, judge_error: false, reasoning: s.reasoning ?? null };
  }
  return {
    state: ended && w.state === 'pending' ? 'skipped' : w.state,
    output: w.output,
    error: w.error,
    run_id: w.run_id,
    judge_run_ids: w.judge_run_ids,
    cost_usd: nanoToUsd(w.cost_nano_usd),
    scores,
  };
}

export type EvaluationService = ReturnType<typeof createEvaluationService>;
