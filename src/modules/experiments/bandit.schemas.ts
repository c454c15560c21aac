import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../../lib/schemas.js';

/** How a bandit re-weights and when it stops (the defaults filled in when stored). */
export const BanditSettingsInput = Type.Object(
  {
    floor: Type.Optional(
      Nullable(
        Type.Number({
          exclusiveMinimum: 0,
          maximum: 0.5,
          description: 'every arm still in play keeps at least this share of new users; null or absent: 1/(10·k) for k arms in play',
        }),
      ),
    ),
    stop_threshold: Type.Optional(
      Type.Number({
        minimum: 0.5,
        exclusiveMaximum: 1,
        description: 'stop and ship an arm once its probability of being best stays at or above this (default 0.95)',
      }),
    ),
    stop_after_minutes: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 525_600,
        description: 'for at least this long, measured from the first check above the threshold (default 1440: a day)',
      }),
    ),
  },
  { description: 'bandits only: the floor share and the stop rule' },
);

export const BanditSettingsSchema = Type.Object({
  floor: Nullable(Type.Number()),
  stop_threshold: Type.Number(),
  stop_after_minutes: Type.Integer(),
});
export type BanditSettings = Static<typeof BanditSettingsSchema>;

export const DEFAULT_BANDIT_SETTINGS: BanditSettings = { floor: null, stop_threshold: 0.95, stop_after_minutes: 1440 };

const Shares = Type.Record(Type.String(), Type.Number());

/** One period of the allocation history: the weights new users followed from started_at. */
export const AllocationSchema = Type.Object({
  period: Type.Integer({ description: '0 for the starting weights, then one per scheduled check' }),
  started_at: Type.String(),
  weights: Shares,
  p_best: Nullable(
    Type.Record(Type.String(), Type.Number(), {
      description: "each arm's probability of being best as the check that set these weights computed it; null for period 0",
    }),
  ),
  dropped: Type.Array(Type.String(), { description: 'arms dropped by then because a guardrail failed (weight 0 for new users)' }),
});

/** The `bandit` section of a bandit's results. */
export const BanditReportSchema = Type.Object(
  {
    metric: Type.Object({
      name: Type.String(),
      kind: Type.Union([Type.Literal('success_rate'), Type.Literal('mean')]),
      direction: Type.Union([Type.Literal('higher'), Type.Literal('lower')]),
    }),
    monte_carlo_draws: Type.Integer({ description: 'draws behind each probability of being best (Monte Carlo error at most 0.005)' }),
    arms: Type.Array(
      Type.Object({
        variant: Type.String(),
        weight: Type.Number({ description: 'the share of new users it gets now' }),
        dropped: Type.Boolean(),
        users: Type.Integer(),
        estimate: Nullable(Type.Number({ description: "the arm's value, each period weighted by its share of all traffic (not pooled); null without data" })),
        ci_lower: Nullable(Type.Number()),
        ci_upper: Nullable(Type.Number({ description: '95% interval of the estimate' })),
        p_best: Type.Number({ description: 'probability that this arm is the best of those in play, from the period-weighted estimates' }),
      }),
    ),
    periods: Type.Array(
      Type.Object({
        ...AllocationSchema.properties,
        users: Type.Record(Type.String(), Type.Integer(), { description: 'users first assigned each arm during the period' }),
        srm_p_value: Nullable(Type.Number({ description: "the period's sample-ratio check against its own weights; null when too few users" })),
      }),
    ),
    srm: Type.Object(
      { chi_square: Type.Number(), df: Type.Integer(), p_value: Type.Number(), checked: Type.Boolean(), flagged: Type.Boolean() },
      { description: "every period's sample-ratio check added up (flagged below p = 0.001)" },
    ),
  },
  { description: 'bandits only: period-weighted estimates, probability of being best, the allocation history and its sample-ratio check' },
);
export type BanditReport = Static<typeof BanditReportSchema>;
