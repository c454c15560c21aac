import { Type, type Static } from '@sinclair/typebox';
import { Nullable, PageQuery, VersionNumber } from '../../lib/schemas.js';

const DATASET_ID_PATTERN = '^[A-Za-z0-9_.-]{1,128}$';
/** Items one request may carry (the request's size limit, 1 MiB by default, may stop it sooner). */
const MAX_ITEMS_PER_REQUEST = 10_000;
/** Items one from_runs call may take. */
const MAX_ITEMS_FROM_RUNS = 10_000;

export const DatasetUploadParams = Type.Object({ dataset_id: Type.String({ maxLength: 128 }), upload_id: Type.String({ maxLength: 128 }) });
export const DatasetIdParams = Type.Object({ dataset_id: Type.String({ maxLength: 128 }) });
export const DatasetItemParams = Type.Object({ dataset_id: Type.String({ maxLength: 128 }), item_id: Type.String({ maxLength: 128 }) });
export const DatasetVersionParams = Type.Object({ dataset_id: Type.String({ maxLength: 128 }), version: VersionNumber() });

export const CreateDatasetBody = Type.Object({
  dataset_id: Type.String({ pattern: DATASET_ID_PATTERN, description: '1–128 characters of letters, digits, _ . -; unique in the project' }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
});
export type CreateDatasetInput = Static<typeof CreateDatasetBody>;

export const DatasetSchema = Type.Object(
  {
    dataset_id: Type.String(),
    description: Nullable(Type.String()),
    latest_version: Type.Integer({ description: '0 until items are added' }),
    item_count: Type.Integer({ description: 'items in the latest version' }),
    created_at: Type.String(),
    archived_at: Nullable(Type.String()),
  },
  { title: 'Dataset' },
);
export type DatasetView = Static<typeof DatasetSchema>;
export const DatasetPageSchema = Type.Object({ data: Type.Array(DatasetSchema), next_cursor: Nullable(Type.String()) });

export const ListDatasetsQuery = Type.Object({
  include_archived: Type.Optional(Type.Boolean({ default: false })),
  ...PageQuery,
});

const ItemInput = Type.Object(
  {
    inputs: Type.Record(Type.String({ maxLength: 256 }), Type.Any(), { maxProperties: 256, description: "the prompt's variables" }),
    expected: Type.Optional(Type.Any({ description: 'what a good output is: text, or any JSON value; null or absent: none' })),
    metadata: Type.Optional(Type.Record(Type.String({ maxLength: 256 }), Type.Any(), { maxProperties: 256 })),
  },
  { title: 'DatasetItemInput' },
);
export type ItemInputValue = Static<typeof ItemInput>;

export const ItemsBody = Type.Object({
  items: Type.Array(ItemInput, { minItems: 1, maxItems: MAX_ITEMS_PER_REQUEST }),
});

export const DatasetVersionSchema = Type.Object(
  {
    dataset_id: Type.String(),
    version: Type.Integer(),
    source: Type.Union([Type.Literal('append'), Type.Literal('replace'), Type.Literal('delete'), Type.Literal('from_runs')], {
      description: 'how it was made from the version before',
    }),
    item_count: Type.Integer(),
    added: Type.Integer(),
    removed: Type.Integer(),
    details: Nullable(Type.Unknown({ description: 'from_runs: the filters given and how many runs matched; an upload: {upload_id}' })),
    created_at: Type.String(),
  },
  { title: 'DatasetVersion' },
);
export type DatasetVersionView = Static<typeof DatasetVersionSchema>;
export const DatasetVersionListSchema = Type.Object({ data: Type.Array(DatasetVersionSchema), next_cursor: Nullable(Type.String()) });

export const ListVersionsQuery = Type.Object({ ...PageQuery });

const ItemSchema = Type.Object(
  {
    item_id: Type.String({ description: 'the same in every version the item is in' }),
    inputs: Type.Record(Type.String(), Type.Unknown()),
    expected: Type.Unknown({ description: 'null: none' }),
    metadata: Type.Record(Type.String(), Type.Unknown()),
    source_run_id: Nullable(Type.String({ description: 'the run it was made from (from_runs)' })),
    added_in: Type.Integer({ description: 'the version that added it' }),
  },
  { title: 'DatasetItem' },
);
export type ItemView = Static<typeof ItemSchema>;

export const ListItemsQuery = Type.Object({
  version: Type.Optional(VersionNumber({ description: 'default: the latest' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 64 })),
});
export const ItemPageSchema = Type.Object({
  dataset_id: Type.String(),
  version: Type.Integer({ description: 'the version listed (0: the dataset has no items yet)' }),
  data: Type.Array(ItemSchema),
  next_cursor: Nullable(Type.String()),
});

export const FromRunsBody = Type.Object({
  prompt_id: Type.String({ maxLength: 128 }),
  version: Type.Optional(VersionNumber({ description: 'only runs of this version of the prompt' })),
  since: Type.Optional(Type.String({ format: 'date-time', maxLength: 64 })),
  until: Type.Optional(Type.String({ format: 'date-time', maxLength: 64, description: 'exclusive' })),
  status: Type.Optional(
    Type.Union([Type.Literal('ok'), Type.Literal('error')], { default: 'ok', description: 'error runs have no output: their items have no expected value' }),
  ),
  limit: Type.Integer({ minimum: 1, maximum: MAX_ITEMS_FROM_RUNS, description: 'items to take' }),
  sample: Type.Optional(
    Type.Boolean({ default: false, description: 'false: the newest matching runs; true: a uniform random sample of the newest 20 000 matching runs' }),
  ),
  seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 4_294_967_295, description: 'makes a sample repeatable' })),
  replace: Type.Optional(Type.Boolean({ default: false, description: 'true: the new version holds only these items' })),
});
export type FromRunsInput = Static<typeof FromRunsBody>;

export const UploadSchema = Type.Object(
  {
    dataset_id: Type.String(),
    upload_id: Type.String(),
    item_count: Type.Integer({ description: 'items staged so far' }),
    created_at: Type.String(),
    expires_at: Type.String({ description: 'when it is deleted if never committed (24 hours after it was started)' }),
  },
  { title: 'DatasetUpload' },
);
export type UploadView = Static<typeof UploadSchema>;

export const CommitUploadBody = Type.Object({
  replace: Type.Optional(
    Type.Boolean({ default: false, description: "false: the latest version's items (at commit time) and the upload's; true: the upload's only" }),
  ),
});
