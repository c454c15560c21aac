import http from 'node:http';
import { buildApp } from './app.js';
import type { Metrics } from './http/metrics.js';
import type { Config } from './config.js';
import { loadTokenizers } from './providers/tokens.js';
import { warnRefusedStoredPatterns } from './storedPatterns.js';

/** After the deadline has cut the last connections, close() gets this long before the process gives up on it. */
const CLOSE_GRACE_MS = 5_000;

/**
 * Starts the service: listen, bootstrap (a configured admin key before listening), and a graceful SIGTERM/SIGINT: stop accepting, close idle
 * keep-alive connections at once, give in-flight requests PROMPTLINE_SHUTDOWN_TIMEOUT_MS, destroy
 * whatever is still open (a stalled upload), flush the writer, checkpoint the WAL, exit 0.
 */
export async function serve(config: Config): Promise<void> {
  loadTokenizers();
  const service = await buildApp(config);
  const { app } = service;
  // A configured key is in place before the first request can use it. A generated one is made only
  // once the server listens: a start that cannot listen must not print a key (the next start, seeing
  // the project, would print none), so the database keeps no key nobody was shown.
  if (config.bootstrapAdminKey !== null) await service.bootstrap();
  // The metrics port binds first: a taken port stops the start before the main port accepts anything.
  const metricsServer = service.metrics !== null && config.metrics.port !== null ? await serveMetrics(service.metrics, config.metrics.port, config.host) : null;
  await app.listen({ port: config.port, host: config.host });
  const printedKey = config.bootstrapAdminKey === null ? await service.bootstrap() : null;
  if (printedKey !== null) {
    // Shown once, on stdout only, never logged: the only copy the operator will ever see.
    process.stdout.write(`\nCreated project "default" with an admin API key (shown only this once, store it now):\n\n  ${printedKey}\n\n`);
  }
  // Versions stored before patterns ran on the linear-time engine may hold one it refuses: said once, in the background.
  void warnRefusedStoredPatterns(service.store.sql, () => service.projects.list(), app.log);
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    const timeoutMs = config.limits.shutdownTimeoutMs;
    app.log.info({ signal, timeoutMs }, 'shutting down');
    const deadline = setTimeout(() => {
      app.log.warn('shutdown deadline reached: closing the connections still open');
      service.cutOpenConnections();
    }, timeoutMs);
    const giveUp = setTimeout(() => {
      app.log.error('shutdown did not finish after its deadline: exiting');
      process.exit(1);
    }, timeoutMs + CLOSE_GRACE_MS);
    giveUp.unref();
    // Keep-alive connections go as soon as they are idle, including those whose last request was
    // still running when the signal came (Node closes idle ones only once, when asked).
    app.server.closeIdleConnections();
    metricsServer?.close();
    metricsServer?.closeAllConnections();
    const reaper = setInterval(() => app.server.closeIdleConnections(), 100);
    service.close().then(
      () => {
        clearTimeout(deadline);
        clearInterval(reaper);
        process.exit(0);
      },
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

/** `GET /metrics` alone on a port of its own, so the main port need not expose it. */
async function serveMetrics(metrics: Metrics, port: number, host: string): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
      return;
    }
    metrics.render().then(
      (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(Object.assign(error, { variable: 'PROMPTLINE_METRICS_PORT' })));
    server.listen(port, host, resolve);
  });
  return server;
}
