import type { FastifyInstance } from 'fastify';
import { sendJson } from '../../http/send.js';
import type { Readiness } from './readiness.js';

/** Liveness and readiness, without a key: load balancers and orchestrators call them. */
export function registerOperationsRoutes(app: FastifyInstance, readiness: () => Promise<Readiness>): void {
  const healthz = {
    operationId: 'getHealth',
    summary: 'Liveness: 200 while the process is up',
    description: 'Answers `{"status":"ok"}` while the process runs, without touching the database. No key needed.',
    tags: ['operations'],
    security: [],
  };
  app.get('/healthz', { schema: healthz }, (_req, reply) => sendJson(reply, 200, { status: 'ok' }));
  const readyz = {
    operationId: 'getReadiness',
    summary: "Readiness: the database answers, migrations are applied, writes commit, other replicas' changes are heard",
    description: 'Answers 200 `{"status":"ready"}` when this process can serve requests, else 503 with the reason. No key needed.',
    tags: ['operations'],
    security: [],
  };
  app.get('/readyz', { schema: readyz }, async (req, reply) => {
    try {
      const state = await readiness();
      return state.ready ? sendJson(reply, 200, { status: 'ready' }) : sendJson(reply, 503, { status: 'not ready', reason: state.reason });
    } catch (error) {
      req.log.error({ err: error }, 'readiness check failed');
      return sendJson(reply, 503, { status: 'not ready', reason: 'database unavailable' });
    }
  });
}
