import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../../lib/schemas.js';
import { RUNTIME_MAX } from '../runtimeLimits.js';

/**
 * The SDK bundle (docs/sdks.md, "The bundle"): everything a client needs to answer `/get_prompt`
 * in-process exactly as the server would. Bump BUNDLE_FORMAT on any change a client must know of;
 * clients refuse a format they do not know (and ask the server instead).
 */
export const BUNDLE_FORMAT = 1;
/**
 * The format of a bundle in which some version declares typed variables. A client that predates
 * them would serve such a version without its checks and defaults, so it must not read the bundle
 * at all: it refuses the unknown format and asks the server (docs/sdks.md, "The bundle"). A bundle
 * without declarations keeps format 1, so those clients stay local for it.
 */
export const BUNDLE_FORMAT_TYPED = 2;

/** A template as the server compiled it: text, a value, a section or an inverted section. */
export type TemplateNode =
  | { type: 'text'; text: string }
  | { type: 'value'; name: string }
  | { type: 'section' | 'inverted'; name: string; nodes: TemplateNode[] };

export interface BundleVersion {
  version: number;
  kind: 'text' | 'chat';
  template: TemplateNode[] | null;
  messages: Array<{ role: 'system' | 'user' | 'assistant'; template: TemplateNode[] }> | null;
  model: string | null;
  params: Record<string, unknown>;
  variables: string[];
  /** The typed variables as stored (docs/management-api.md, "Typed variables"); null: none declared. */
  declared_variables: Record<string, Record<string, unknown>> | null;
}

export interface BundlePrompt {
  prompt_id: string;
  /** The version served when no experiment applies: the `production` label, else the latest. */
  served_version: number;
  /** The served version and every version a running experiment's variant names. */
  versions: BundleVersion[];
}

export interface BundleExperiment {
  experiment_id: string;
  prompt_id: string;
  seed: string;
  coverage: number;
  /** Stored assignments may disagree with the hash: a client must ask the server for this prompt. */
  remote_only: boolean;
  /** In the experiment's order; `range` is the server's own bucket range [start, end). */
  variants: Array<{ key: string; version: number; weight: number; range: [number, number] }>;
}

/** Requests a client may answer locally; anything beyond them goes to the server, which answers its own 4xx. */
export interface BundleLimits {
  /** The render budget every render of one version shares (PROMPTLINE_RENDER_MAX_BYTES / _STEPS). */
  render_max_bytes: number;
  render_max_steps: number;
  prompt_id_max_length: number;
  external_user_id_max_length: number;
  inputs_max_entries: number;
  /** The request body limit (PROMPTLINE_BODY_LIMIT_BYTES): larger inputs are the server's 413. */
  body_max_bytes: number;
}

export interface Bundle {
  format: number;
  limits: BundleLimits;
  prompts: BundlePrompt[];
  experiments: BundleExperiment[];
}

// The OpenAPI description of the same shapes (documentation only: the service writes the JSON).
const NodeDoc = Type.Object(
  {
    type: Type.Union([Type.Literal('text'), Type.Literal('value'), Type.Literal('section'), Type.Literal('inverted')]),
    text: Type.Optional(Type.String({ description: 'text: the literal text' })),
    name: Type.Optional(Type.String({ description: 'value, section, inverted: the dotted name looked up in the inputs ("." is the current item)' })),
    nodes: Type.Optional(Type.Array(Type.Object({}), { description: 'section, inverted: the nodes inside, of this same shape' })),
  },
  { title: 'TemplateNode' },
);
const VersionDoc = Type.Object({
  version: Type.Integer(),
  kind: Type.Union([Type.Literal('text'), Type.Literal('chat')]),
  template: Nullable(Type.Array(NodeDoc)),
  messages: Nullable(Type.Array(Type.Object({ role: Type.String(), template: Type.Array(NodeDoc) }))),
  model: Nullable(Type.String()),
  params: Type.Record(Type.String(), Type.Any()),
  variables: Type.Array(Type.String()),
  declared_variables: Nullable(
    Type.Record(Type.String(), Type.Object({}, { additionalProperties: true }), {
      description: "the version's typed variables as GET /prompts/{id}/versions/{v} shows them; null: none declared",
    }),
  ),
});
export const BundleSchema = Type.Object(
  {
    format: Type.Integer({
      description: `the bundle's format: ${BUNDLE_FORMAT_TYPED} when a version in it declares typed variables (a client that does not know them must ask the server), else ${BUNDLE_FORMAT}`,
    }),
    limits: Type.Object({
      render_max_bytes: Type.Integer(),
      render_max_steps: Type.Integer(),
      prompt_id_max_length: Type.Integer(),
      external_user_id_max_length: Type.Integer(),
      inputs_max_entries: Type.Integer(),
      body_max_bytes: Type.Integer(),
    }),
    prompts: Type.Array(Type.Object({ prompt_id: Type.String(), served_version: Type.Integer(), versions: Type.Array(VersionDoc) })),
    experiments: Type.Array(
      Type.Object({
        experiment_id: Type.String(),
        prompt_id: Type.String(),
        seed: Type.String(),
        coverage: Type.Number(),
        remote_only: Type.Boolean(),
        variants: Type.Array(
          Type.Object({ key: Type.String(), version: Type.Integer(), weight: Type.Number(), range: Type.Array(Type.Number(), { minItems: 2, maxItems: 2 }) }),
        ),
      }),
    ),
  },
  { title: 'SdkBundle' },
);

/** At most this many items per report: a client sends more as several batches. */
const MAX_EXPOSURES_PER_REPORT = 1000;

const Exposure = Type.Object({
  experiment_id: Type.String({ maxLength: 128 }),
  external_user_id: Type.String({ minLength: 1, maxLength: RUNTIME_MAX.externalUserId }),
  variant: Type.String({ maxLength: 64 }),
  calls: Type.Integer({ minimum: 1, maximum: 1_000_000_000, description: 'calls served to this user in this batch' }),
  first_seen: Type.String({ maxLength: 64, description: 'ISO 8601 time of the first of those calls (the client clock)' }),
  last_seen: Type.String({ maxLength: 64, description: 'ISO 8601 time of the last of those calls' }),
});

export const ExposureReportBody = Type.Object({
  exposures: Type.Array(Exposure, { minItems: 1, maxItems: MAX_EXPOSURES_PER_REPORT }),
});
/** Users a client SDK assigned locally (from its bundle), reported in a batch. */
export type ReportedExposure = Static<typeof Exposure>;

export const ExposureReportSchema = Type.Object(
  {
    accepted: Type.Integer(),
    conflicts: Type.Array(Type.Object({ index: Type.Integer(), stored_variant: Type.String() })),
    skipped: Type.Array(Type.Object({ index: Type.Integer(), reason: Type.String() })),
  },
  {
    title: 'ExposureReport',
    description:
      'accepted: items stored (a first assignment, or more calls of a stored one); conflicts: accepted items whose user was already stored in another variant (the stored one wins and counts the calls); skipped: items that can never be stored (unknown experiment or variant, an experiment that never ran), so retrying them is pointless',
  },
);
export type ExposureReport = Static<typeof ExposureReportSchema>;
