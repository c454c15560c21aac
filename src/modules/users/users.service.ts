import { randomBytes } from 'node:crypto';
import type { Store } from '../../db/store.js';
import { notFound } from '../../lib/errors.js';
import * as repo from './users.repo.js';
import type { ForgottenView } from './users.schemas.js';
import { SYSTEM_ACTOR, type Actor, type ChangeLog } from '../changes/changeLog.js';

/**
 * Erasure of one user (a data subject's request): in one transaction, everything that could hold
 * their words goes, and what stays (numbers, assignments) is filed under a random alias, so
 * experiment counts stay right and nothing links the alias back to the id. A user who comes back
 * with the same id is a new user. A user the project holds nothing about is not found (404), as
 * any id of another project is. `onForgotten` lets the in-memory caches drop the id.
 */
export function createUserService(store: Store, changeLog: ChangeLog, onForgotten: (projectId: string) => void) {
  return {
    async forget(projectId: string, externalUserId: string, actor: Actor = SYSTEM_ACTOR): Promise<ForgottenView> {
      const alias = `forgotten_${randomBytes(16).toString('hex')}`;
      const erased = await store.writer.write(async (db) => {
        const done = await repo.eraseUser(db, projectId, externalUserId, alias);
        if (done.runs + done.outcomes + done.assignments === 0) throw notFound(`User '${externalUserId}' not found`);
        // Filed under the alias: the log must not keep the id the erasure removed.
        await changeLog.record(db, projectId, actor, { action: 'user.forgotten', targetType: 'user', targetId: alias, after: done });
        return done;
      });
      onForgotten(projectId);
      return { external_user_id: externalUserId, alias, ...erased };
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
