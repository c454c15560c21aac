import { Type, type Static } from '@sinclair/typebox';
import { RUNTIME_MAX } from '../runtimeLimits.js';

export const UserParams = Type.Object({ external_user_id: Type.String({ minLength: 1, maxLength: RUNTIME_MAX.externalUserId }) });

export const ForgottenSchema = Type.Object(
  {
    external_user_id: Type.String({ description: 'the id that was erased (echoed to the caller; stored nowhere any more)' }),
    alias: Type.String({ description: "the random id the user's runs, outcomes and assignments are now filed under" }),
    runs: Type.Integer({ description: 'runs whose inputs, rendered prompt and output were erased' }),
    outcomes: Type.Integer({ description: 'outcomes whose value and metadata were erased' }),
    assignments: Type.Integer({ description: 'experiment assignments now under the alias (so results count the same users)' }),
    idempotency_records: Type.Integer({ description: 'stored answers of idempotent requests about those runs and outcomes, deleted' }),
  },
  { title: 'ForgottenUser' },
);
export type ForgottenView = Static<typeof ForgottenSchema>;
