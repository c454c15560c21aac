import { describe, expect, it } from 'vitest';
import { busyLease } from '../../../src/modules/scheduler/busyLease.js';

const NOW = Date.parse('2026-04-01T12:00:00.000Z');
const at = (secondsFromNow: number) => new Date(NOW + secondsFromNow * 1000).toISOString();

const CASES: Array<[holder: 'alive' | 'unknown', leaseUntil: string | null, retryAfter: number]> = [
  ['alive',   at(300),    5],   // a running process's check ends in seconds: ask again soon
  ['alive',   at(3.2),    4],   // …but never later than the lease's own end
  ['alive',   at(0.1),    1],   // at least a second
  ['alive',   at(-10),    1],   // already over (freed meanwhile): try again at once
  ['alive',   null,       1],
  ['unknown', at(299.01), 300], // only the lease's end is sure: whole seconds, rounded up
  ['unknown', at(42),     42],
  ['unknown', at(-1),     1],
];

describe('a check refused for a busy lease', () => {
  it.each(CASES)('held by a %s process until %s: Retry-After %i', (holder, leaseUntil, retryAfter) => {
    const busy = busyLease('ramp', leaseUntil, NOW, holder);
    expect(busy.retryAfterSeconds).toBe(retryAfter);
    expect(busy.message).toContain(`${retryAfter} s`);
    expect(busy.message).toContain('Retry-After');
  });
});
