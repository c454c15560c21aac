import type { Sql } from '../../db/sql.js';
import type { Store } from '../../db/store.js';
import { isoNow } from '../../lib/clock.js';
import { conflict, notFound } from '../../lib/errors.js';
import type { Actor, ChangeLog } from '../changes/changeLog.js';
import * as repo from './datasets.repo.js';
import type { DatasetVersionView } from './datasets.schemas.js';

export interface VersionChange {
  source: repo.VersionRow['source'];
  /** Drop every present item first (the new version holds only the items added). */
  replace: boolean;
  add: readonly repo.NewItem[];
  /**
   * Items added from elsewhere after `add` (an upload's staged rows), in the version's transaction,
   * once the dataset is locked: given the version and the dataset's last place, answers how many.
   */
  addMore?: (db: Sql, version: number) => Promise<number>;
  /** One item to drop (a delete). */
  removeItem?: string;
  details?: unknown;
}

export const versionView = (datasetId: string, row: repo.VersionRow): DatasetVersionView => ({ dataset_id: datasetId, ...row });

/**
 * One new version in one transaction: the next number, the items' rows (added here, removed
 * from here), the version's row and its audit entry. Nothing is copied: the items the version
 * keeps are the rows already there (datasets.repo, migrations/0024_datasets.sql).
 */
export function createVersioning(store: Store, changeLog: ChangeLog) {
  return (projectId: string, datasetId: string, change: VersionChange, actor: Actor): Promise<DatasetVersionView> =>
    store.writer.write(async (db) => {
      const dataset = await repo.findDataset(db, projectId, datasetId);
      if (dataset === undefined) throw notFound(`Dataset '${datasetId}' not found`);
      if (dataset.archived_at !== null) throw conflict(`Dataset '${datasetId}' is archived`);
      await repo.lockDataset(db, projectId, datasetId);
      const latest = await repo.latestVersion(db, projectId, datasetId);
      const version = (latest?.version ?? 0) + 1;
      let removed = 0;
      if (change.replace) removed = await repo.removeAllItems(db, projectId, datasetId, version);
      if (change.removeItem !== undefined) {
        if (!(await repo.removeItem(db, projectId, datasetId, change.removeItem, version)))
          throw notFound(`Item '${change.removeItem}' is not in the latest version`);
        removed = 1;
      }
      await repo.insertItems(db, projectId, datasetId, version, change.add);
      const added = change.add.length + (change.addMore === undefined ? 0 : await change.addMore(db, version));
      const row: repo.VersionRow = {
        version,
        source: change.source,
        item_count: (latest?.item_count ?? 0) - removed + added,
        added,
        removed,
        details: change.details ?? null,
        created_at: isoNow(store.clock),
      };
      await repo.insertVersion(db, projectId, datasetId, row);
      const { details: _details, ...summary } = row;
      await changeLog.record(db, projectId, actor, { action: 'dataset.version_created', targetType: 'dataset', targetId: datasetId, after: summary });
      return versionView(datasetId, row);
    });
}

export type NewVersion = ReturnType<typeof createVersioning>;
