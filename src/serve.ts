import { buildApp } from './app.js';
import type { Config } from './config.js';

/**
 * Starts the service: bootstrap, listen, and a graceful SIGTERM/SIGINT (stop accepting, finish
 * in-flight requests, flush the writer, checkpoint the WAL, exit 0).
 */
export async function serve(config: Config): Promise<void> {
  const service = await buildApp(config);
  const { app } = service;
  const printedKey = await service.bootstrap();
  if (printedKey !== null) {
    // Shown once, on stdout only, never logged: the only copy the operator will ever see.
    process.stdout.write(
      `\nCreated project "default" with an admin API key (shown only this once, store it now):\n\n  ${printedKey}\n\n`,
    );
  }
  await app.listen({ port: config.port, host: config.host });
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}
