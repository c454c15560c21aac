import { Type } from '@sinclair/typebox';
import { Nullable } from '../../lib/schemas.js';

const checkFields = {
  experiment_id: Type.String(),
  checked_at: Type.String({ description: 'when the check ran (the service clock)' }),
  scheduled_at: Nullable(Type.String({ description: 'the scheduled time this check was for; null for a check asked for with POST /experiments/{id}/check' })),
  trigger: Type.Union([Type.Literal('scheduled'), Type.Literal('manual')]),
  action: Type.String({
    description:
      'what the check did: hold (stay on the step), advance (to the next step), rollback (stopped, production untouched), ship (production moved to the candidate), await_approval (the last step succeeded; a person ships), reweight (a bandit), none (nothing to check)',
  }),
  reason: Type.String({ description: 'the check in one sentence' }),
  step: Nullable(Type.Integer({ description: "a rollout's step index after the check" })),
  percent: Nullable(Type.Number({ description: "a rollout's percent after the check" })),
  figures: Type.Unknown({ description: 'what the check measured: for a rollout, each guardrail with its users, values and always-valid interval' }),
};

const CheckSchema = Type.Object({ id: Type.String(), ...checkFields });

export const CheckAnswerSchema = Type.Object({
  id: Nullable(Type.String({ description: 'the recorded check; null when nothing was checked (an A/B experiment)' })),
  ...checkFields,
  type: Type.String({ description: "the experiment's type" }),
  status: Type.String({ description: "the experiment's status after the check" }),
});

export const CheckListSchema = Type.Object({ data: Type.Array(CheckSchema, { description: 'oldest first; the latest 1000' }) });
