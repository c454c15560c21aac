import type { FastifyInstance } from 'fastify';
import { registerRoute, type AccessCheck } from '../../http/route.js';
import { AUTH_ERRORS, Detail } from '../../http/commonSchemas.js';
import { ExperimentIdParams } from '../experiments/experiments.schemas.js';
import { ExperimentResultsSchema, ResultsQuery } from './results.schemas.js';
import { resultsToCsv } from './results.csv.js';
import type { ResultsRunner } from './resultsRunner.js';

export function registerResultsRoutes(app: FastifyInstance, access: AccessCheck, results: ResultsRunner): void {
  registerRoute(app, access, {
    method: 'GET',
    url: '/experiments/:experiment_id/results',
    operationId: 'getExperimentResults',
    description:
      'Computes the per-variant results of an experiment from its exposures, runs and outcomes, with statistics and a decision per variant, as JSON or CSV.',
    tags: ['experiments'],
    summary: 'Per-variant results and statistics against control (JSON, or CSV with ?format=csv: one row per metric × variant)',
    role: 'read',
    strict: true,
    params: ExperimentIdParams,
    query: ResultsQuery,
    response: { 200: ExperimentResultsSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, query, auth }) => {
      const { format, ...options } = query;
      const report = await results.results(auth.projectId, params.experiment_id, options);
      if (query.format !== 'csv') return { status: 200, body: report };
      const filename = `${report.experiment_id.replace(/[^A-Za-z0-9_.-]/g, '_')}-results.csv`;
      return {
        status: 200,
        raw: { contentType: 'text/csv; charset=utf-8', text: resultsToCsv(report) },
        headers: { 'content-disposition': `attachment; filename="${filename}"` },
      };
    },
  });
}
