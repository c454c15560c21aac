import { lazy, Suspense } from 'react';
import type { Role } from '../lib/api';

/**
 * The Experiments pages load on first visit (about 10 KB gzipped, uPlot apart): the prompts page,
 * where most visits start, stays as light as before. App.tsx only routes to these.
 */
const ExperimentsPage = lazy(() => import('./ExperimentsPage').then((m) => ({ default: m.ExperimentsPage })));
const ExperimentPage = lazy(() => import('./ExperimentPage').then((m) => ({ default: m.ExperimentPage })));

const loading = <p className="loading">Loading…</p>;

export function ExperimentsRoute({ role }: { role: Role }) {
  return (
    <Suspense fallback={loading}>
      <ExperimentsPage role={role} />
    </Suspense>
  );
}

export function ExperimentRoute({ experimentId, role }: { experimentId: string; role: Role }) {
  return (
    <Suspense fallback={loading}>
      <ExperimentPage experimentId={experimentId} role={role} />
    </Suspense>
  );
}
