import type { FastifyInstance, FastifyRequest } from 'fastify';
import { registerRoute, type Authenticator } from '../../http/route.js';
import { AUTH_ERRORS, Detail } from '../../http/commonSchemas.js';
import { ExperimentIdParams } from '../experiments/experiments.schemas.js';
import { ExperimentResultsSchema, ResultsQuery } from './results.schemas.js';
import { resultsToCsv } from './results.csv.js';
import type { ResultsService } from './results.service.js';

/**
 * The route layer always answers JSON; a CSV answer is handed over here and swapped in by an
 * onSend hook that lives only in this plugin's scope, so no other route pays for it.
 */
const csvAnswers = new WeakMap<FastifyRequest, string>();

export function registerResultsRoutes(app: FastifyInstance, authenticate: Authenticator, results: ResultsService): void {
  void app.register(async (scope) => {
    scope.addHook('onSend', async (req, reply, payload) => {
      const csv = csvAnswers.get(req);
      if (csv === undefined) return payload;
      csvAnswers.delete(req);
      reply.header('content-type', 'text/csv; charset=utf-8');
      return csv;
    });

    registerRoute(scope, authenticate, {
      method: 'GET', url: '/experiments/:experiment_id/results', tags: ['experiments'],
      summary: 'Per-variant results and statistics against control (JSON, or CSV with ?format=csv: one row per metric × variant)',
      role: 'read', strict: true, params: ExperimentIdParams, query: ResultsQuery,
      response: { 200: ExperimentResultsSchema, 404: Detail, ...AUTH_ERRORS },
      handler: ({ params, query, auth, req }) => {
        const report = results.results(auth.projectId, params.experiment_id, { sequential: query.sequential ?? false, prior: query.prior ?? 'flat' });
        if (query.format === 'csv') {
          csvAnswers.set(req, resultsToCsv(report));
          return {
            status: 200,
            body: {},
            headers: { 'content-disposition': `attachment; filename="${report.experiment_id.replace(/[^A-Za-z0-9_.-]/g, '_')}-results.csv"` },
          };
        }
        return { status: 200, body: report };
      },
    });
  });
}
