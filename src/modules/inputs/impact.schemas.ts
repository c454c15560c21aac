import { Type, type Static } from '@sinclair/typebox';
import { Nullable, VersionNumber } from '../../lib/schemas.js';
import { SHAPE_RETENTION_HOURS } from './inputShapes.js';

export const ImpactParams = Type.Object({ prompt_id: Type.String({ maxLength: 128 }), version: VersionNumber() });

export const ImpactQuery = Type.Object({
  label: Type.Optional(Type.String({ pattern: '^[a-z0-9_-]{1,64}$', default: 'production', description: 'The label the version would be put on.' })),
  window_hours: Type.Optional(
    Type.Integer({ minimum: 1, maximum: SHAPE_RETENTION_HOURS, default: 24, description: 'How many recent hours of calls to look at (1 to 168).' }),
  ),
});
export type ImpactQueryInput = Static<typeof ImpactQuery>;

const RunningExperimentSchema = Type.Object({
  experiment_id: Type.String(),
  status: Type.Literal('running'),
  coverage: Type.Number(),
  variants: Type.Array(Type.Object({ key: Type.String(), version: Type.Integer(), weight: Type.Number() })),
});

export const ImpactSchema = Type.Object({
  prompt_id: Type.String(),
  version: Type.Integer(),
  label: Type.String(),
  served_version: Nullable(Type.Integer()),
  required_variables: Type.Array(Type.String()),
  new_required_variables: Type.Array(Type.String()),
  window: Type.Object({ since: Type.String(), until: Type.String(), hours: Type.Integer() }),
  calls: Type.Integer(),
  calls_missing_any: Type.Integer(),
  missing: Type.Array(Type.Object({ variable: Type.String(), calls: Type.Integer() })),
  calls_without_user_id: Type.Integer(),
  calls_with_unrecorded_inputs: Type.Integer(),
  running_experiment: Nullable(RunningExperimentSchema),
  warning: Nullable(Type.String()),
});
export type ImpactView = Static<typeof ImpactSchema>;
