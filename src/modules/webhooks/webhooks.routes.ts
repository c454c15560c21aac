import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { AUTH_ERRORS, Detail } from '../../http/commonSchemas.js';
import { registerRoute, type AccessCheck } from '../../http/route.js';
import { actorOf } from '../changes/changeLog.js';
import type { WebhookService } from './webhooks.service.js';
import {
  CreatedWebhookSchema,
  CreateWebhookBody,
  DeliveryPageSchema,
  DeliverySchema,
  ListDeliveriesQuery,
  PatchWebhookBody,
  WebhookIdParams,
  WebhookSchema,
} from './webhooks.schemas.js';

export function registerWebhookRoutes(app: FastifyInstance, access: AccessCheck, webhooks: WebhookService): void {
  const common = { tags: ['webhooks'], role: 'admin' as const, strict: true };
  const withId = { ...common, params: WebhookIdParams };

  registerRoute(app, access, {
    ...common,
    method: 'POST',
    url: '/webhooks',
    operationId: 'createWebhook',
    summary: 'Register an endpoint for events (the signing secret is shown only in this answer)',
    description: 'Registers a URL to receive signed POSTs for the event types named; the signing secret is in this answer only.',
    body: CreateWebhookBody,
    response: { 201: CreatedWebhookSchema, ...AUTH_ERRORS },
    handler: async ({ body, auth }) => ({ status: 201, body: await webhooks.create(auth.projectId, body, actorOf(auth)) }),
  });

  registerRoute(app, access, {
    ...common,
    method: 'GET',
    url: '/webhooks',
    operationId: 'listWebhooks',
    summary: 'List the webhook endpoints of the project (no secrets)',
    description: 'Lists the webhook endpoints of the project, without their secrets.',
    response: { 200: Type.Object({ data: Type.Array(WebhookSchema) }), ...AUTH_ERRORS },
    handler: async ({ auth }) => ({ status: 200, body: { data: await webhooks.list(auth.projectId) } }),
  });

  registerRoute(app, access, {
    ...withId,
    method: 'GET',
    url: '/webhooks/:webhook_id',
    operationId: 'getWebhook',
    summary: 'One webhook endpoint (no secret)',
    description: 'Answers one webhook endpoint, without its secret.',
    response: { 200: WebhookSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 200, body: await webhooks.get(auth.projectId, params.webhook_id) }),
  });

  registerRoute(app, access, {
    ...withId,
    method: 'PATCH',
    url: '/webhooks/:webhook_id',
    operationId: 'updateWebhook',
    summary: 'Change the URL, the events, the description, or pause deliveries (enabled: false)',
    description: 'Changes the fields given of a webhook endpoint; enabled: false pauses its deliveries.',
    body: PatchWebhookBody,
    response: { 200: WebhookSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, body, auth }) => ({ status: 200, body: await webhooks.update(auth.projectId, params.webhook_id, body, actorOf(auth)) }),
  });

  registerRoute(app, access, {
    ...withId,
    method: 'DELETE',
    url: '/webhooks/:webhook_id',
    operationId: 'deleteWebhook',
    summary: 'Remove an endpoint, with its queued deliveries and their history',
    description: 'Removes a webhook endpoint with its queued deliveries and their history.',
    response: { 204: Type.Null(), 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => {
      await webhooks.remove(auth.projectId, params.webhook_id, actorOf(auth));
      return { status: 204 };
    },
  });

  registerRoute(app, access, {
    ...withId,
    method: 'POST',
    url: '/webhooks/:webhook_id/rotate_secret',
    operationId: 'rotateWebhookSecret',
    summary: 'Replace the signing secret (shown only in this answer); the old one stops signing at once',
    description: 'Replaces the signing secret of a webhook endpoint; the new one is in this answer only.',
    response: { 200: CreatedWebhookSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 200, body: await webhooks.rotateSecret(auth.projectId, params.webhook_id, actorOf(auth)) }),
  });

  registerRoute(app, access, {
    ...withId,
    method: 'POST',
    url: '/webhooks/:webhook_id/test',
    operationId: 'testWebhook',
    summary: 'Queue a webhook.test event to this endpoint alone, to check the receiver and its signature check',
    description: 'Queues a webhook.test event to this endpoint alone and answers the queued delivery.',
    response: { 202: DeliverySchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 202, body: await webhooks.sendTest(auth.projectId, params.webhook_id, actorOf(auth)) }),
  });

  registerRoute(app, access, {
    ...withId,
    method: 'GET',
    url: '/webhooks/:webhook_id/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: 'Deliveries to this endpoint, newest first: status, attempts, the last answer or error, the payload',
    description: 'Lists the deliveries to a webhook endpoint a page at a time, filtered by status and time.',
    query: ListDeliveriesQuery,
    response: { 200: DeliveryPageSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, query, auth }) => ({ status: 200, body: await webhooks.deliveries(auth.projectId, params.webhook_id, query) }),
  });
}
