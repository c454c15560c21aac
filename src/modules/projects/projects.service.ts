import type { Store } from '../../db/store.js';
import { isoNow } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { Sql } from '../../db/sql.js';
import { countProjects, findProjectByName, insertProject, listProjects, type ProjectRow } from './projects.repo.js';

const PROJECT_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

class ProjectError extends Error {}

/**
 * Inside another module's write (the keys bootstrap): whether the database has no project yet,
 * and the `default` project, created when missing if `create(isNewDatabase)` says so.
 */
export async function defaultProject(
  db: Sql,
  at: string,
  create: (isNewDatabase: boolean) => boolean,
): Promise<{ isNewDatabase: boolean; project: ProjectRow | undefined }> {
  const isNewDatabase = (await countProjects(db)) === 0;
  let project = await findProjectByName(db, 'default');
  if (project === undefined && create(isNewDatabase)) {
    project = { id: newId('prj'), name: 'default', created_at: at };
    await insertProject(db, project);
  }
  return { isNewDatabase, project };
}

export function createProjectService(store: Store) {
  return {
    list: (): Promise<ProjectRow[]> => listProjects(store.sql),
    findByName: async (name: string) => (await findProjectByName(store.sql, name)) ?? null,
    /** Creates a project; names are unique and used by operators in the CLI. */
    async create(name: string): Promise<ProjectRow> {
      if (!PROJECT_NAME.test(name)) throw new ProjectError(`invalid project name ${JSON.stringify(name)}: 1-64 of [A-Za-z0-9_.-]`);
      return store.writer.write(async (db) => {
        if (await findProjectByName(db, name)) throw new ProjectError(`project ${JSON.stringify(name)} already exists`);
        const row = { id: newId('prj'), name, created_at: isoNow(store.clock) };
        await insertProject(db, row);
        return row;
      });
    },
  };
}
