import { prepared } from '../../db/prepared.js';
import type { Db } from '../../db/open.js';

export interface ProjectRow {
  id: string;
  name: string;
  created_at: string;
}

export function findProjectByName(db: Db, name: string): ProjectRow | undefined {
  return prepared(db, 'SELECT id, name, created_at FROM projects WHERE name = ?').get(name) as ProjectRow | undefined;
}

export function listProjects(db: Db): ProjectRow[] {
  return prepared(db, 'SELECT id, name, created_at FROM projects ORDER BY created_at, id').all() as ProjectRow[];
}

export function countProjects(db: Db): number {
  return prepared(db, 'SELECT count(*) FROM projects').pluck().get() as number;
}

export function insertProject(db: Db, row: ProjectRow): void {
  prepared(db, 'INSERT INTO projects (id, name, created_at) VALUES (@id, @name, @created_at)').run(row);
}
