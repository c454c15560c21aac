import { OTHER_SHAPE } from './inputShapes.js';
import type { ShapeRow } from './inputShapes.repo.js';

/** What recent calls say about a version's new required variables. */
export interface CallsMeasured {
  calls: number;
  /** Calls whose inputs lacked at least one new required variable. */
  callsMissingAny: number;
  /** Per new required variable, in the order given: calls that did not send it. */
  missing: Array<{ variable: string; calls: number }>;
  callsWithoutUserId: number;
  /** Calls counted without their names (a set past the summary's limits): neither known to break nor known not to. */
  callsWithUnrecordedInputs: number;
}

/** Counts the stored rows (pure): which calls would lack which of `newRequired`. */
export function measureCalls(rows: readonly ShapeRow[], newRequired: readonly string[]): CallsMeasured {
  const missing = new Map(newRequired.map((name) => [name, 0]));
  let calls = 0;
  let callsMissingAny = 0;
  let callsWithoutUserId = 0;
  let callsWithUnrecordedInputs = 0;
  for (const row of rows) {
    calls += row.calls;
    if (!row.with_user_id) callsWithoutUserId += row.calls;
    if (row.names === OTHER_SHAPE) {
      callsWithUnrecordedInputs += row.calls;
      continue;
    }
    const sent = new Set(JSON.parse(row.names) as string[]);
    let lacksAny = false;
    for (const name of newRequired) {
      if (sent.has(name)) continue;
      lacksAny = true;
      missing.set(name, missing.get(name)! + row.calls);
    }
    if (lacksAny) callsMissingAny += row.calls;
  }
  return {
    calls,
    callsMissingAny,
    missing: [...missing].map(([variable, n]) => ({ variable, calls: n })),
    callsWithoutUserId,
    callsWithUnrecordedInputs,
  };
}

const nameList = (names: readonly string[]) => names.join(', ');

/**
 * The one sentence the console and the CLI show, or null when the version needs nothing new:
 * "1240 of 1240 calls in the last 24 h sent no agent_name".
 */
export function impactWarning(
  measured: CallsMeasured,
  facts: { version: number; servedVersion: number | null; newRequired: readonly string[]; hours: number },
): string | null {
  const { newRequired } = facts;
  if (newRequired.length === 0) return null;
  const window = `in the last ${facts.hours} h`;
  if (measured.callsMissingAny > 0) {
    const lacked = newRequired.length === 1 ? `sent no ${newRequired[0]}` : `lacked at least one of ${nameList(newRequired)}`;
    return `${measured.callsMissingAny} of ${measured.calls} calls ${window} ${lacked}: version ${facts.version} would answer them 422`;
  }
  const needs = `version ${facts.version} needs ${nameList(newRequired)}, which ${facts.servedVersion === null ? 'nothing served now needs' : `version ${facts.servedVersion} does not`}`;
  if (measured.calls === 0) return `${needs}; no calls ${window} to tell whether callers send ${newRequired.length === 1 ? 'it' : 'them'}`;
  return `${needs}; every call ${window} whose inputs were recorded sent ${newRequired.length === 1 ? 'it' : 'them'}`;
}
