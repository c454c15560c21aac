import { describe, expect, it } from 'vitest';
import { assignmentsMayMove, patchedControl } from '../../../src/modules/experiments/experimentEdits.js';
import { transitioned } from '../../../src/modules/experiments/experimentModel.js';
import type { ExperimentRecord } from '../../../src/modules/experiments/experiments.repo.js';
import type { PatchExperimentInput } from '../../../src/modules/experiments/experiments.schemas.js';

const record = (over: Partial<ExperimentRecord>): ExperimentRecord => ({
  id: 'exp_1',
  prompt_id: 'p',
  name: null,
  hypothesis: null,
  status: 'draft',
  variants: [
    { key: 'a', version: 1, weight: 0.5 },
    { key: 'b', version: 2, weight: 0.5 },
  ],
  control: 'a',
  coverage: 1,
  seed: 'exp_1',
  metrics: [],
  target_mde: 0.1,
  cuped: false,
  cuped_days: 14,
  assignments_diverge: false,
  winner: null,
  shipped_version: null,
  created_at: 'T0',
  updated_at: 'T0',
  started_at: null,
  stopped_at: null,
  type: 'ab',
  rollout: null,
  bandit: null,
  ended_as: null,
  end_reason: null,
  ...over,
});

describe('patchedControl: the control a patch ends with', () => {
  it.each<[string, PatchExperimentInput, string]>([
    ['nothing named: the current control stays', {}, 'a'],
    ['named: the one named, even before it is checked', { control: 'z' }, 'z'],
    ['variants that keep the control: it stays', { variants: [{ key: 'b', version: 2 }, { key: 'a', version: 1 }] }, 'a'],
    ['variants without the control: the first variant', { variants: [{ key: 'c', version: 3 }, { key: 'b', version: 2 }] }, 'c'],
  ])('%s', (_, input, expected) => {
    expect(patchedControl(record({}), input)).toBe(expected);
  });
});

type Times = Pick<ExperimentRecord, 'status' | 'updated_at' | 'started_at' | 'stopped_at' | 'winner' | 'shipped_version'>;

describe("transitioned: a record's status and times after a transition", () => {
  it.each<[string, Partial<ExperimentRecord>, 'start' | 'pause' | 'stop', string | null, number | null, Times]>([
    [
      'a first start records its time',
      {},
      'start',
      null,
      null,
      { status: 'running', updated_at: 'T1', started_at: 'T1', stopped_at: null, winner: null, shipped_version: null },
    ],
    [
      'a resume keeps the first start',
      { status: 'paused', started_at: 'T0' },
      'start',
      null,
      null,
      { status: 'running', updated_at: 'T1', started_at: 'T0', stopped_at: null, winner: null, shipped_version: null },
    ],
    [
      'a pause changes only the status and the update time',
      { status: 'running', started_at: 'T0' },
      'pause',
      null,
      null,
      { status: 'paused', updated_at: 'T1', started_at: 'T0', stopped_at: null, winner: null, shipped_version: null },
    ],
    [
      'a stop with ship records the winner and the shipped version',
      { status: 'running', started_at: 'T0' },
      'stop',
      'b',
      2,
      { status: 'stopped', updated_at: 'T1', started_at: 'T0', stopped_at: 'T1', winner: 'b', shipped_version: 2 },
    ],
    [
      'a stop without a winner clears none it never had',
      { status: 'draft' },
      'stop',
      null,
      null,
      { status: 'stopped', updated_at: 'T1', started_at: null, stopped_at: 'T1', winner: null, shipped_version: null },
    ],
  ])('%s', (_, over, action, winner, shipped, expected) => {
    const after = transitioned(record(over), action, winner, shipped, 'T1');
    const { status, updated_at, started_at, stopped_at, winner: won, shipped_version } = after;
    expect({ status, updated_at, started_at, stopped_at, winner: won, shipped_version }).toEqual(expected);
    expect(after.variants).toEqual(record({}).variants);
  });
});

describe('assignmentsMayMove: whether an update can put an assigned user in another variant', () => {
  const ab = (wa: number, wb: number) => [
    { key: 'a', version: 1, weight: wa },
    { key: 'b', version: 2, weight: wb },
  ];
  it.each<[string, Partial<ExperimentRecord>, Partial<ExperimentRecord>, boolean]>([
    ['nothing that assigns changes', { coverage: 0.5 }, { coverage: 0.5, name: 'renamed' }, false],
    ['coverage grows: every range only grows', { coverage: 0.4 }, { coverage: 0.9 }, false],
    ['coverage shrinks: users at the top of a range fall out', { coverage: 0.9 }, { coverage: 0.4 }, true],
    ['weights change: the boundary moves', { variants: ab(0.5, 0.5) }, { variants: ab(0.3, 0.7) }, true],
    ['variants reordered: the ranges swap keys', { variants: ab(0.5, 0.5) }, { variants: [...ab(0.5, 0.5)].reverse() }, true],
    ['a variant added after the others, coverage 1: the old ranges shrink', { variants: ab(0.5, 0.5) }, { variants: [...ab(0.4, 0.4), { key: 'c', version: 3, weight: 0.2 }] }, true],
    ['a new seed: every hash changes', { seed: 's1' }, { seed: 's2' }, true],
  ])('%s', (_, before, after, expected) => {
    expect(assignmentsMayMove(record(before), record(after))).toBe(expected);
  });
});
