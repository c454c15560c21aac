import type { ChangeNotice } from './db/changeFeed.js';
import type { RuntimeServices } from './services.js';

/**
 * What memory must drop when another process committed a change (the CLI on the SQLite file,
 * another replica on PostgreSQL). PostgreSQL's NOTIFY says what changed; SQLite's data_version
 * only that something did, so there (and when a notice says nothing) everything cached goes.
 */
export function forgetChanged({ keys, promptCache, router }: Pick<RuntimeServices, 'keys' | 'promptCache' | 'router'>): (change: ChangeNotice | null) => void {
  return (change) => {
    switch (change?.targetType) {
      case 'key':
        keys.forget(change.targetId);
        return;
      case 'prompt':
        promptCache.invalidate(change.projectId, change.targetId);
        return;
      case 'experiment':
        if (change.promptId === undefined) break;
        router.invalidate(change.projectId, change.promptId);
        promptCache.invalidate(change.projectId, change.promptId); // a stop-and-ship moved production
        return;
      case 'user':
        router.clear(); // an erased user's sticky assignments
        return;
      case 'webhook':
      case 'dataset':
      case 'evaluator':
        return; // nothing of these is cached
    }
    keys.invalidate();
    promptCache.clear();
    router.clear();
  };
}
