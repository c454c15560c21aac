import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { sendJson } from './send.js';
import { SESSION_COOKIE } from './sessionCookie.js';

/** FastAPI's validation-error schemas, byte for byte. */
const FASTAPI_ERROR_SCHEMAS = {
  HTTPValidationError: {
    properties: { detail: { items: { $ref: '#/components/schemas/ValidationError' }, type: 'array', title: 'Detail' } },
    type: 'object',
    title: 'HTTPValidationError',
  },
  ValidationError: {
    properties: {
      loc: { items: { anyOf: [{ type: 'string' }, { type: 'integer' }] }, type: 'array', title: 'Location' },
      msg: { type: 'string', title: 'Message' },
      type: { type: 'string', title: 'Error Type' },
    },
    type: 'object',
    required: ['loc', 'msg', 'type'],
    title: 'ValidationError',
  },
};

const VALIDATION_RESPONSE = {
  description: 'Validation Error',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/HTTPValidationError' } } },
};

type OpenApiDoc = {
  paths?: Record<string, Record<string, { parameters?: unknown[]; security?: Array<Record<string, unknown>>; responses?: Record<string, unknown> }>>;
  components?: { schemas?: Record<string, unknown> };
};

/**
 * Every operation that takes input can answer 422 with FastAPI's body; say so in the document. So
 * can every operation that needs a key, with no input at all: a request without the X-API-Key
 * header is a 422 (`["header","x-api-key"]`), as FastAPI answers a missing required header.
 */
function addValidationResponses(doc: OpenApiDoc): OpenApiDoc {
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      const needsKey = operation.security?.some((requirement) => 'apiKey' in requirement) ?? false;
      if (operation.parameters?.length || 'requestBody' in operation || needsKey) {
        operation.responses = { ...operation.responses, 422: VALIDATION_RESPONSE };
      }
    }
  }
  doc.components = { ...doc.components, schemas: { ...doc.components?.schemas, ...FASTAPI_ERROR_SCHEMAS } };
  return doc;
}

/** `/openapi.json` (OpenAPI 3.1, every route) and `/docs`, whose assets are served locally (works offline). */
export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Promptline',
        description: 'Run LLM prompts, A/B-test prompt versions on real users, and measure which one works.',
        version,
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          // The console's sign-in (POST /session); writes with it must carry the server's own Origin.
          sessionCookie: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE },
        },
      },
      // Every operation also names its own (registerRoute: the key; the few without one: `[]`),
      // so this default only speaks for tools that read nothing else.
      security: [{ apiKey: [] }],
    },
    transformObject: (documentObject) => addValidationResponses((documentObject as { openapiObject: OpenApiDoc }).openapiObject) as never,
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true }, staticCSP: true, theme: { title: 'Promptline API' } });
  const schema = {
    operationId: 'getOpenApi',
    summary: 'This OpenAPI document',
    description: 'The OpenAPI 3.1 document of every operation, from which typed clients can be generated. No key needed.',
    tags: ['operations'],
    security: [],
  };
  app.get('/openapi.json', { schema }, (_req, reply) => {
    sendJson(reply, 200, app.swagger());
  });
}

/** The responses with a 200 that is JSON or a stream of events (OpenAPI's `content`, one schema per media type). */
export function withEventStream(response: Record<number, TSchema>, description: string): Record<number, unknown> {
  const json = response[200];
  if (json === undefined) throw new Error('an event stream documents a 200 answer');
  return {
    ...response,
    200: {
      description: 'Default Response',
      content: { 'application/json': { schema: json }, 'text/event-stream': { schema: { type: 'string', description } } },
    },
  };
}
