import { describe, expect, it } from 'vitest';
import {
  type ExperimentForm,
  formFields,
  initialForm,
  newMetricRow,
  normalisedWeights,
  numberOrText,
  requestBody,
  withoutVariant,
  withSource,
} from '../../../web/src/lib/experimentForm.js';

describe('the new-experiment form', () => {
  it.each<[number[], number | undefined, string, string]>([
    [[1, 2, 3], 2, '2', '3'], // control on production, treatment on the newest
    [[3, 1, 2], undefined, '1', '3'], // no production label: the oldest
    [[1], 1, '1', '1'],
    [[], undefined, '', ''],
  ])('versions %j with production %s → control v%s, treatment v%s', (versions, production, control, treatment) => {
    const form = initialForm('welcome', versions, production);
    expect(form.variants.map((v) => v.version)).toEqual([control, treatment]);
    expect(form.control).toBe(0);
    expect(form.variants[form.control]?.key).toBe('control');
    expect(form.metrics).toEqual([newMetricRow('primary')]);
  });

  it.each<[string, number | string]>([
    ['1', 1],
    [' 0.5 ', 0.5],
    ['0', 0],
    ['1e3', 1000],
    ['', ''],
    ['abc', 'abc'],
    ['Infinity', 'Infinity'],
  ])('numberOrText(%j) → %j (the API says what is wrong with text)', (text, value) => {
    expect(numberOrText(text)).toBe(value);
  });

  it('makes the API body: trimmed ids, numbers as numbers, empty optionals left to the API defaults', () => {
    const form: ExperimentForm = {
      ...initialForm('welcome', [1, 2], 1),
      experiment_id: ' warmth ',
      name: 'Warmth <b>test</b>',
      variants: [
        { key: 'control', version: '1', weight: '1' },
        { key: 'warm', version: '2', weight: '' },
      ],
      coverage: '',
      metrics: [
        { source: 'outcomes', event_type: ' signup ', kind: 'success_rate', role: 'primary', direction: '' },
        { source: 'runs', event_type: 'ignored', kind: 'cost_usd', role: 'guardrail', direction: 'lower' },
        { source: 'outcomes', event_type: '', kind: 'mean', role: 'secondary', direction: 'higher' },
      ],
      target_mde: '0.05',
    };
    expect(requestBody(form)).toEqual({
      prompt_id: 'welcome',
      experiment_id: 'warmth',
      name: 'Warmth <b>test</b>',
      variants: [
        { key: 'control', version: 1, weight: 1 },
        { key: 'warm', version: 2 },
      ],
      control: 'control',
      metrics: [
        { event_type: 'signup', kind: 'success_rate', role: 'primary' },
        { source: 'runs', kind: 'cost_usd', role: 'guardrail', direction: 'lower' },
        { kind: 'mean', role: 'secondary', direction: 'higher' }, // no event type: the API's 422 points at metrics.2.event_type
      ],
      target_mde: 0.05,
    });
  });

  it('sends the key the control row has now: renaming the control renames what is sent', () => {
    const base = initialForm('p', [1, 2], 1);
    const renamed = { ...base, variants: [{ ...base.variants[0]!, key: ' current ' }, base.variants[1]!] };
    expect(requestBody(renamed).control).toBe('current');
    expect(requestBody({ ...renamed, control: 1 }).control).toBe('treatment');
    expect(requestBody({ ...base, variants: [{ ...base.variants[0]!, key: ' ' }, base.variants[1]!] })).not.toHaveProperty('control');
  });

  it.each<[number, number, number]>([
    [0, 2, 0], // a row after the control: the control keeps its row
    [1, 2, 1],
    [2, 0, 1], // a row before it: the control's row moves up
    [2, 2, 0], // the control's own row: the first row becomes the control
  ])('with the control on row %i, removing row %i leaves the control on row %i', (control, removed, after) => {
    const base = initialForm('p', [1, 2], 1);
    const form = { ...base, variants: [...base.variants, { key: 'third', version: '2', weight: '1' }], control };
    const key = form.variants[control]!.key;
    const next = withoutVariant(form, removed);
    expect(next.control).toBe(after);
    expect(next.variants).toHaveLength(2);
    if (removed !== control) expect(next.variants[next.control]!.key).toBe(key);
  });

  it('sends CUPED and its window only when CUPED is on, and bad numbers as typed', () => {
    const base = initialForm('p', [1, 2], 1);
    expect(requestBody({ ...base, cuped: false, cuped_days: '30' })).not.toHaveProperty('cuped_days');
    expect(requestBody({ ...base, cuped: true, cuped_days: '30' })).toMatchObject({ cuped: true, cuped_days: 30 });
    expect(requestBody({ ...base, variants: [{ key: 'a', version: '1', weight: 'heavy' }, ...base.variants.slice(1)] }).variants).toEqual([
      { key: 'a', version: 1, weight: 'heavy' },
      { key: 'treatment', version: 2, weight: 1 },
    ]);
  });

  it.each<[MetricKindCase, 'outcomes' | 'runs', string, string]>([
    [{ kind: 'success_rate', event_type: 'signup' }, 'runs', 'latency_ms', ''],
    [{ kind: 'mean', event_type: 'spend' }, 'outcomes', 'mean', 'spend'],
    [{ kind: 'cost_usd', event_type: '' }, 'runs', 'cost_usd', ''],
    [{ kind: 'cost_usd', event_type: '' }, 'outcomes', 'success_rate', ''],
  ])('withSource(%j, %s) → kind %s, event type %j', (row, source, kind, eventType) => {
    const changed = withSource({ ...newMetricRow(), ...row }, source);
    expect([changed.source, changed.kind, changed.event_type]).toEqual([source, kind, eventType]);
  });

  it('lists a control per field the API may name, per row', () => {
    const form = { ...initialForm('p', [1, 2], 1), metrics: [newMetricRow('primary'), newMetricRow()] };
    const fields = formFields(form);
    expect(fields).toContain('variants.1.weight');
    expect(fields).toContain('metrics.1.event_type');
    expect(fields).not.toContain('variants.2.weight');
    expect(fields).not.toContain('variants');
  });

  it.each<[string[], Array<number | null>]>([
    [['1', '1'], [0.5, 0.5]],
    [['1', '3'], [0.25, 0.75]],
    [['', '1'], [0.5, 0.5]], // empty: the API's default weight 1
    [['0', '1'], [null, null]],
    [['x', '1'], [null, null]],
  ])('weights %j split as %j', (weights, split) => {
    expect(normalisedWeights(weights.map((weight, i) => ({ key: `v${i}`, version: '1', weight })))).toEqual(split);
  });
});

type MetricKindCase = Pick<ReturnType<typeof newMetricRow>, 'kind' | 'event_type'>;
