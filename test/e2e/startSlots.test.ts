import { describe, expect, it } from 'vitest';
import { acquireStartSlot, serveStartSlots } from '../support/startSlots.js';

/** The start slots the test files share: at most N holders at once, in the order asked, and a slot whose holder's connection closed comes back. */
describe('start slots', () => {
  it('grant two of two at once, the next when one is given back, in the order asked', async () => {
    const slots = await serveStartSlots(2);
    try {
      const first = await acquireStartSlot('first', slots.port);
      const second = await acquireStartSlot('second', slots.port);
      const granted: string[] = [];
      const queued = async (name: string) => {
        const release = await acquireStartSlot(name, slots.port);
        granted.push(name);
        return release;
      };
      const third = queued('third');
      const fourth = queued('fourth');
      await expect.poll(slots.state).toEqual({ holding: 2, waiting: 2 });
      expect(granted).toEqual([]);

      // Given back (a holder whose process dies closes its connection the same way): the next in line gets it.
      first();
      const releaseThird = await third;
      expect(granted).toEqual(['third']);
      expect(slots.state()).toEqual({ holding: 2, waiting: 1 });
      first(); // twice: harmless

      second();
      const releaseFourth = await fourth;
      expect(granted).toEqual(['third', 'fourth']);
      releaseThird();
      releaseFourth();
      await expect.poll(slots.state).toEqual({ holding: 0, waiting: 0 });
    } finally {
      await slots.close();
    }
  });
});
