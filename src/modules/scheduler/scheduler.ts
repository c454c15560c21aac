import { leaseOwner, type ProcessLiveness, processOf } from '../../db/liveness.js';
import type { Sql } from '../../db/sql.js';
import type { Store } from '../../db/store.js';
import { conflict, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { busyLease, LIVE_HOLDER_RETRY_SECONDS } from './busyLease.js';
import * as repo from './schedule.repo.js';

/** How often a running rollout or bandit is checked. */
const CHECK_INTERVAL_MS = 60 * 60 * 1000;
/**
 * A claimed check's lease: longer than any check takes (a results report is bounded well below it).
 * Its end is only the backstop: a lease whose process is known to have died is free at once.
 */
const LEASE_MS = 5 * 60 * 1000;
/** The timeline a check list shows at most (an hourly check for six weeks). */
const TIMELINE_LIMIT = 1000;

/** What one check did, as its type's check function answers it. */
interface CheckOutcome {
  /** hold, advance, rollback, ship, await_approval (rollouts), reweight (bandits), none. */
  action: string;
  /** The check in one sentence a product owner can read. */
  reason: string;
  step: number | null;
  percent: number | null;
  /** What the check measured (guardrail figures, weights): kept in the timeline as is. */
  figures: unknown;
}

/**
 * Inside the check's own write: records the check and hands the experiment back to the schedule,
 * in the transaction of what the check changed. Throws when another process took the check over
 * (its lease ran out), so the write rolls back and nothing of the check is kept twice.
 */
type Settle = (db: Sql, outcome: CheckOutcome) => Promise<void>;

/** One type's check of one experiment: reads what it needs, then writes its effects and calls settle in that write. */
type Checker = (projectId: string, experimentId: string, settle: Settle) => Promise<CheckOutcome>;

/** The check function of each experiment type; null: the type is never checked (ab: a person decides). */
export type CheckersByType = Readonly<Record<string, Checker | null>>;

/** What the scheduler reads of experiments, through ports services.ts hands it. */
export interface SchedulerPorts {
  /** The running experiments of every project whose type is checked. */
  checkedExperiments(db: Sql): Promise<Array<{ project_id: string; id: string; type: string }>>;
  experiment(db: Sql, projectId: string, id: string): Promise<{ type: string; status: string } | undefined>;
}

interface Log {
  warn(obj: object, msg: string): void;
}

type Lease = Pick<repo.ScheduleRow, 'lease_owner' | 'lease_until'>;

class LeaseLost extends Error {}

/** The time after a scheduled one: an interval later, or, for a check a whole interval late (the service was down), an interval from now. */
function nextDue(scheduledAt: string, nowMs: number): string {
  const next = Date.parse(scheduledAt) + CHECK_INTERVAL_MS;
  return new Date(next > nowMs ? next : nowMs + CHECK_INTERVAL_MS).toISOString();
}

/** What `POST /experiments/{id}/check` answers: the check, and the experiment's status after it. */
export interface CheckAnswer extends Omit<repo.CheckRecord, 'id'> {
  /** null: nothing was recorded (an A/B test has no checks). */
  id: string | null;
  type: string;
  status: string;
}

/**
 * Checks running rollouts and bandits in the background, each once per scheduled time across all
 * replicas: a pass claims what is due with a lease in the database (schedule.repo.ts), runs the
 * type's check, and the check's write settles the lease, moves the due time on and records the
 * check, all in one transaction. The schedule is the table, so a restart loses nothing. A lease
 * names the process that took it (`liveness`): one whose process died mid-check (a kill -9) is
 * taken over at once, by any replica or by the same one restarted; one whose process cannot be
 * told ends with its lease. Never runs inside a request but the operator's `POST /experiments/{id}/check`.
 */
export function createScheduler(store: Store, checkers: CheckersByType, ports: SchedulerPorts, log: Log, liveness: ProcessLiveness) {
  const now = () => store.clock.now();
  const iso = (ms: number) => new Date(ms).toISOString();

  /** A new lease's owner, naming this process; without an identity (its lock could not be taken), one only its end frees. */
  async function newOwner(): Promise<string> {
    try {
      return leaseOwner(await liveness.identity());
    } catch (error) {
      log.warn({ err: error }, 'taking this process identity failed: the lease it takes now can only end by running out');
      return newId('lse');
    }
  }

  /** The owner of a lease still running whose process is known to have died (to take it over); null otherwise. */
  async function deadOwner(lease: Lease | undefined, at: string): Promise<string | null> {
    if (!lease?.lease_owner || lease.lease_until === null || lease.lease_until <= at) return null;
    const processId = processOf(lease.lease_owner);
    return processId !== null && (await liveness.isDead(processId)) ? lease.lease_owner : null;
  }

  /** Runs one claimed check; a check that fails gives its lease back and is tried again on a later pass. */
  async function run(projectId: string, experimentId: string, type: string, owner: string, scheduledAt: string | null): Promise<CheckAnswer> {
    const checker = checkers[type];
    if (!checker) throw new Error(`no check for experiment type ${type}`);
    let recorded: repo.CheckRecord | null = null;
    const settle: Settle = async (db, outcome) => {
      const at = now();
      // A late check skips the times it missed rather than running them all at once.
      const next = scheduledAt === null ? null : nextDue(scheduledAt, at.getTime());
      if (!(await repo.settle(db, projectId, experimentId, owner, next))) throw new LeaseLost(`the check of experiment '${experimentId}' was taken over`);
      recorded = {
        id: newId('chk'),
        experiment_id: experimentId,
        checked_at: at.toISOString(),
        scheduled_at: scheduledAt,
        trigger: scheduledAt === null ? 'manual' : 'scheduled',
        ...outcome,
      };
      await repo.insertCheck(db, projectId, recorded);
    };
    try {
      await checker(projectId, experimentId, settle);
    } catch (error) {
      await store.writer.write((db) => repo.release(db, projectId, experimentId, owner)).catch(() => undefined);
      throw error;
    }
    if (recorded === null) throw new Error(`the check of experiment '${experimentId}' did not settle`);
    const after = await ports.experiment(store.sql, projectId, experimentId);
    return { ...(recorded as repo.CheckRecord), type, status: after?.status ?? 'stopped' };
  }

  /** Brings the schedule in line with what runs: new checked experiments due now, ended ones gone. */
  async function reconcile(): Promise<Array<{ row: repo.ScheduleRow; type: string }>> {
    const running = await ports.checkedExperiments(store.sql);
    const rows = new Map((await repo.listSchedule(store.sql)).map((r) => [`${r.project_id}\u0000${r.experiment_id}`, r]));
    const runningKeys = new Set(running.map((e) => `${e.project_id}\u0000${e.id}`));
    const at = now().toISOString();
    const added = running.filter((e) => !rows.has(`${e.project_id}\u0000${e.id}`));
    const gone = [...rows.values()].filter((r) => !runningKeys.has(`${r.project_id}\u0000${r.experiment_id}`));
    if (added.length > 0 || gone.length > 0) {
      await store.writer.write(async (db) => {
        for (const e of added) await repo.schedule(db, e.project_id, e.id, at);
        for (const r of gone) await repo.unschedule(db, r.project_id, r.experiment_id);
      });
    }
    const fresh = added.length > 0 ? new Map((await repo.listSchedule(store.sql)).map((r) => [`${r.project_id}\u0000${r.experiment_id}`, r])) : rows;
    return running.flatMap((e) => {
      const row = fresh.get(`${e.project_id}\u0000${e.id}`);
      return row === undefined ? [] : [{ row, type: e.type }];
    });
  }

  let running: Promise<number> | null = null;
  let closed = false;

  return {
    /** One pass: checks every experiment whose time has come; answers how many checks were made. Calls made during a pass join it. */
    runDue(): Promise<number> {
      running ??= (async () => {
        let made = 0;
        try {
          const at = now();
          const atIso = at.toISOString();
          for (const { row, type } of await reconcile()) {
            if (closed) break;
            if (row.due_at > atIso) continue;
            const leased = row.lease_until !== null && row.lease_until > atIso;
            const takeOver = leased ? await deadOwner(row, atIso) : null;
            if (leased && takeOver === null) continue; // a process that may still run holds it
            const owner = await newOwner();
            const claimed = await store.writer.write((db) =>
              repo.claim(db, row.project_id, row.experiment_id, { dueAt: row.due_at, owner, now: atIso, leaseUntil: iso(at.getTime() + LEASE_MS), takeOver }),
            );
            if (!claimed) continue; // another replica has it
            try {
              await run(row.project_id, row.experiment_id, type, owner, row.due_at);
              made++;
            } catch (error) {
              log.warn(
                { err: error, project_id: row.project_id, experiment_id: row.experiment_id },
                'scheduled experiment check failed; it will be tried again',
              );
            }
          }
        } finally {
          running = null;
        }
        return made;
      })();
      return running;
    },

    /** One check now (`POST /experiments/{id}/check`): the schedule's next time stays as it was. */
    async checkNow(projectId: string, experimentId: string): Promise<CheckAnswer> {
      const experiment = await ports.experiment(store.sql, projectId, experimentId);
      if (experiment === undefined) throw notFound(`Experiment '${experimentId}' not found`);
      const at = now();
      if (experiment.status !== 'running') throw conflict(`Experiment '${experimentId}' is ${experiment.status}: only a running experiment is checked`);
      if (!checkers[experiment.type]) {
        const reason =
          experiment.type === 'ab'
            ? 'Nothing to check: an A/B experiment is decided by a person reading its results, never by a scheduled check.'
            : `Nothing to check: ${experiment.type} experiments have no check yet.`;
        return {
          id: null,
          experiment_id: experimentId,
          checked_at: at.toISOString(),
          scheduled_at: null,
          trigger: 'manual',
          action: 'none',
          reason,
          step: null,
          percent: null,
          figures: null,
          type: experiment.type,
          status: experiment.status,
        };
      }
      const owner = await newOwner();
      const lease = { dueAt: null, owner, now: at.toISOString(), leaseUntil: iso(at.getTime() + LEASE_MS) };
      let claimed = await store.writer.write(async (db) => {
        await repo.schedule(db, projectId, experimentId, iso(at.getTime() + CHECK_INTERVAL_MS));
        return repo.claim(db, projectId, experimentId, lease);
      });
      if (!claimed) {
        const held = await repo.leaseOf(store.sql, projectId, experimentId);
        const takeOver = await deadOwner(held, lease.now);
        if (takeOver !== null) claimed = await store.writer.write((db) => repo.claim(db, projectId, experimentId, { ...lease, takeOver }));
        if (!claimed) {
          // Held by a process that runs (or that took a dead one's over first), or by one that cannot be told about.
          const running = held?.lease_owner != null && held.lease_until !== null && held.lease_until > lease.now;
          const unknown = takeOver === null && running && processOf(held.lease_owner ?? '') === null;
          const busy = busyLease(experimentId, held?.lease_until ?? null, at.getTime(), unknown ? 'unknown' : 'alive');
          throw conflict(busy.message, busy.retryAfterSeconds);
        }
      }
      try {
        return await run(projectId, experimentId, experiment.type, owner, null);
      } catch (error) {
        if (error instanceof LeaseLost)
          throw conflict(`${error.message}: try again in ${LIVE_HOLDER_RETRY_SECONDS} s (Retry-After)`, LIVE_HOLDER_RETRY_SECONDS);
        throw error;
      }
    },

    /** The checks made of an experiment, oldest first (its timeline). */
    async timeline(projectId: string, experimentId: string): Promise<repo.CheckRecord[]> {
      if ((await ports.experiment(store.sql, projectId, experimentId)) === undefined) throw notFound(`Experiment '${experimentId}' not found`);
      return repo.listChecks(store.sql, projectId, experimentId, TIMELINE_LIMIT);
    },

    /** Stops starting checks and waits for the pass under way. */
    async close(): Promise<void> {
      closed = true;
      await running?.catch(() => undefined);
    },
  };
}

export type Scheduler = ReturnType<typeof createScheduler>;
