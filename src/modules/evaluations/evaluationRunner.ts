import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Store } from '../../db/store.js';
import { isoNow } from '../../lib/clock.js';
import { ModelCallError } from '../../providers/errors.js';
import { compileScorer, type RuleDefinition, type Scorer } from '../evaluators/scorers/index.js';
import type { EvaluationCall, RunRecord } from '../runs/runs.service.js';
import type { Sql } from '../../db/sql.js';
import * as repo from './evaluations.repo.js';
import { endEvaluation } from './evaluationWrites.js';
import type { EvaluationPorts } from './evaluations.service.js';
import { judge } from './judge.js';

/** Evaluations one process works on at once (each with its own pool of `concurrency` calls). */
const MAX_ACTIVE = 2;
/** How long a runner's hold on an evaluation lasts unless renewed (every third of it). */
const DEFAULT_LEASE_MS = 15_000;
const BUSY_WAIT_MS = 200;

interface Log {
  warn(obj: object, msg: string): void;
}

export interface RunnerDeps {
  /** One model call, stored as an evaluation run (runs.runForEvaluation). */
  call(projectId: string, promptId: string, version: number, inputs: Record<string, unknown>): Promise<EvaluationCall>;
  /** Stores a successful run of the evaluation, in the transaction of its item's result. */
  storeRun(db: Sql, projectId: string, run: RunRecord): Promise<void>;
  items: EvaluationPorts['datasets']['items'];
  log: Log;
  leaseMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Lets the event loop serve what is waiting (runtime requests first) before the next item. */
const yieldToRequests = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Runs queued evaluations in the background (docs/evaluations.md, "Evaluation runs"). The queue is
 * the database: a runner takes an evaluation's lease, renews it while it works, and each item ×
 * version is marked `calling` (committed) before its model call, so a call is never made twice,
 * whatever happens: a runner that dies leaves those rows `calling`; whoever takes the evaluation over
 * once the lease has ended records them as `interrupted` and goes on with the rest.
 */
export function createEvaluationRunner(store: Store, deps: RunnerDeps) {
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS;
  const active = new Map<string, Promise<void>>();
  let closed = false;
  const leaseEnd = () => new Date(store.clock.now().getTime() + leaseMs).toISOString();

  async function callOnce(projectId: string, promptId: string, version: number, inputs: Record<string, unknown>): Promise<EvaluationCall> {
    for (;;) {
      try {
        return await deps.call(projectId, promptId, version, inputs);
      } catch (error) {
        // Busy: the gateway refused before any provider was reached; waiting and asking again pays nothing twice.
        if (error instanceof ModelCallError && error.kind === 'busy' && !closed) {
          await sleep(BUSY_WAIT_MS);
          continue;
        }
        // A render failure (an item without a variable the version needs): no call was made.
        return { run_id: '', output: null, error: error instanceof Error ? error.message : String(error), cost_nano_usd: 0, unstored: null };
      }
    }
  }

  async function work(row: repo.EvaluationRow, scorers: Map<string, Scorer>, w: { seq: number; item_id: string; side: repo.Side }): Promise<number> {
    const [item] = await deps.items(store.sql, row.project_id, row.dataset_id, row.dataset_version, w.seq - 1, 1);
    const version = w.side === 'candidate' ? row.candidate_version : row.baseline_version;
    const inputs = item?.inputs ?? {};
    const answer = await callOnce(row.project_id, row.prompt_id, version, inputs);
    const scores: Record<string, repo.StoredScore> = {};
    const judgeRunIds: string[] = [];
    const runs = answer.unstored === null ? [] : [answer.unstored];
    let cost = answer.cost_nano_usd;
    for (const e of row.evaluators) {
      if (answer.output === null) {
        scores[e.evaluator_id] = { error: `no output to score: ${answer.error ?? 'the call failed'}` };
      } else if (e.kind === 'llm_judge') {
        const judged = await judge(
          (promptId, v, vars) => callOnce(row.project_id, promptId, v, vars),
          e,
          { inputs, expected: item?.expected ?? null },
          answer.output,
        );
        scores[e.evaluator_id] = judged.score;
        judgeRunIds.push(...judged.runIds.filter((id) => id !== ''));
        runs.push(...judged.unstored);
        cost += judged.costNanoUsd;
      } else {
        const s = scorers.get(e.evaluator_id)!({ output: answer.output, expected: item?.expected ?? undefined });
        scores[e.evaluator_id] = 'error' in s ? { error: s.error } : { score: s.score, passed: s.passed, reasoning: s.reason ?? null };
        // A rule on a long output takes milliseconds (a pattern is linear, but in the output's
        // length): one rule per turn, so many rules on one item never add up to a stall.
        await yieldToRequests();
      }
    }
    // The runs and the item's result in one transaction: one commit per item.
    await store.writer.write(async (db) => {
      for (const r of runs) await deps.storeRun(db, row.project_id, r);
      await repo.finishWork(db, row.project_id, row.id, owner, {
        seq: w.seq,
        side: w.side,
        run_id: answer.run_id === '' ? null : answer.run_id,
        output: answer.output,
        error: answer.error,
        scores,
        judge_run_ids: judgeRunIds,
        cost_nano_usd: cost,
        at: isoNow(store.clock),
      });
    });
    return cost;
  }

  async function runEvaluation(projectId: string, id: string): Promise<void> {
    const row = await repo.findEvaluation(store.sql, projectId, id);
    if (row === undefined) return;
    const scorers = new Map<string, Scorer>();
    for (const e of row.evaluators) {
      if (e.kind === 'llm_judge') continue;
      scorers.set(e.evaluator_id, compileScorer({ kind: e.kind, settings: e.settings } as RuleDefinition));
      // Compiling a JSON Schema or a pattern takes milliseconds: one per turn, for the same reason.
      await yieldToRequests();
    }
    await store.writer.write((db) => repo.interruptOthers(db, projectId, id, owner, isoNow(store.clock)));
    let cost = row.cost_nano_usd;
    let stopped = false;
    const renew = setInterval(() => {
      store.writer
        .write((db) => repo.renewLease(db, projectId, id, owner, leaseEnd()))
        .then((held) => {
          if (!held) stopped = true; // cancelled, ended, or taken over after a stall
        })
        .catch((error: unknown) => deps.log.warn({ err: error, evaluation_id: id }, 'renewing an evaluation lease failed'));
    }, leaseMs / 3);
    try {
      await Promise.all(
        Array.from({ length: row.concurrency }, async () => {
          while (!stopped && !closed) {
            if (row.budget_nano_usd !== null && cost >= row.budget_nano_usd) {
              await endEvaluation(store, projectId, id, 'budget_exhausted');
              stopped = true;
              break;
            }
            const [next] = await store.writer.write((db) => repo.claimWork(db, projectId, id, owner, 1));
            if (next === undefined) break;
            cost += await work(row, scorers, next);
            await yieldToRequests();
          }
        }),
      );
      if (stopped || closed) return;
      if (!(await repo.hasUnfinished(store.sql, projectId, id))) await endEvaluation(store, projectId, id, 'completed');
    } catch (error) {
      deps.log.warn({ err: error, evaluation_id: id }, 'an evaluation failed');
      await endEvaluation(store, projectId, id, 'failed', error instanceof Error ? error.message : String(error));
    } finally {
      clearInterval(renew);
      // Stopping cleanly (a restart, a deploy): the next runner need not wait for the lease to end.
      if (closed) await store.writer.write((db) => repo.releaseLease(db, projectId, id, owner)).catch(() => undefined);
    }
  }

  let polling: Promise<void> | null = null;
  /** Takes what it can of the queue (up to MAX_ACTIVE evaluations) and starts them; returns once they are started. */
  function poll(): Promise<void> {
    polling ??= (async () => {
      try {
        while (!closed && active.size < MAX_ACTIVE) {
          const claimed = await store.writer.write((db) => repo.claimEvaluation(db, owner, isoNow(store.clock), leaseEnd()));
          if (claimed === undefined) break;
          const key = `${claimed.project_id}\u0000${claimed.id}`;
          // Still running here (its lease ran out during a stall and this process took it again): that run goes on, its lease renewed.
          if (active.has(key)) continue;
          active.set(
            key,
            runEvaluation(claimed.project_id, claimed.id)
              .catch((error: unknown) => deps.log.warn({ err: error, evaluation_id: claimed.id }, 'an evaluation stopped'))
              .finally(() => {
                active.delete(key);
                if (!closed) void poll();
              }),
          );
        }
      } finally {
        polling = null;
      }
    })();
    return polling;
  }

  return {
    owner,
    poll,
    /** Waits until this process has nothing running (tests and the CLI's local runs). */
    async idle(): Promise<void> {
      while (active.size > 0 || polling !== null) await Promise.all([...active.values(), polling]);
    },
    /** Stops claiming; calls in flight finish and are recorded, then the leases are released. */
    async close(): Promise<void> {
      closed = true;
      await polling?.catch(() => undefined);
      await Promise.all(active.values());
    },
  };
}

export type EvaluationRunner = ReturnType<typeof createEvaluationRunner>;
