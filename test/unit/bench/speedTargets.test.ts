import { describe, expect, it } from 'vitest';
import { evaluate, median, type Measured, type Round, TARGETS } from '../../../bench/speedTargets.js';
import { wrkScript } from '../../../bench/wrk.js';

const measured = (m: Partial<Measured>): Measured => ({ requests: 1000, errors: 0, rps: 1000, p50Ms: 1, p99Ms: 2, maxMs: 3, cpuUsPerRequest: 100, peakRssMb: 200, stallMs: null, ...m });
const round = (reference: Partial<Measured>, promptline: Partial<Measured>): Round => ({ reference: measured(reference), promptline: measured(promptline) });
const target = (id: string) => TARGETS.find((t) => t.id === id)!;

describe('the speed targets', () => {
  it.each([
    [[3], 3],
    [[3, 1, 2], 2],
    [[4, 1, 3, 2], 2.5],
  ])('median of %j is %d', (values, expected) => {
    expect(median(values)).toBe(expected);
  });

  it('a throughput share passes on the median of the rounds, and reports their spread', () => {
    const rounds = [round({ rps: 1000 }, { rps: 500 }), round({ rps: 1000 }, { rps: 600 }), round({ rps: 1000 }, { rps: 700 })];
    expect(evaluate(target('get'), rounds)).toMatchObject({ median: 0.6, min: 0.5, max: 0.7, pass: true });
    expect(evaluate(target('track'), rounds.slice(0, 1))).toMatchObject({ median: 0.5, pass: true });
    expect(evaluate(target('get'), rounds.slice(0, 1))).toMatchObject({ median: 0.5, pass: false });
  });

  it('p99 and CPU are times the proxy’s (at most 2), the 1-connection p50 is milliseconds added (at most 0.5)', () => {
    const r = round({ p50Ms: 0.3, p99Ms: 10, cpuUsPerRequest: 80 }, { p50Ms: 0.9, p99Ms: 25, cpuUsPerRequest: 150 });
    expect(evaluate(target('run-64-p99'), [r])).toMatchObject({ median: 2.5, pass: false });
    expect(evaluate(target('run-64-cpu'), [r])).toMatchObject({ median: 1.875, pass: true });
    expect(evaluate(target('run-1-p50'), [r]).median).toBeCloseTo(0.6, 10);
    expect(evaluate(target('run-1-p50'), [r]).pass).toBe(false);
  });
});

describe("wrk's Lua script", () => {
  it('sends the body with the counter modulo the users where {i} stands', () => {
    const script = wrkScript({ path: '/get_prompt', body: '{"external_user_id":"user-{i}"}', users: 100 });
    expect(script).toContain('"{\\"external_user_id\\":\\"user-" .. (i % 100) .. "\\"}"');
    expect(script).toContain('wrk.format("POST", "/get_prompt", headers,');
    expect(script).not.toContain('delay =');
  });

  it('paces each connection when asked, and refuses bodies Lua would read differently', () => {
    expect(wrkScript({ path: '/x', body: '{}', delayMs: 20 })).toContain('delay = function() return 20 end');
    expect(() => wrkScript({ path: '/x', body: '{"name":"Zoë"}' })).toThrow(/ASCII/);
  });
});
