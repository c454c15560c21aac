import { announceChange } from './db/changeFeed.js';
import type { Store } from './db/store.js';
import { auditChange } from './modules/audit/audit.service.js';
import { type ChangeLog, type ChangeSubscriber, createChangeLog } from './modules/changes/changeLog.js';
import { enqueueChangeEvent } from './modules/webhooks/events.js';

/**
 * Other replicas hear of a change when (and only if) it commits, and drop what they cached of its
 * target (that key, that prompt; for an experiment, its prompt's cached experiment).
 */
const announceToReplicas: ChangeSubscriber = (db, { projectId, change }) =>
  announceChange(db, {
    projectId,
    targetType: change.targetType,
    targetId: change.targetId,
    ...(change.promptId === undefined ? {} : { promptId: change.promptId }),
  });

/**
 * The change log every service records its changes in (the server and the CLI alike), with all its
 * subscribers, in this order, inside the change's transaction: the audit row, the NOTIFY to other
 * replicas, the webhook deliveries.
 */
export function changeLogFor(store: Store): ChangeLog {
  return createChangeLog(store.clock, [auditChange, announceToReplicas, enqueueChangeEvent]);
}
