import type { FastifyInstance } from 'fastify';
import { registerRoute, type AccessCheck } from '../../http/route.js';
import { AUTH_ERRORS } from '../../http/commonSchemas.js';
import { idempotencyClaim } from '../idempotency/idempotency.js';
import type { SdkService } from './sdk.service.js';
import { BundleSchema, ExposureReportBody, ExposureReportSchema } from './sdk.schemas.js';
import { Type } from '@sinclair/typebox';

/** True when an If-None-Match header names this ETag (or `*`); weak and strong forms compare alike (RFC 9110, 13.1.2). */
function matches(ifNoneMatch: string | string[] | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const tags = (Array.isArray(ifNoneMatch) ? ifNoneMatch.join(',') : ifNoneMatch).split(',').map((t) => t.trim().replace(/^W\//, ''));
  return tags.includes('*') || tags.includes(etag);
}

export function registerSdkRoutes(app: FastifyInstance, access: AccessCheck, sdk: SdkService): void {
  const tags = ['sdk'];
  registerRoute(app, access, {
    method: 'GET',
    url: '/sdk/bundle',
    operationId: 'getSdkBundle',
    summary: "Everything a client SDK needs to answer /get_prompt in-process: the project's served versions and running experiments",
    description:
      "What /get_prompt decides with, for the key's project: each live prompt's versions as compiled templates, and each running experiment with its bucket ranges. Has an ETag; 304 when If-None-Match names it.",
    tags,
    role: 'runtime',
    strict: false,
    response: { 200: BundleSchema, 304: Type.Null({ description: 'If-None-Match named the current ETag: the bundle did not change' }), ...AUTH_ERRORS },
    handler: async ({ auth, req }) => {
      const { etag, body } = await sdk.bundle(auth.projectId);
      const headers = { etag, 'cache-control': 'no-cache' };
      if (matches(req.headers['if-none-match'], etag)) return { status: 304, headers };
      return { status: 200, headers, raw: { contentType: 'application/json', text: body } };
    },
  });
  registerRoute(app, access, {
    method: 'POST',
    url: '/sdk/exposures',
    operationId: 'reportSdkExposures',
    summary: 'Report users a client SDK assigned locally, so results count them as if /get_prompt had been called',
    description:
      'Stores a batch of users a client SDK assigned to experiment variants itself, as /get_prompt would have. Retry safely with an Idempotency-Key.',
    tags,
    role: 'runtime',
    strict: false,
    body: ExposureReportBody,
    response: { 200: ExposureReportSchema, ...AUTH_ERRORS },
    handler: async ({ body, rawBody, auth, req }) => ({
      status: 200,
      body: await sdk.reportExposures(auth.projectId, body.exposures, idempotencyClaim(req.headers['idempotency-key'], 'sdk/exposures', rawBody)),
    }),
  });
}
