import type { Sql } from '../../db/sql.js';

export interface ProjectRow {
  id: string;
  name: string;
  created_at: string;
}

export async function findProjectByName(db: Sql, name: string): Promise<ProjectRow | undefined> {
  return db.get<ProjectRow>('SELECT id, name, created_at FROM projects WHERE name = ?', [name]);
}

export async function listProjects(db: Sql): Promise<ProjectRow[]> {
  return db.all<ProjectRow>('SELECT id, name, created_at FROM projects ORDER BY created_at, id');
}

export async function countProjects(db: Sql): Promise<number> {
  return (await db.value<number>('SELECT count(*) FROM projects')) ?? 0;
}

export async function insertProject(db: Sql, row: ProjectRow): Promise<void> {
  await db.run('INSERT INTO projects (id, name, created_at) VALUES (@id, @name, @created_at)', row);
}
