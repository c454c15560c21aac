import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { AUTH_ERRORS, Detail } from '../../http/commonSchemas.js';
import { registerRoute, type AccessCheck } from '../../http/route.js';
import { actorOf } from '../changes/changeLog.js';
import type { DatasetService } from './datasets.service.js';
import {
  CommitUploadBody,
  CreateDatasetBody,
  DatasetIdParams,
  DatasetItemParams,
  DatasetPageSchema,
  DatasetSchema,
  DatasetUploadParams,
  DatasetVersionListSchema,
  DatasetVersionParams,
  DatasetVersionSchema,
  FromRunsBody,
  ItemPageSchema,
  ItemsBody,
  ListDatasetsQuery,
  ListItemsQuery,
  ListVersionsQuery,
  UploadSchema,
} from './datasets.schemas.js';

export function registerDatasetRoutes(app: FastifyInstance, access: AccessCheck, datasets: DatasetService): void {
  const admin = { tags: ['datasets'], role: 'admin' as const, strict: true };
  const read = { tags: ['datasets'], role: 'read' as const, strict: true };

  registerRoute(app, access, {
    ...admin,
    method: 'POST',
    url: '/datasets',
    operationId: 'createDataset',
    summary: 'Create a dataset (empty: items make its versions)',
    description: "Creates a named dataset in the key's project, with no version until items are added.",
    body: CreateDatasetBody,
    response: { 201: DatasetSchema, 409: Detail, ...AUTH_ERRORS },
    handler: async ({ body, auth }) => ({ status: 201, body: await datasets.create(auth.projectId, body, actorOf(auth)) }),
  });

  registerRoute(app, access, {
    ...read,
    method: 'GET',
    url: '/datasets',
    operationId: 'listDatasets',
    summary: 'List datasets, newest first',
    description: 'Lists the datasets of the project a page at a time (limit, cursor), archived ones only with include_archived.',
    query: ListDatasetsQuery,
    response: { 200: DatasetPageSchema, ...AUTH_ERRORS },
    handler: async ({ query, auth }) => ({ status: 200, body: await datasets.list(auth.projectId, query) }),
  });

  registerRoute(app, access, {
    ...read,
    method: 'GET',
    url: '/datasets/:dataset_id',
    operationId: 'getDataset',
    summary: 'One dataset with its latest version and item count',
    description: 'Answers one dataset with its latest version number and the items in that version.',
    params: DatasetIdParams,
    response: { 200: DatasetSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 200, body: await datasets.get(auth.projectId, params.dataset_id) }),
  });

  registerRoute(app, access, {
    ...admin,
    method: 'DELETE',
    url: '/datasets/:dataset_id',
    operationId: 'archiveDataset',
    summary: 'Archive a dataset: still readable, no new versions',
    description: 'Archives a dataset: its versions and items stay readable; adding items answers 409 from then on.',
    params: DatasetIdParams,
    response: { 204: Type.Null(), 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => {
      await datasets.archive(auth.projectId, params.dataset_id, actorOf(auth));
      return { status: 204 };
    },
  });

  registerRoute(app, access, {
    ...admin,
    method: 'POST',
    url: '/datasets/:dataset_id/items',
    operationId: 'appendDatasetItems',
    summary: 'Add items: a new version holding the latest items and these',
    description: 'Makes the next version of the dataset: every item of the latest version, then these, in order. All or nothing.',
    params: DatasetIdParams,
    body: ItemsBody,
    response: { 201: DatasetVersionSchema, 404: Detail, 409: Detail, ...AUTH_ERRORS },
    handler: async ({ params, body, auth }) => ({ status: 201, body: await datasets.append(auth.projectId, params.dataset_id, body.items, actorOf(auth)) }),
  });

  registerRoute(app, access, {
    ...admin,
    method: 'PUT',
    url: '/datasets/:dataset_id/items',
    operationId: 'replaceDatasetItems',
    summary: 'Replace the items: a new version holding only these',
    description: 'Makes the next version of the dataset with exactly these items; earlier versions keep theirs.',
    params: DatasetIdParams,
    body: ItemsBody,
    response: { 201: DatasetVersionSchema, 404: Detail, 409: Detail, ...AUTH_ERRORS },
    handler: async ({ params, body, auth }) => ({ status: 201, body: await datasets.replace(auth.projectId, params.dataset_id, body.items, actorOf(auth)) }),
  });

  registerRoute(app, access, {
    ...admin,
    method: 'POST',
    url: '/datasets/:dataset_id/uploads',
    operationId: 'startDatasetUpload',
    summary: 'Start an upload: items over many requests, committed as one version',
    description:
      'Opens an upload: stage items with POST …/uploads/{upload_id}/items (as many requests as needed), then commit them as ONE new version. Staged items are in no version; an upload never committed is deleted 24 hours after it was started.',
    params: DatasetIdParams,
    response: { 201: UploadSchema, 404: Detail, 409: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 201, body: await datasets.uploads.start(auth.projectId, params.dataset_id) }),
  });

  registerRoute(app, access, {
    ...admin,
    method: 'POST',
    url: '/datasets/:dataset_id/uploads/:upload_id/items',
    operationId: 'stageDatasetUploadItems',
    summary: 'Stage items in an upload (checked now, visible once committed)',
    description:
      'Adds items to the upload after those staged already, checked as POST /datasets/{id}/items checks them; all of a request or none. Up to 200 000 items an upload.',
    params: DatasetUploadParams,
    body: ItemsBody,
    response: { 200: UploadSchema, 404: Detail, 409: Detail, ...AUTH_ERRORS },
    handler: async ({ params, body, auth }) => ({
      status: 200,
      body: await datasets.uploads.stage(auth.projectId, params.dataset_id, params.upload_id, body.items),
    }),
  });

  registerRoute(app, access, {
    ...admin,
    method: 'POST',
    url: '/datasets/:dataset_id/uploads/:upload_id/commit',
    operationId: 'commitDatasetUpload',
    summary: "Commit an upload: one new version with the upload's items",
    description:
      "Makes the next version in one transaction: the latest version's items at commit time (items added meanwhile included), then the upload's; with replace, the upload's only. The upload is gone after; committing it again answers 404. 422 when nothing was staged.",
    params: DatasetUploadParams,
    body: CommitUploadBody,
    bodyOptional: true,
    response: { 201: DatasetVersionSchema, 404: Detail, 409: Detail, ...AUTH_ERRORS },
    handler: async ({ params, body, auth }) => ({
      status: 201,
      body: await datasets.uploads.commit(auth.projectId, params.dataset_id, params.upload_id, body?.replace ?? false, actorOf(auth)),
    }),
  });

  registerRoute(app, access, {
    ...admin,
    method: 'DELETE',
    url: '/datasets/:dataset_id/uploads/:upload_id',
    operationId: 'discardDatasetUpload',
    summary: 'Discard an upload and the items it staged',
    description: 'Drops an upload that is not committed, with its staged items; no version is made.',
    params: DatasetUploadParams,
    response: { 204: Type.Null(), 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => {
      await datasets.uploads.discard(auth.projectId, params.dataset_id, params.upload_id);
      return { status: 204 };
    },
  });

  registerRoute(app, access, {
    ...admin,
    method: 'DELETE',
    url: '/datasets/:dataset_id/items/:item_id',
    operationId: 'deleteDatasetItem',
    summary: 'Remove one item: a new version without it',
    description: 'Makes the next version of the dataset without this item; earlier versions keep it. 404 when the latest version lacks it.',
    params: DatasetItemParams,
    response: { 201: DatasetVersionSchema, 404: Detail, 409: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 201, body: await datasets.deleteItem(auth.projectId, params.dataset_id, params.item_id, actorOf(auth)) }),
  });

  registerRoute(app, access, {
    ...admin,
    method: 'POST',
    url: '/datasets/:dataset_id/from_runs',
    operationId: 'datasetFromRuns',
    summary: "Add items made from a prompt's stored runs (inputs → inputs, output → expected)",
    description:
      'Makes the next version from stored runs of a prompt served through the API (never playground runs): the newest `limit` that match, or a random sample of them. 422 when no run matches.',
    params: DatasetIdParams,
    body: FromRunsBody,
    response: { 201: DatasetVersionSchema, 404: Detail, 409: Detail, ...AUTH_ERRORS },
    handler: async ({ params, body, auth }) => ({ status: 201, body: await datasets.fromRuns(auth.projectId, params.dataset_id, body, actorOf(auth)) }),
  });

  registerRoute(app, access, {
    ...read,
    method: 'GET',
    url: '/datasets/:dataset_id/items',
    operationId: 'listDatasetItems',
    summary: "One version's items, in order (default: the latest version)",
    description: 'Lists the items of one version of the dataset a page at a time (limit up to 1000, cursor), in the order they were added.',
    params: DatasetIdParams,
    query: ListItemsQuery,
    response: { 200: ItemPageSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, query, auth }) => ({ status: 200, body: await datasets.items(auth.projectId, params.dataset_id, query) }),
  });

  registerRoute(app, access, {
    ...read,
    method: 'GET',
    url: '/datasets/:dataset_id/versions',
    operationId: 'listDatasetVersions',
    summary: 'The versions of a dataset, newest first',
    description: 'Lists the versions of a dataset, newest first: how each was made, its item count, what it added and removed.',
    params: DatasetIdParams,
    query: ListVersionsQuery,
    response: { 200: DatasetVersionListSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, query, auth }) => ({ status: 200, body: await datasets.versions(auth.projectId, params.dataset_id, query) }),
  });

  registerRoute(app, access, {
    ...read,
    method: 'GET',
    url: '/datasets/:dataset_id/versions/:version',
    operationId: 'getDatasetVersion',
    summary: 'One version of a dataset',
    description: 'Answers one version of a dataset: how it was made, its item count, what it added and removed.',
    params: DatasetVersionParams,
    response: { 200: DatasetVersionSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 200, body: await datasets.version(auth.projectId, params.dataset_id, params.version) }),
  });
}
