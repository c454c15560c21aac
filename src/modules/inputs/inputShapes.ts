/**
 * The summary of what callers send (pure): per prompt and hour, how many calls sent each set of
 * input names, with or without `external_user_id`. It must stay small whatever callers send, so
 * it keeps at most SHAPE_LIMITS.setsPerHour sets per prompt and hour, and a set with too many or
 * too long names is not kept either: those calls count under OTHER_SHAPE ("sent something else").
 */

export const SHAPE_LIMITS = {
  /** Distinct name sets kept per prompt and hour; the rest count as OTHER_SHAPE. */
  setsPerHour: 16,
  /** A set naming more than this many inputs counts as OTHER_SHAPE. */
  namesPerSet: 32,
  /** A set with a name longer than this counts as OTHER_SHAPE. */
  nameLength: 64,
} as const;

/** How long the summary is kept, and the longest window the impact may ask for. */
export const SHAPE_RETENTION_HOURS = 168;

/** The stored spelling of "a set not kept" (a kept set is a JSON array, so it starts with `[`). */
export const OTHER_SHAPE = '*';

const HOUR_MS = 3_600_000;

/** One stored count: calls in one hour that sent one set of names. */
export interface ShapeCount {
  projectId: string;
  promptId: string;
  /** The hour's start, ISO 8601 (`2026-11-27T14:00:00.000Z`). */
  hour: string;
  /** JSON array of the sorted names, or OTHER_SHAPE. */
  names: string;
  withUserId: boolean;
  calls: number;
}

/** The start of the hour `ms` falls in, as stored. */
export function hourOf(ms: number): string {
  return new Date(Math.floor(ms / HOUR_MS) * HOUR_MS).toISOString();
}

/** The stored key of one call's inputs: its sorted top-level names as JSON, or OTHER_SHAPE past the limits. */
export function shapeOf(inputs: Record<string, unknown>): string {
  const names = Object.keys(inputs);
  if (names.length > SHAPE_LIMITS.namesPerSet) return OTHER_SHAPE;
  for (const name of names) if (name.length > SHAPE_LIMITS.nameLength) return OTHER_SHAPE;
  // Code-unit order, as the database's "C" collation compares: the same set is one key everywhere.
  return JSON.stringify(names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Counts gathered in memory between two flushes. `add` is what a request pays: one shape key and a
 * Map increment (no I/O, no await); `drain` hands the counts over and starts again.
 */
export class InputShapeTally {
  // (project, prompt, hour) → shape key → [calls without a user id, calls with one]
  private readonly groups = new Map<string, { projectId: string; promptId: string; hour: string; shapes: Map<string, [number, number]> }>();
  // The hour of the last call, written once: formatting a date on every call would cost more than the rest.
  private lastHourStart = Number.NaN;
  private lastHour = '';

  get size(): number {
    return this.groups.size;
  }

  add(projectId: string, promptId: string, atMs: number, inputs: Record<string, unknown>, withUserId: boolean): void {
    const hourStart = Math.floor(atMs / HOUR_MS) * HOUR_MS;
    if (hourStart !== this.lastHourStart) {
      this.lastHourStart = hourStart;
      this.lastHour = new Date(hourStart).toISOString();
    }
    const hour = this.lastHour;
    const key = `${projectId}\u0000${promptId}\u0000${hour}`;
    let group = this.groups.get(key);
    if (group === undefined) {
      group = { projectId, promptId, hour, shapes: new Map() };
      this.groups.set(key, group);
    }
    let names = shapeOf(inputs);
    // OTHER_SHAPE is not a kept set: the cap counts the others.
    const keptSets = group.shapes.size - (group.shapes.has(OTHER_SHAPE) ? 1 : 0);
    if (!group.shapes.has(names) && keptSets >= SHAPE_LIMITS.setsPerHour) names = OTHER_SHAPE;
    let counts = group.shapes.get(names);
    if (counts === undefined) {
      counts = [0, 0];
      group.shapes.set(names, counts);
    }
    counts[withUserId ? 1 : 0] += 1;
  }

  /** Every count gathered since the last drain (the tally is empty afterwards). */
  drain(): ShapeCount[] {
    const out: ShapeCount[] = [];
    for (const { projectId, promptId, hour, shapes } of this.groups.values()) {
      for (const [names, [without, withId]] of shapes) {
        if (without > 0) out.push({ projectId, promptId, hour, names, withUserId: false, calls: without });
        if (withId > 0) out.push({ projectId, promptId, hour, names, withUserId: true, calls: withId });
      }
    }
    this.groups.clear();
    return out;
  }
}

/**
 * Where a flush's new sets go given the sets already stored for that prompt and hour (by earlier
 * flushes, or other replicas): a set not yet stored is kept only while fewer than
 * SHAPE_LIMITS.setsPerHour are; past that its calls are added to OTHER_SHAPE. `stored` grows as
 * sets are kept. (Replicas flushing at the same instant may each keep one more: still bounded.)
 */
export function keptShape(names: string, stored: Set<string>): string {
  if (names === OTHER_SHAPE || stored.has(names)) return names;
  if (stored.size >= SHAPE_LIMITS.setsPerHour) return OTHER_SHAPE;
  stored.add(names);
  return names;
}
