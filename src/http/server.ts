import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { trustedProxyTest } from '../lib/clientAddress.js';
import { installAccessLog } from './accessLog.js';
import { registerRawBodyParser } from './body.js';
import { type ConnectionLimits, installConnectionLimits } from './connectionLimits.js';
import { installErrorHandler } from './errorHandler.js';
import { registerOpenApi } from './openapi.js';
import { installRoutingAnswers } from './routing.js';

/**
 * The Fastify instance with FastAPI's behaviour (docs/runtime-contract.md): raw bodies decoded by our own
 * rules, 404/405/307 before anything else, errors in FastAPI's shapes, one access line per request,
 * and the connection limits of docs/configuration.md, "Limits". Routes are added by the modules.
 */
/** What the edge needs of the configuration, declared here so that `http` imports nothing above it (a `Config` fits). */
interface HttpServerOptions {
  readonly logLevel: string;
  readonly bodyLimitBytes: number;
  readonly limits: Omit<ConnectionLimits, 'isTrustedProxy'> & {
    readonly requestTimeoutMs: number;
    readonly keepAliveTimeoutMs: number;
    readonly trustProxy: boolean | string;
  };
}

export async function createHttpServer(config: HttpServerOptions, version: string): Promise<FastifyInstance> {
  const { limits } = config;
  const isTrustedProxy = trustedProxyTest(limits.trustProxy);
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: {
        paths: [
          'req.headers["x-api-key"]',
          'req.headers.authorization',
          'req.headers.cookie',
          'headers["x-api-key"]',
          'headers.cookie',
          'res.headers["set-cookie"]',
        ],
        censor: '[redacted]',
      },
    },
    // One compact access line per request (installAccessLog) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    routerOptions: { maxParamLength: 1024 },
    return503OnClosing: true,
    // A client has this long to send its whole request (headers and body), then gets a 408: a
    // stalled upload cannot hold a connection. Answers may take longer (a model call), so no
    // inactivity timeout is set on the socket itself.
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      // Node checks those two timeouts on this period (30 s by default): often enough to honour them.
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    // One rule for the client's address here and for the connection caps (a test, not Fastify's own parse of the list).
    trustProxy: limits.trustProxy === false ? false : (address: string) => isTrustedProxy(address),
  });
  // Connections and requests in flight, in all and per address; health checks answered even at the cap.
  installConnectionLimits(app, { ...limits, isTrustedProxy });

  registerRawBodyParser(app, config.bodyLimitBytes);
  installRoutingAnswers(app);
  installErrorHandler(app);
  installAccessLog(app);
  // Validation is ours (pydanticValidator, in registerRoute's preValidation): Fastify's own Ajv
  // would coerce and answer differently from FastAPI, so it accepts everything, and replies are
  // serialised as they are (sendJson), not through response schemas, which only document.
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await registerOpenApi(app, version);
  return app;
}
