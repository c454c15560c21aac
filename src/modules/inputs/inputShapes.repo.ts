import type { Sql } from '../../db/sql.js';
import { keptShape, OTHER_SHAPE, type ShapeCount } from './inputShapes.js';

/** One stored row as the impact reads it. */
export interface ShapeRow {
  hour: string;
  names: string;
  with_user_id: number;
  calls: number;
}

/**
 * Adds a flush's counts to what is stored (other flushes and replicas add to the same rows). A set
 * new to its prompt and hour is kept only while the cap allows (`keptShape`), else counted as OTHER_SHAPE.
 */
export async function addShapeCounts(db: Sql, counts: readonly ShapeCount[]): Promise<void> {
  const storedByGroup = new Map<string, Set<string>>();
  for (const count of counts) {
    const group = `${count.projectId}\u0000${count.promptId}\u0000${count.hour}`;
    let stored = storedByGroup.get(group);
    if (stored === undefined) {
      stored = new Set(
        await db.column<string>('SELECT DISTINCT names FROM input_shapes WHERE project_id = ? AND prompt_id = ? AND hour = ? AND names <> ?', [
          count.projectId,
          count.promptId,
          count.hour,
          OTHER_SHAPE,
        ]),
      );
      storedByGroup.set(group, stored);
    }
    await db.run(
      `INSERT INTO input_shapes (project_id, prompt_id, hour, names, with_user_id, calls) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (project_id, prompt_id, hour, names, with_user_id) DO UPDATE SET calls = input_shapes.calls + excluded.calls`,
      [count.projectId, count.promptId, count.hour, keptShape(count.names, stored), count.withUserId ? 1 : 0, count.calls],
    );
  }
}

/** The prompt's rows from `sinceHour` (an hour start) on. */
export async function readShapes(db: Sql, projectId: string, promptId: string, sinceHour: string): Promise<ShapeRow[]> {
  return db.all<ShapeRow>('SELECT hour, names, with_user_id, calls FROM input_shapes WHERE project_id = ? AND prompt_id = ? AND hour >= ?', [
    projectId,
    promptId,
    sinceHour,
  ]);
}

/** Deletes every row of an hour before `beforeHour`; answers how many went. */
export async function pruneShapesBefore(db: Sql, beforeHour: string): Promise<number> {
  return (await db.run('DELETE FROM input_shapes WHERE hour < ?', [beforeHour])).changes;
}
