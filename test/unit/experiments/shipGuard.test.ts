import { describe, expect, it } from 'vitest';
import { checkShip } from '../../../src/modules/experiments/shipGuard.js';
import { Conflict } from '../../../src/lib/errors.js';

describe('checkShip: a figure it cannot read never backs a ship (issue 40)', () => {
  const ship = [{ variant: 'b', decision: 'ship' as const, reason: 'Ship: …' }];
  it.each([0, Number.NaN, -1])('exposed users %f: refused', (exposedUsers) => {
    expect(() => checkShip('e', 'b', 'a', { exposedUsers, decisions: ship })).toThrow(Conflict);
  });
  it('a decision the results do not give, or one that is not ship, is refused; ship is accepted', () => {
    expect(() => checkShip('e', 'c', 'a', { exposedUsers: 10, decisions: ship })).toThrow(/the results have no decision for it/);
    expect(() => checkShip('e', 'b', 'a', { exposedUsers: 10, decisions: [{ variant: 'b', decision: 'keep_running', reason: 'Keep running' }] })).toThrow(Conflict);
    expect(() => checkShip('e', 'b', 'a', { exposedUsers: 10, decisions: ship })).not.toThrow();
  });
});
