import { lazy, Suspense } from 'react';
import type { Role } from '../lib/api';

/** The Datasets, Evaluators and Evaluations pages load on first visit: the first page's JavaScript does not grow for them. */
const DatasetsPage = lazy(() => import('./DatasetsPage').then((m) => ({ default: m.DatasetsPage })));
const DatasetPage = lazy(() => import('./DatasetPage').then((m) => ({ default: m.DatasetPage })));
const EvaluationsPage = lazy(() => import('./EvaluationsPage').then((m) => ({ default: m.EvaluationsPage })));
const EvaluationPage = lazy(() => import('./EvaluationPage').then((m) => ({ default: m.EvaluationPage })));
const EvaluatorsPage = lazy(() => import('./EvaluatorsPage').then((m) => ({ default: m.EvaluatorsPage })));
const EvaluatorPage = lazy(() => import('./EvaluatorPage').then((m) => ({ default: m.EvaluatorPage })));

const loading = <p className="loading">Loading…</p>;

export function DatasetsRoute({ role }: { role: Role }) {
  return (
    <Suspense fallback={loading}>
      <DatasetsPage role={role} />
    </Suspense>
  );
}

export function DatasetRoute({ datasetId, role }: { datasetId: string; role: Role }) {
  return (
    <Suspense fallback={loading}>
      <DatasetPage datasetId={datasetId} role={role} />
    </Suspense>
  );
}

export function EvaluatorsRoute({ role }: { role: Role }) {
  return (
    <Suspense fallback={loading}>
      <EvaluatorsPage role={role} />
    </Suspense>
  );
}

export function EvaluatorRoute({ evaluatorId, role }: { evaluatorId: string; role: Role }) {
  return (
    <Suspense fallback={loading}>
      <EvaluatorPage evaluatorId={evaluatorId} role={role} />
    </Suspense>
  );
}

export function EvaluationsRoute() {
  return (
    <Suspense fallback={loading}>
      <EvaluationsPage />
    </Suspense>
  );
}

export function EvaluationRoute({ evaluationId }: { evaluationId: string }) {
  return (
    <Suspense fallback={loading}>
      <EvaluationPage evaluationId={evaluationId} />
    </Suspense>
  );
}
