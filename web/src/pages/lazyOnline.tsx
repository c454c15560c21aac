import { lazy, Suspense } from 'react';
import type { Role } from '../lib/api';

/** Online scoring's sections of the prompt and run pages load with them, after them: the first page's JavaScript does not grow for them. */
const OnlineEvaluators = lazy(() => import('./prompt/OnlineEvaluators').then((m) => ({ default: m.OnlineEvaluators })));
const OnlineScores = lazy(() => import('./runs/OnlineScores').then((m) => ({ default: m.OnlineScores })));

export function OnlineEvaluatorsSection({ promptId, role }: { promptId: string; role: Role }) {
  return (
    <Suspense fallback={null}>
      <OnlineEvaluators promptId={promptId} role={role} />
    </Suspense>
  );
}

export function OnlineScoresSection({ runId }: { runId: string }) {
  return (
    <Suspense fallback={null}>
      <OnlineScores runId={runId} />
    </Suspense>
  );
}
